import { assert } from "chai";
import supertest from "supertest";
import { encodeFunctionData, parseEther, parseTransaction, type Address, type Hex } from "viem";
import { fiatTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { L1_FEE_LEVELS } from "../../dev/localchain/l1-fees.js";
import { l1FeeWithMargin, quoteL1Fee } from "../../src/chain/l1-fee.js";
import type { Service } from "../../src/service.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";
import { useService } from "../helpers/service.js";
import { manySubscriptions } from "../helpers/recurring.js";
import { balanceOf, send } from "../helpers/tx.js";
import { exchangeWithdrawals, type PayBlock } from "../helpers/payments.js";

/**
 * The relayer following what it sent, for payment addresses' settlements and charges: replacements
 * bid within RELAYER_MAX_FEE_PER_GAS, every hash a settlement was sent under is followed, a nonce
 * another transaction used reopens the watch, one watch's failure leaves the round to the others,
 * the funds check counts the L1 fee, and an instance without a key shares the store without crashing.
 */
describe("the relayer follows within a ceiling (settlements and charges)", function () {
  this.timeout(90_000);
  // A pool ordered by tip: one test pauses the token ahead of a pending settlement by paying more.
  const h = useService({}, { chain: { mempoolOrder: "priority" } });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const relayerAccount = () => h.chain.accounts[LOCAL_ROLES.relayer]!;
  const token = () => h.service.deployment.token.address;
  const watches = () => new DepositWatches(h.database);

  async function create(amount = "5") {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }
  /** A fresh EOA (an exchange's hot wallet) sends `units` to `to` in a plain transfer. */
  const exchangeWithdrawal = exchangeWithdrawals(() => h.chain, buyer, token, 1900);
  const withdraw = async (to: Address, units: bigint) => (await exchangeWithdrawal(to, units)).receipt;
  /** A payment whose amount sits at its address, not yet looked at. */
  async function funded(amount = "5") {
    const payment = await create(amount);
    await withdraw(payment.pay.deposit_address, BigInt(Number(amount) * 1e6));
    h.clock.advance(3);
    return payment;
  }
  const metricsOf = async (s: Service) => (await supertest(s.opsApp).get("/metrics")).text;
  const heldCount = (text: string, kind: string) => Number(new RegExp(`relayer_fee_ceiling_held_total\\{kind="${kind}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  /** Sends through the node while the proxy refuses every broadcast the service makes. */
  async function withoutBroadcasts<T>(run: () => Promise<T>): Promise<T> {
    h.proxy.faultMethods = new Set(["eth_sendRawTransaction"]);
    h.proxy.mode = "rpc-error";
    try {
      return await run();
    } finally {
      h.proxy.mode = "pass";
      h.proxy.faultMethods = null;
    }
  }

  it("RELAYER_MAX_FEE_PER_GAS: a stuck settlement whose next bid would pass it is held at its bid, counted once in a metric; without it the default (5× the quote's cap) stops the 1.25× bumps", async () => {
    const a = await funded();
    await h.chain.testClient.setAutomine(false);
    try {
      assert.equal((await h.service.depositSettler.tick()).sent, 1);
      const first = (await watches().find(a.pay.deposit_address))!;
      const firstCap = parseTransaction(first.rawTx!).maxFeePerGas!;
      // Another instance on the store, same key, with a ceiling at the first bid: no replacement fits under it.
      const capped = await h.another({ RELAYER_MAX_FEE_PER_GAS: String(firstCap) });
      h.clock.advance(h.service.config.relayer.replaceAfterSeconds + 1);
      await capped.depositSettler.tick();
      await capped.depositSettler.tick();
      const held = (await watches().find(a.pay.deposit_address))!;
      assert.equal(held.txHash, first.txHash, "held at its bid");
      assert.deepEqual(held.txHashes, [first.txHash!]);
      assert.equal(heldCount(await metricsOf(capped), "settlement"), 1, "one metric per held transaction, not per round");

      // The default ceiling: at a steady base fee the bumps stop within a few replacements, never above 5× the quote's cap.
      const bids: bigint[] = [firstCap];
      for (let i = 0; i < 20; i++) {
        h.clock.advance(h.service.config.relayer.replaceAfterSeconds + 1);
        await h.service.depositSettler.tick();
        const w = (await watches().find(a.pay.deposit_address))!;
        const cap = parseTransaction(w.rawTx!).maxFeePerGas!;
        if (cap === bids.at(-1)) break;
        bids.push(cap);
      }
      assert.isAbove(bids.length, 2, "replaced while under the ceiling");
      assert.isBelow(bids.length, 10, "and then no more");
      assert.isAtMost(Number(bids.at(-1)!), Number(5n * firstCap), "never above 5× the quote's cap");
      assert.equal(heldCount(await metricsOf(h.service), "settlement"), 1);
      assert.equal((await watches().find(a.pay.deposit_address))!.txHashes.length, bids.length, "every hash kept");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(3);
    assert.equal((await h.service.depositSettler.tick()).settled, 1, "the last bid settles");
  });

  it("RELAYER_MAX_FEE_PER_GAS bounds a stuck charge's replacement too: held at its bid, counted in the metric", async () => {
    const [s] = await manySubscriptions(h, h.api, 1);
    await h.chain.testClient.setAutomine(false);
    try {
      const first = await h.api.post("/v1/charges").send({ subscription: s!.subscription });
      assert.equal(first.body.status, "CONFIRMING", JSON.stringify(first.body));
      const attempt = (await new ChargeAttempts(h.database).find(s!.id, 0n))!;
      const capped = await h.another({ RELAYER_MAX_FEE_PER_GAS: String(parseTransaction(attempt.rawTx).maxFeePerGas!) });
      h.clock.advance(61);
      assert.equal(await capped.stuckCharges.replaceStuck(60), 0, "no bid above the ceiling");
      assert.deepEqual((await new ChargeAttempts(h.database).find(s!.id, 0n))!.txHashes, [attempt.txHash]);
      assert.equal(heldCount(await metricsOf(capped), "charge"), 1);
      assert.equal(await h.service.stuckCharges.replaceStuck(60), 1, "the default ceiling lets the first bump through");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(2);
  });

  it("every hash a settlement was sent under is followed: the original mined after its replacement was recorded ends the watch (settled) or reopens it (reverted)", async () => {
    for (const outcome of ["success", "reverted"] as const) {
      const a = await funded();
      await h.chain.testClient.setAutomine(false);
      let original: Hex;
      try {
        assert.equal((await h.service.depositSettler.tick()).sent, 1);
        original = (await watches().find(a.pay.deposit_address))!.txHash!;
        h.clock.advance(61);
        // The replacement is recorded, but the node never takes it: the original stays in the pool.
        await withoutBroadcasts(() => h.service.depositSettler.tick());
        const w = (await watches().find(a.pay.deposit_address))!;
        assert.notEqual(w.txHash, original);
        assert.deepEqual(w.txHashes, [original, w.txHash!]);
        if (outcome === "reverted") {
          // The token paused ahead of it in the same block (a higher tip): the original reverts.
          await h.chain.wallet(h.chain.usdcRoles.pauser).writeContract({
            address: token(),
            abi: fiatTokenAbi,
            functionName: "pause",
            args: [],
            account: h.chain.usdcRoles.pauser,
            chain: h.chain.chain,
            maxPriorityFeePerGas: parseEther("0.000001"),
            maxFeePerGas: parseEther("0.00001"),
          });
        }
      } finally {
        await h.chain.testClient.setAutomine(true);
      }
      await h.chain.mine(3);
      assert.equal((await h.chain.publicClient.getTransactionReceipt({ hash: original })).status, outcome, "the original was mined");
      h.clock.advance(31);
      const round = await h.service.depositSettler.tick();
      const after = (await watches().find(a.pay.deposit_address))!;
      if (outcome === "success") {
        assert.equal(round.settled, 1);
        assert.equal(after.status, "settled");
        continue;
      }
      assert.equal(after.status, "open", "reverted: the payment is open again, not sent for ever");
      assert.deepEqual(after.txHashes, []);
      await send(h.chain, h.chain.usdcRoles.pauser, { address: token(), abi: fiatTokenAbi, functionName: "unpause", args: [] });
      h.clock.advance(61);
      assert.equal((await h.service.depositSettler.tick()).sent, 1, "settled again by the normal path");
      await h.chain.mine(2);
      assert.equal((await h.service.depositSettler.tick()).settled, 1);
      assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);
    }
  });

  it("a settlement whose nonce another transaction used (a manual send from the relayer key) is reopened and settled again, not retried for ever", async () => {
    const a = await funded();
    await withoutBroadcasts(() => h.service.depositSettler.tick());
    const lost = (await watches().find(a.pay.deposit_address))!;
    assert.equal(lost.status, "sent");
    // Someone else spends that nonce: a plain transfer from the relayer's key.
    const relayer = relayerAccount();
    const hash = await h.chain
      .wallet(relayer)
      .sendTransaction({ account: relayer, chain: h.chain.chain, to: merchant().address, value: 1n, nonce: lost.nonce! });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    h.clock.advance(31);
    const round = await h.service.depositSettler.tick();
    assert.equal(round.sent, 1, "reopened and sent again in the same round");
    const again = (await watches().find(a.pay.deposit_address))!;
    assert.equal(again.status, "sent");
    assert.notEqual(again.txHash, lost.txHash);
    assert.isAbove(again.nonce!, lost.nonce!, "a fresh nonce");
    await h.chain.mine(2);
    assert.equal((await h.service.depositSettler.tick()).settled, 1);
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);
  });

  it("one watch whose follow fails does not stop the round: the others are followed and the arrivals settled", async () => {
    const relayer = relayerAccount().address;
    // A sent watch the node cannot make sense of (its recorded transaction is not a transaction), oldest first.
    await h.database.query(
      "INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until, next_check_at, status, tx_hash, raw_tx, tx_hashes, relayer, nonce, sent_at) VALUES ($1, $2, 1, $3, $4, 0, 'sent', $5, '0x00', ARRAY[$5], $6, 1000000, $7)",
      [
        "0x00000000000000000000000000000000000000aa",
        merchant().address,
        `0x${"11".repeat(32)}`,
        Math.floor(h.clock.now() / 1000) + 86_400,
        `0x${"22".repeat(32)}`,
        relayer,
        h.clock.now() - 3_600_000,
      ],
    );
    const a = await funded();
    assert.equal((await h.service.depositSettler.tick()).sent, 1);
    await h.chain.mine(2);
    const b = await funded();
    const round = await h.service.depositSettler.tick();
    assert.deepEqual(round, { sent: 1, settled: 1 }, "the good watch followed, the new arrival settled");
    assert.equal((await watches().find(a.pay.deposit_address))!.status, "settled");
    assert.equal((await watches().find(b.pay.deposit_address))!.status, "sent");
  });

  it("the settlement's funds check counts the L1 data fee: a relayer that covers the L2 gas but not the L1 fee sends nothing", async () => {
    await h.chain.setL1Fees(L1_FEE_LEVELS.spiking);
    const a = await funded();
    const settler = h.service.depositSettler;
    const data = encodeFunctionData({
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [token(), merchant().address, 5_000_000n, a.reference],
    });
    const priced = (await settler.priceSettlement(data))!;
    const l1Fee = l1FeeWithMargin(await quoteL1Fee(h.service.client, { to: h.service.deployment.contracts.Splitter.address, data }));
    assert.isAbove(Number(l1Fee), 0);
    const relayer = relayerAccount().address;
    await h.chain.testClient.setBalance({ address: relayer, value: priced.gas * priced.fees.maxFeePerGas + l1Fee / 2n });
    assert.equal(await settler.sendSettlement(a.pay.deposit_address, data), "unavailable", "the L2 gas is covered, the L1 fee is not");
    assert.equal((await watches().find(a.pay.deposit_address))!.status, "open");
    await h.chain.testClient.setBalance({ address: relayer, value: priced.gas * priced.fees.maxFeePerGas + l1Fee + parseEther("0.001") });
    const sent = await settler.sendSettlement(a.pay.deposit_address, data);
    assert.isObject(sent, "with the L1 fee covered it is sent");
  });

  it("an instance without a relayer key on the same store never crashes: it follows what the keyed one sent, leaves sending to it, and answers RELAYER_UNAVAILABLE", async () => {
    const keyless = await h.another({ RELAYER_PRIVATE_KEY: "" });
    const [s] = await manySubscriptions(h, h.api, 1);
    // The keyed instance records a settlement and a charge that never reach the node (lost).
    const a = await funded();
    await withoutBroadcasts(async () => {
      await h.service.depositSettler.tick();
      const charged = await h.api.post("/v1/charges").send({ subscription: s!.subscription });
      assert.notEqual(charged.status, 200, "the broadcast failed");
    });
    const attempt = (await new ChargeAttempts(h.database).find(s!.id, 0n))!;
    assert.exists(attempt, "recorded before the broadcast");
    h.clock.advance(61);
    assert.deepEqual(await keyless.depositSettler.tick(), { sent: 0, settled: 0 }, "followed, nothing sent, nothing thrown");
    assert.equal(await keyless.stuckCharges.replaceStuck(60), 0);
    const answer = await supertest(keyless.app).post("/v1/charges").send({ subscription: s!.subscription });
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal(answer.body.error, "RELAYER_UNAVAILABLE");
    assert.equal((await new ChargeAttempts(h.database).find(s!.id, 0n))?.txHash, attempt.txHash, "the keyed instance's record stays");
    // The keyed instance sends both again and follows them to the end.
    await h.service.depositSettler.tick();
    assert.equal((await h.api.post("/v1/charges").send({ subscription: s!.subscription })).body.status, "CONFIRMING");
    await h.chain.mine(2);
    assert.equal((await h.service.depositSettler.tick()).settled, 1);
    assert.equal((await watches().find(a.pay.deposit_address))!.status, "settled");
    assert.equal((await h.api.post("/v1/charges").send({ subscription: s!.subscription })).body.status, "CHARGED");

    // A settlement stuck in the pool, due for a replacement: the keyless instance leaves it to its key.
    const b = await funded();
    await h.chain.testClient.setAutomine(false);
    try {
      await h.service.depositSettler.tick();
      const stuck = (await watches().find(b.pay.deposit_address))!;
      h.clock.advance(61);
      assert.deepEqual(await keyless.depositSettler.tick(), { sent: 0, settled: 0 });
      assert.deepEqual((await watches().find(b.pay.deposit_address))!.txHashes, [stuck.txHash!], "not replaced by an instance without the key");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(3);
    assert.equal((await keyless.depositSettler.tick()).settled, 1, "the keyless instance follows it to the end");
  });

  it("a receiver transaction stuck under a risen base fee is replaced at its nonce (recorded first), within the ceiling: held at its bid under a ceiling it would pass; its replacement mined ends it", async () => {
    const res = await h.api.post("/v1/x402/receivers").send({ recipient: merchant().address });
    const receiver = res.body.pay_to as Address;
    await withdraw(receiver, 1_000_000n);
    const record = { receiver, recipient: merchant().address, token: token() };
    const rows = async () =>
      (
        await h.database.query<{ tx_hash: Hex; status: string; nonce: string | number; raw_tx: Hex }>(
          "SELECT tx_hash, status, nonce, raw_tx FROM x402_transactions ORDER BY sent_at",
        )
      ).map((r) => ({ ...r, nonce: Number(r.nonce) }));
    await h.chain.testClient.setAutomine(false);
    try {
      const [hash] = await h.service.receiverSplitter.splitReceivers([record], { evenIfDust: true });
      assert.ok(hash, "a split sent");
      const firstCap = parseTransaction((await rows()).find((r) => r.tx_hash === hash)!.raw_tx).maxFeePerGas!;
      h.clock.advance(h.service.config.relayer.replaceAfterSeconds + 1);
      // Under a ceiling at its own bid (another instance, same key, same store): held.
      const capped = await h.another({ RELAYER_MAX_FEE_PER_GAS: String(firstCap) });
      await capped.receiverSplitter.tick();
      assert.deepEqual(
        (await rows()).map((r) => [r.tx_hash, r.status]),
        [[hash, "sent"]],
        "held at its bid",
      );
      // Within the default ceiling: replaced, the replacement recorded at the same nonce before it is sent.
      await h.service.receiverSplitter.tick();
      const after = await rows();
      assert.deepEqual(
        after.map((r) => r.status),
        ["replaced", "sent"],
        "and no second split while the first is unmined",
      );
      assert.equal(after[1]!.nonce, after[0]!.nonce, "the same nonce");
      assert.isTrue(parseTransaction(after[1]!.raw_tx).maxFeePerGas! > firstCap, "a higher bid");
      // Mined, and final under the tests' FINALITY (2 confirmations): the follower reads nothing as mined before.
      await h.chain.mine(3);
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.service.receiverSplitter.tick();
    assert.deepEqual(
      (await rows()).map((r) => r.status),
      ["replaced", "mined"],
      "the replacement mined ends it",
    );
    assert.equal(await balanceOf(h.chain, token(), receiver), 0n, "split");
  });
});
