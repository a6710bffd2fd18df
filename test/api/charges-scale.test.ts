import { assert } from "chai";
import supertest from "supertest";
import { decodeFunctionData, parseTransaction, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { useService } from "../helpers/service.js";
import { manySubscriptions } from "../helpers/recurring.js";

describe("charges at scale", function () {
  this.timeout(120_000);
  const h = useService();
  const relayer = () => h.chain.accounts[LOCAL_ROLES.relayer]!.address;
  const relayerNonce = () => h.chain.publicClient.getTransactionCount({ address: relayer() });
  const recurring = () => h.service.deployment.contracts.RecurringCharges.address;
  const paidCount = async (id: Hex) =>
    (await h.chain.publicClient.readContract({ address: recurring(), abi: recurringChargesAbi, functionName: "subscriptions", args: [id] }))[1];

  it("charges many subscriptions at once: batched into few transactions, consecutive nonces, each charged once", async () => {
    const subs = await manySubscriptions(h, h.api, 12);
    const nonce = await relayerNonce();
    const answers = await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
    for (const a of answers) assert.include(a.body, { status: "CONFIRMING" }, JSON.stringify(a.body));
    const transactions = new Set(answers.map((a) => a.body.tx_hash)).size;
    assert.isBelow(transactions, 12, "charges ready together share a transaction");
    assert.equal(await relayerNonce(), nonce + transactions, "every nonce used once, none skipped");
    const recorded = await h.database.query<{ nonce: string | number }>("SELECT DISTINCT nonce FROM charge_attempts ORDER BY nonce");
    assert.deepEqual(
      recorded.map((r) => Number(r.nonce)),
      Array.from({ length: transactions }, (_, i) => nonce + i),
    );
    await h.chain.mine(2);
    const settled = await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
    for (const [i, a] of settled.entries()) assert.include(a.body, { status: "CHARGED", tx_hash: answers[i]!.body.tx_hash });
    for (const s of subs) assert.equal(await paidCount(s.id), 1);
  });

  it("the queue is bounded: past it 429 CONCURRENCY_LIMIT with Retry-After, and nothing is read or spent", async () => {
    const subs = await manySubscriptions(h, h.api, 2);
    const bounded = await h.another({ CHARGE_CONCURRENCY: "1", CHARGE_QUEUE: "0" });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    h.proxy.gate = async (methods) => {
      if (!methods.includes("eth_estimateGas")) return;
      reached();
      await released;
    };
    const nonce = await relayerNonce();
    const first = supertest(bounded.app)
      .post("/v1/charges")
      .send({ subscription: subs[0]!.subscription })
      .then((r) => r);
    await arrived;
    h.proxy.calls.clear();
    const refused = await supertest(bounded.app).post("/v1/charges").send({ subscription: subs[1]!.subscription });
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.body, { error: "CONCURRENCY_LIMIT", action: "RETRY", retry_after: 2 });
    assert.equal(refused.headers["retry-after"], "2");
    assert.equal(h.proxy.count(), 0, "refused before any chain read");
    release();
    assert.equal((await first).body.status, "CONFIRMING");
    assert.equal(await relayerNonce(), nonce + 1, "only the admitted charge was sent");
  });

  it("replaces a stuck transaction with a higher fee (same nonce, same call) and follows the new hash to CHARGED", async () => {
    const [s] = await manySubscriptions(h, h.api, 1);
    const nonce = await relayerNonce();
    await h.chain.testClient.setAutomine(false);
    try {
      const first = await h.api.post("/v1/charges").send({ subscription: s!.subscription });
      assert.equal(first.body.status, "CONFIRMING", JSON.stringify(first.body));
      assert.equal(await h.service.stuckCharges.replaceStuck(60), 0, "not stuck yet");
      const before = parseTransaction((await new ChargeAttempts(h.database).find(s!.id, 0n))!.rawTx);
      h.clock.advance(61);
      assert.equal(await h.service.stuckCharges.replaceStuck(60), 1);
      const attempt = (await new ChargeAttempts(h.database).find(s!.id, 0n))!;
      assert.equal(attempt.txHashes.length, 2);
      assert.equal(attempt.txHashes[0], first.body.tx_hash);
      assert.equal(attempt.txHash, attempt.txHashes[1]);
      const after = parseTransaction(attempt.rawTx);
      assert.equal(before.nonce, nonce);
      assert.deepEqual([after.nonce, after.to, after.data, after.gas], [before.nonce, before.to, before.data, before.gas], "same nonce, same call");
      assert.isAbove(Number(after.maxFeePerGas! - before.maxFeePerGas!), 0);
      assert.isAtLeast(Number((after.maxPriorityFeePerGas! * 100n) / before.maxPriorityFeePerGas!), 125, "a fee a node accepts as a replacement");
      assert.equal(decodeFunctionData({ abi: recurringChargesAbi, data: after.data! }).functionName, "charge");
      const waiting = await h.api.post("/v1/charges").send({ subscription: s!.subscription });
      assert.include(waiting.body, { status: "CONFIRMING" });
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(3);
    const attempt = (await new ChargeAttempts(h.database).find(s!.id, 0n))!;
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: attempt.txHashes[1]! });
    assert.equal(receipt.status, "success", "the replacement was mined");
    const charged = await h.api.post("/v1/charges").send({ subscription: s!.subscription });
    assert.include(charged.body, { status: "CHARGED", tx_hash: attempt.txHashes[1] });
    assert.equal(await paidCount(s!.id), 1);
    assert.equal(await relayerNonce(), nonce + 1);
    h.clock.advance(61);
    assert.equal(await h.service.stuckCharges.replaceStuck(60), 0, "reported: nothing to replace");
  });

  it("a stuck transaction is replaced however many mined charges no merchant asked about again sit in the store (their nonces are spent)", async () => {
    const [mined, stuck] = await manySubscriptions(h, h.api, 2);
    const done = await h.api.post("/v1/charges").send({ subscription: mined!.subscription });
    assert.equal(done.body.status, "CONFIRMING");
    await h.chain.mine(1);
    // A wave of 150 renewals mined in that transaction, recorded an hour ago, never asked about again.
    const attempt = (await new ChargeAttempts(h.database).find(mined!.id, 0n))!;
    const ids = Array.from({ length: 150 }, (_, i) => `0x${(i + 1).toString(16).padStart(64, "0")}`);
    await h.database.query(
      "INSERT INTO charge_attempts (subscription_id, period_index, tx_hash, tx_hashes, relayer, nonce, status, sent_at) SELECT s, 0, $2, ARRAY[$2], $3, $4, 'sent', $5 FROM unnest($1::text[]) AS t(s)",
      [ids, attempt.txHash, attempt.relayer, attempt.nonce, h.clock.now() - 3_600_000],
    );
    await h.chain.testClient.setAutomine(false);
    try {
      const first = await h.api.post("/v1/charges").send({ subscription: stuck!.subscription });
      assert.equal(first.body.status, "CONFIRMING", JSON.stringify(first.body));
      h.clock.advance(61);
      h.proxy.calls.clear();
      assert.equal(await h.service.stuckCharges.replaceStuck(60), 1, "the stuck one, behind 151 older mined ones");
      assert.equal(h.proxy.count("eth_getTransactionReceipt"), 1, "no mined charge's receipt read again");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(1);
  });
});
