import { assert } from "chai";
import { createWalletClient, encodeFunctionData, erc20Abi, http, parseEther, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { paymentKeyOf } from "../../src/payments/verify.js";
import { useService } from "../helpers/service.js";
import { balanceOf, send } from "../helpers/tx.js";
import { manySubscriptions } from "../helpers/recurring.js";
import { RECEIVER_HOST } from "../helpers/receiver.js";
import type { PayBlock } from "../helpers/payments.js";

/**
 * The service on a node that preconfirms like Base's Flashblocks endpoints (dev/localchain/base-node.ts,
 * driven by hand: `flashblock()`, `seal()`): the deposit settler sends a settlement on a preconfirmed
 * transfer, verify and charges say "preconfirmed" and never more, inclusion hints go out at
 * preconfirmation and are retracted when the sealed block leaves the transaction out, and a node
 * that stops preconfirming changes nothing but the wait.
 */
describe("preconfirmations (Flashblocks) in the service", function () {
  this.timeout(120_000);
  const h = useService();
  let node: BaseNode | null = null;
  afterEach(async () => {
    await node?.close();
    node = null;
  });

  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const token = () => h.service.deployment.token.address;
  const verify = async (intent: string, tx_hash: Hex) => (await h.api.post("/v1/payments/verify").send({ intent, tx_hash })).body;
  const latest = () => h.chain.publicClient.getBlockNumber({ cacheTime: 0 });
  let exchangeIndex = 930;

  async function create(amount: string, extra: Record<string, unknown> = {}) {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }

  /** A fresh EOA holding `units` of USDC and gas money (funded before the node runs: every send then waits for its block). */
  async function exchange(units: bigint): Promise<HDAccount> {
    const account = localAccount(exchangeIndex++);
    await h.chain.testClient.setBalance({ address: account.address, value: parseEther("1") });
    await send(h.chain, buyer(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [account.address, units] });
    return account;
  }

  /** A plain transfer through the node, not waited for (the node preconfirms it at its next Flashblock). */
  function transfer(from: HDAccount, to: Address, units: bigint): Promise<Hex> {
    return createWalletClient({ account: from, chain: h.chain.chain, transport: http(node!.url, { retryCount: 0 }) }).sendTransaction({
      account: from,
      chain: h.chain.chain,
      to: token(),
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, units] }),
      gas: 100_000n,
    });
  }

  const deliveries = async () =>
    (
      await h.database.query<{ event_type: string; payload: { data: Record<string, unknown> } | string }>(
        "SELECT event_type, payload FROM webhook_deliveries ORDER BY seq",
      )
    ).map((r) => ({ type: r.event_type, data: (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload).data }));

  async function settledBlockOf(pay: Required<PayBlock>): Promise<bigint> {
    const key = paymentKeyOf(token(), { recipient: pay.recipient, amountUnits: BigInt(pay.amount_units), reference: pay.reference });
    return h.chain.publicClient.readContract({ address: pay.splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] });
  }

  it("a preconfirmed payment that its sealed block leaves out is retracted (payment.reorged) and never fulfilled", async () => {
    const created = await create("7", { notify_url: `https://${RECEIVER_HOST}/hooks/events`, notify_included: true });
    const units = BigInt(created.pay.amount_units);
    const from = await exchange(units);
    const merchantBefore = await balanceOf(h.chain, token(), merchant().address);
    node = await startBaseNode(h.chain, { latencyMs: 0, manual: true });

    const hash = await transfer(from, created.pay.deposit_address, units);
    await node.flashblock();
    assert.deepEqual(await h.service.depositSettler.tickPreconfirmed(), { sent: 1 }, "the settlement is sent on the preconfirmed transfer");
    await node.flashblock();
    const sealedBefore = await latest();
    assert.deepEqual(await verify(created.intent, hash), { valid: false, code: "PAYMENT_CONFIRMING", preconfirmed: true });
    assert.equal(await h.service.webhooks.watcher.tickPreconfirmed(), 1);
    const [hint] = await deliveries();
    assert.equal(hint!.type, "payment.included");
    assert.equal(hint!.data.preconfirmed, true);
    assert.equal(await latest(), sealedBefore, "all of it before the block is sealed");

    // Base's rare Flashblock reorg: the sealed block leaves the buyer's transfer out.
    node.dropFromSeal(hash);
    await node.seal();
    await h.service.webhooks.watcher.tick();
    const retraction = (await deliveries())[1];
    assert.equal(retraction?.type, "payment.reorged");
    assert.deepEqual(retraction?.data, hint!.data, "the retraction names the hint it takes back");
    assert.deepEqual(await verify(created.intent, hash), { valid: false, code: "PAYMENT_NOT_FOUND" });

    // Blocks go on, past finality, with every loop running: nothing is ever fulfilled.
    for (let i = 0; i < 4; i++) {
      await node.flashblock();
      await h.service.depositSettler.tickPreconfirmed();
      await node.seal();
      await h.service.depositSettler.tick();
      await h.service.webhooks.watcher.tick();
      await h.service.webhooks.watcher.tickPreconfirmed();
      assert.deepEqual(await verify(created.intent, hash), { valid: false, code: "PAYMENT_NOT_FOUND" });
    }
    assert.deepEqual(
      (await deliveries()).map((d) => d.type),
      ["payment.included", "payment.reorged"],
      "no payment.settled, no second hint",
    );
    assert.equal(await settledBlockOf(created.pay), 0n);
    assert.equal(await balanceOf(h.chain, token(), merchant().address), merchantBefore);
  });

  it("preconfirmations switched off mid-run: every payment still settles, on sealed blocks, and valid only at finality", async () => {
    const a = await create("3");
    const b = await create("4");
    const fromA = await exchange(BigInt(a.pay.amount_units));
    const fromB = await exchange(BigInt(b.pay.amount_units));
    node = await startBaseNode(h.chain, { latencyMs: 0, manual: true });

    const hashA = await transfer(fromA, a.pay.deposit_address, BigInt(a.pay.amount_units));
    await node.flashblock();
    await h.service.depositSettler.tickPreconfirmed();
    await node.flashblock();
    assert.deepEqual(await verify(a.intent, hashA), { valid: false, code: "PAYMENT_CONFIRMING", preconfirmed: true });

    await node.setPreconfirmations(false);
    const hashB = await transfer(fromB, b.pay.deposit_address, BigInt(b.pay.amount_units));
    await node.flashblock(); // nothing: the node builds no Flashblock now
    await h.service.depositSettler.tickPreconfirmed();
    const early = await verify(b.intent, hashB);
    assert.equal(early.code, "PAYMENT_CONFIRMING");
    assert.notProperty(early, "preconfirmed");

    // Sealed blocks only from here: the sealed rounds find and settle what the preconfirmed ones did not.
    const valid = new Map<string, bigint>();
    for (let i = 0; i < 6 && valid.size < 2; i++) {
      await node.seal();
      await h.service.depositSettler.tick();
      for (const [name, p, hash] of [
        ["a", a, hashA],
        ["b", b, hashB],
      ] as const) {
        const answer = await verify(p.intent, hash);
        if (answer.valid && !valid.has(name)) {
          const depth = (await latest()) - BigInt(answer.block_number as string);
          assert.isTrue(depth >= 2n, `valid only with the finality depth in sealed blocks (depth ${depth})`);
          valid.set(name, BigInt(answer.block_number as string));
        }
        if (!answer.valid) assert.notProperty(answer, "preconfirmed", "nothing preconfirmed any more");
      }
    }
    assert.sameMembers([...valid.keys()], ["a", "b"], "both settled");
    assert.notEqual(await settledBlockOf(a.pay), 0n);
    assert.notEqual(await settledBlockOf(b.pay), 0n);
  });

  it("a charge batch answers CONFIRMING from its preconfirmation, before its block is sealed, and CHARGED only at finality", async () => {
    const subs = await manySubscriptions(h, h.api, 3);
    // Flashblocks on their 200 ms clock; blocks sealed only by the test.
    node = await startBaseNode(h.chain, { latencyMs: 0, blockMs: 0 });
    const sealedBefore = await latest();
    const answers = await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
    for (const a of answers) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.include(a.body, { status: "CONFIRMING", ok: false, action: "WAIT", preconfirmed: true });
    }
    const hashes = [...new Set(answers.map((a) => a.body.tx_hash as Hex))];
    assert.lengthOf(hashes, 1, "one chargeBatch");
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: hashes[0]! });
    assert.equal(receipt.blockNumber, sealedBefore + 1n, "preconfirmed for the next block");
    assert.equal(await latest(), sealedBefore, "answered before that block was sealed");

    await node.seal();
    const again = await h.api.post("/v1/charges").send({ subscription: subs[0]!.subscription });
    assert.include(again.body, { status: "CONFIRMING", tx_hash: hashes[0] });
    assert.notProperty(again.body, "preconfirmed", "sealed, not final: no longer a preconfirmation");
    await node.seal();
    await node.seal();
    const final = await h.api.post("/v1/charges").send({ subscription: subs[0]!.subscription });
    assert.include(final.body, { status: "CHARGED", ok: true });
  });
});
