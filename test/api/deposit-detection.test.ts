import { assert } from "chai";
import type { Address, Hex } from "viem";
import { splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";
import { useService } from "../helpers/service.js";
import { balanceOf, send } from "../helpers/tx.js";
import { exchangeWithdrawals, payIntent, type PayBlock } from "../helpers/payments.js";

/**
 * The deposit settler finds funded payment addresses from the token's Transfer logs: its chain work
 * per round does not grow with the open watches, a transfer to the oldest and the newest of many
 * settles in one round, a payment settled by any path leaves the open set once its Paid is final,
 * and a transfer a reorg removed settles nothing.
 */
describe("payment-address detection from the token's Transfer logs", function () {
  this.timeout(120_000);
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
  const token = () => h.service.deployment.token.address;
  const watches = () => new DepositWatches(h.database);

  async function create(amount = "5") {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }

  /** A fresh EOA (an exchange's hot wallet) sends `units` to `to` in a plain transfer. */
  const exchangeWithdrawal = exchangeWithdrawals(() => h.chain, buyer, token, 950);
  const withdraw = async (to: Address, units: bigint) => (await exchangeWithdrawal(to, units)).receipt;

  /** `count` open watches written straight into the store (as after a flood of anonymous intents), none funded. */
  async function seedOpen(count: number) {
    await h.database.query(
      `INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until)
       SELECT '0x' || lpad(to_hex(g), 40, '0'), $1, 5000000, '0x' || lpad(to_hex(g), 64, '0'), 4102444800
       FROM generate_series(1, ${count}) g`,
      [merchant().address],
    );
  }

  const statusOf = async (address: Address) => (await watches().find(address))!.status;

  it("with 10,000 open watches, a transfer to the oldest and one to the newest are both settled in one round", async () => {
    const oldest = await create("5");
    await seedOpen(10_000);
    const newest = await create("5");
    const settler = h.service.depositSettler;
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 0 }, "nothing has arrived");
    await withdraw(oldest.pay.deposit_address, 5_000_000n);
    await withdraw(newest.pay.deposit_address, 5_000_000n);
    assert.deepEqual(await settler.tick(), { sent: 2, settled: 0 }, "both found and sent in the same round");
    await h.chain.mine(2);
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 2 }, "both final");
    for (const a of [oldest, newest]) {
      assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);
      assert.include((await h.api.post("/v1/payments/recover").send({ intent: a.intent })).body, { found: true, valid: true });
    }
  });

  it("the chain calls of a round do not grow with the open watches: the same count with none and with 10,000, and no balance read for an unfunded one", async () => {
    const settler = h.service.depositSettler;
    await settler.tick(); // the log cursors exist from here
    const round = async () => {
      await h.chain.mine(1);
      h.proxy.reset();
      await settler.tick();
      return { calls: h.proxy.count(), byMethod: Object.fromEntries(h.proxy.calls), balanceReads: h.proxy.contractCalls.length };
    };
    const none = await round();
    await seedOpen(10_000);
    const many = await round();
    assert.deepEqual(many, none, "the same calls, method by method");
    assert.equal(many.balanceReads, 0, "no open address is polled");
    assert.isAtMost(many.calls, 3, "the block number, the Transfer logs, the Paid logs");
    // One arrival: one balance read more, then the settlement's own calls.
    const a = await create("5");
    await withdraw(a.pay.deposit_address, 5_000_000n);
    h.proxy.reset();
    assert.equal((await settler.tick()).sent, 1);
    const balanceOf = h.proxy.contractCalls.filter((c) => c.method === "eth_call" && c.to === token().toLowerCase());
    assert.lengthOf(balanceOf, 1, "one balance read per arrival");
  });

  it("an intent paid by pay, or settled by a stranger, leaves the open set once its Paid is final, never before", async () => {
    const settler = h.service.depositSettler;
    await settler.tick();
    const paid = await create("5");
    const byStranger = await create("6");
    await withdraw(byStranger.pay.deposit_address, 6_000_000n);
    await payIntent(h.chain, buyer(), paid.pay);
    await send(h.chain, stranger(), {
      address: byStranger.pay.splitter,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [byStranger.pay.token, byStranger.pay.recipient, 6_000_000n, byStranger.pay.reference],
    });
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 0 }, "mined, not final: still open; the emptied address is not sent for");
    assert.equal(await statusOf(paid.pay.deposit_address), "open");
    assert.equal(await statusOf(byStranger.pay.deposit_address), "open");
    await h.chain.mine(2);
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 2 }, "final: both leave the open set");
    assert.equal(await statusOf(paid.pay.deposit_address), "settled");
    assert.equal(await statusOf(byStranger.pay.deposit_address), "settled");
    assert.deepEqual(await watches().openAmong([paid.pay.deposit_address, byStranger.pay.deposit_address], h.clock.now()), []);
  });

  it("a log range the node refuses (a provider's cap on the logs of one call) is read in halves: detection goes on, and a range refused even one block at a time still leaves the retries and the backstop running", async () => {
    const settler = h.service.depositSettler;
    const a = await create("5");
    await settler.tick();
    await h.chain.mine(20); // the next read covers the 8 re-read blocks and the 20 new ones
    await withdraw(a.pay.deposit_address, 5_000_000n);
    const span = (r: { method: string; params?: unknown[] }) => {
      const [filter] = (r.params ?? []) as [{ fromBlock: Hex; toBlock: Hex }];
      return BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n;
    };
    // A node that answers at most 4 blocks of logs a call.
    let refused = 0;
    h.proxy.refuse = (r) => r.method === "eth_getLogs" && span(r) > 4n && ++refused > 0;
    let sent = 0;
    for (let round = 0; round < 12 && sent === 0; round++) sent += (await settler.tick()).sent;
    assert.equal(sent, 1, "found, a few blocks a round");
    assert.isAbove(refused, 0, "the node did refuse the wider ranges");
    h.proxy.refuse = null;
    await h.chain.mine(2);
    await settler.tick();
    assert.equal(await statusOf(a.pay.deposit_address), "settled");
  });

  it("a transfer detected and then reorged out before the settler acts settles nothing, the watch stays open; a real transfer then settles it", async () => {
    const settler = h.service.depositSettler;
    const a = await create("5");
    await settler.tick();
    const before = await h.chain.snapshot();
    await withdraw(a.pay.deposit_address, 5_000_000n);
    // The round reads the transfer's log; before its balance read reaches the node, the chain drops the block.
    let reorged = false;
    h.proxy.gate = async (methods) => {
      if (!reorged && methods.includes("eth_call")) {
        reorged = true;
        await h.chain.revert(before);
        await h.chain.mine(3);
      }
    };
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 0 }, "the balance the log announced is not there");
    assert.isTrue(reorged, "the log was read before the reorg");
    h.proxy.gate = null;
    assert.equal(await statusOf(a.pay.deposit_address), "open");
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);
    await h.chain.mine(2);
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 0 }, "nothing to settle on the new chain");
    assert.equal(await statusOf(a.pay.deposit_address), "open");

    const merchantBefore = await balanceOf(h.chain, token(), merchant().address);
    await withdraw(a.pay.deposit_address, 5_000_000n);
    assert.equal((await settler.tick()).sent, 1, "a real transfer is found and sent for");
    await h.chain.mine(2);
    assert.equal((await settler.tick()).settled, 1);
    assert.equal((await balanceOf(h.chain, token(), merchant().address)) - merchantBefore, 5_000_000n - 100_000n);
  });

  it("a settlement sent for a transfer that a reorg then removes reverts when it is sent again: nothing settled, the watch open; a real transfer then settles", async () => {
    const settler = h.service.depositSettler;
    const a = await create("5");
    await settler.tick();
    const before = await h.chain.snapshot();
    await withdraw(a.pay.deposit_address, 5_000_000n);
    assert.equal((await settler.tick()).sent, 1, "found and sent (mined at once on this chain)");
    const sent = (await watches().find(a.pay.deposit_address))!;
    await h.chain.revert(before); // the transfer and the settlement both gone
    await h.chain.mine(3);
    h.clock.advance(31);
    await settler.tick(); // the node does not know the settlement: the same signed transaction again, which reverts now
    await h.chain.mine(1);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: sent.txHash! });
    assert.equal(receipt.status, "reverted", "no balance at the address on this chain");
    await settler.tick();
    assert.equal(await statusOf(a.pay.deposit_address), "open", "a reverted settlement opens the watch again");
    h.clock.advance(61);
    assert.equal((await settler.tick()).sent, 0, "its retry finds no balance: nothing sent");
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);

    await withdraw(a.pay.deposit_address, 5_000_000n);
    assert.equal((await settler.tick()).sent, 1, "a real transfer is found and sent for");
    await h.chain.mine(2);
    assert.equal((await settler.tick()).settled, 1);
    assert.equal(await statusOf(a.pay.deposit_address), "settled");
  });

  it("a settler that was stopped reads its way forward in reads of at most 100 blocks, all in its first round: a transfer 200 blocks back is found at once", async () => {
    const settler = h.service.depositSettler;
    const a = await create("5");
    await settler.tick();
    await h.chain.mine(200);
    await withdraw(a.pay.deposit_address, 5_000_000n);
    await h.chain.mine(20);
    const from = (await watches().scanned("transfers"))!;
    const latest = await h.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    h.proxy.reset();
    const { sent } = await settler.tick();
    assert.equal(sent, 1, "found in the first round");
    assert.equal(await watches().scanned("transfers"), latest, "read up to the head");
    // The transfers' reads: 100 blocks each, the first going back the overlap (15 s: 75 blocks) and
    // the next on from where it ended; and one read of the Splitter's Paid logs.
    const transferReads = 1 + Math.ceil(Math.max(0, Number(latest - from) - 25) / 100);
    assert.isAtLeast(transferReads, 3);
    assert.equal(h.proxy.calls.get("eth_getLogs"), transferReads + 1);
    assert.equal((await settler.tick()).sent, 0, "nothing more the next round");
  });

  it("a funded address whose log was never read (a node that missed it) is found by the once-a-minute backstop sweep, and only by it", async () => {
    const settler = h.service.depositSettler;
    const a = await create("5");
    await settler.tick();
    // The logs read past the transfer: as if the node had missed them (its block is beyond the overlap, 15 s).
    await withdraw(a.pay.deposit_address, 5_000_000n);
    await h.chain.mine(100);
    await watches().setScanned("transfers", await h.chain.publicClient.getBlockNumber({ cacheTime: 0 }));
    assert.equal((await settler.tick()).sent, 0, "no log in the range read, no poll of open addresses");
    h.clock.advance(60);
    assert.equal((await settler.tick()).sent, 1, "the once-a-minute sweep reads its balance and settles it");
  });
});
