import { assert } from "chai";
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import supertest from "supertest";
import { falseReturningTokenAbi, recurringChargesAbi, splitterAbi, testSmartAccountAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { until } from "../helpers/until.js";
import { payIntent } from "../helpers/payments.js";
import { deployTestContract } from "../helpers/deploy.js";
import { approve, send } from "../helpers/tx.js";
import { reimbursingEnv, walletTypedData } from "../helpers/recurring.js";

describe("refunds API", function () {
  this.timeout(60_000);
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const usdc = () => h.service.deployment.token.address;
  const post = (path: string, body: object) => h.api.post(path).send(body);

  /** A settled one-time payment of `amount` from the buyer to `recipient`. */
  async function paid(amount = "10", recipient: Address = merchant().address) {
    const created = (await post("/v1/payments", { recipient, amount })).body;
    const receipt = await payIntent(h.chain, buyer(), created.pay);
    await h.chain.mine(2);
    return { intent: created.intent as string, tx_hash: receipt.transactionHash, reference: created.reference as Hex };
  }

  /** The merchant sends `value` of `token` to `to` (a plain transfer), returning the hash. */
  async function transfer(from = merchant(), to: Address = buyer().address, value = 10_000_000n, token: Address = usdc()) {
    return (await send(h.chain, from, { address: token, abi: erc20Abi, functionName: "transfer", args: [to, value] })).transactionHash;
  }

  it("refunds a one-time payment in full: the ceiling is the amount paid, so the merchant absorbs the fee", async () => {
    const p = await paid("10");
    const prepared = await post("/v1/refunds/prepare", { ...p, amount: "10000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    const { refund_token, ...rest } = prepared.body;
    assert.match(refund_token, /^rt\.k1\./);
    assert.deepEqual(rest, {
      chain_id: 84532,
      token: usdc(),
      merchant: merchant().address,
      payer: buyer().address,
      original_amount: "10.000000",
      original_amount_units: "10000000",
      refund_amount: "10.000000",
      refund_amount_units: "10000000",
      expires_at: Math.floor(h.clock.ms / 1000) + 900,
    });
    const over = await post("/v1/refunds/prepare", { ...p, amount: "10000001" });
    assert.deepEqual(over.body, { error: "REFUND_AMOUNT_INVALID", action: "FIX_REQUEST" });

    const resolved = await post("/v1/refunds/resolve", { refund_token });
    assert.deepEqual(resolved.body, {
      chain_id: 84532,
      token: usdc(),
      merchant: merchant().address,
      payer: buyer().address,
      amount: "10.000000",
      amount_units: "10000000",
      expires_at: rest.expires_at,
    });

    const refundTx = await transfer();
    await h.chain.mine(2);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: refundTx });
    const verified = await post("/v1/refunds/verify", { ...p, refund_amount: "10000000", refund_tx_hash: refundTx });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.deepEqual(verified.body, {
      status: "REFUNDED",
      refund_tx_hash: refundTx,
      refund_amount: "10000000",
      original_amount: "10000000",
      payer: buyer().address,
      merchant: merchant().address,
      block_number: receipt.blockNumber.toString(),
    });
  });

  it("refunds part of a payment, and preparing twice gives two valid refunds (no history is kept)", async () => {
    const p = await paid("10");
    const a = await post("/v1/refunds/prepare", { ...p, amount: "2500000" });
    const b = await post("/v1/refunds/prepare", { ...p, amount: "2500000" });
    assert.equal(a.body.refund_amount, "2.500000");
    assert.equal((await post("/v1/refunds/resolve", { refund_token: a.body.refund_token })).status, 200);
    assert.equal((await post("/v1/refunds/resolve", { refund_token: b.body.refund_token })).status, 200);
    const refundTx = await transfer(merchant(), buyer().address, 2_500_000n);
    await h.chain.mine(2);
    assert.equal((await post("/v1/refunds/verify", { ...p, refund_amount: "2500000", refund_tx_hash: refundTx })).body.status, "REFUNDED");
  });

  it("refunds one recurring charge by period_index; the ceiling excludes the gas reimbursement", async () => {
    const reimbursing = await h.another(await reimbursingEnv(h));
    const api = supertest(reimbursing.app);
    const created = await api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
    const resolved = await api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
    const signature = await buyer().signTypedData(walletTypedData(resolved.body, buyer().address) as never);
    const subscription = (await api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer: buyer().address, signature })).body
      .subscription;
    await approve(h.chain, buyer(), usdc(), h.service.deployment.contracts.RecurringCharges.address, 10n ** 12n);
    const payoutBefore = await transfer(merchant(), buyer().address, 10_000_000n);
    const charged = await api.post("/v1/charges").send({ subscription });
    await h.chain.mine(2);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: charged.body.tx_hash });
    const [event] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
    assert.ok(event!.args.gasReimbursement > 0n, "the charge carried a reimbursement");

    const id = { tx_hash: charged.body.tx_hash, subscription, period_index: 0 };
    const prepared = await post("/v1/refunds/prepare", { ...id, amount: "10000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.include(prepared.body, { payer: buyer().address, merchant: merchant().address, original_amount_units: "10000000", original_amount: "10.000000" });
    const withReimbursement = (10_000_000n + event!.args.gasReimbursement).toString();
    assert.equal((await post("/v1/refunds/prepare", { ...id, amount: withReimbursement })).body.error, "REFUND_AMOUNT_INVALID");
    assert.equal((await post("/v1/refunds/prepare", { ...id, period_index: 1, amount: "1" })).body.error, "PAYMENT_MISMATCH");
    assert.equal(
      (await post("/v1/refunds/prepare", { tx_hash: id.tx_hash, subscription, amount: "1" })).body.error,
      "INVALID_REQUEST",
      "period_index required",
    );

    const refundTx = await transfer(merchant(), buyer().address, 10_000_000n);
    await h.chain.mine(2);
    assert.equal((await post("/v1/refunds/verify", { ...id, refund_amount: "10000000", refund_tx_hash: refundTx })).body.status, "REFUNDED");
    assert.equal(
      (await post("/v1/refunds/verify", { ...id, refund_amount: "10000000", refund_tx_hash: payoutBefore })).body.error,
      "REFUND_TRANSACTION_MISMATCH",
      "a transfer before the Charged event",
    );
  });

  it("verifies a refund sent by a contract account executing for the merchant (by event, not sender)", async () => {
    const account = await deployTestContract(h.chain, merchant(), testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [merchant().address]);
    const p = await paid("4", account);
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [buyer().address, 3_000_000n] });
    const refund = await send(h.chain, merchant(), { address: account, abi: testSmartAccountAbi, functionName: "execute", args: [usdc(), 0n, data] });
    await h.chain.mine(2);
    const prepared = await post("/v1/refunds/prepare", { ...p, amount: "3000000" });
    assert.equal(prepared.body.merchant, account);
    const verified = await post("/v1/refunds/verify", { ...p, refund_amount: "3000000", refund_tx_hash: refund.transactionHash });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.equal(verified.body.merchant, account);
  });

  it("says REFUND_TRANSACTION_MISMATCH for a wrong amount, token, direction, recipient, a Splitter payment, a revert", async () => {
    const p = await paid("10");
    const other = await deployTestContract(h.chain, merchant(), falseReturningTokenAbi, "FalseReturningToken", "HostileTokens.sol");
    await send(h.chain, merchant(), { address: other, abi: falseReturningTokenAbi, functionName: "mint", args: [merchant().address, 10n ** 12n] });
    const wrongAmount = await transfer(merchant(), buyer().address, 9_999_999n);
    const wrongToken = await transfer(merchant(), buyer().address, 10_000_000n, other);
    const wrongDirection = await transfer(buyer(), merchant().address, 10_000_000n);
    const toSomeoneElse = await transfer(merchant(), stranger().address, 10_000_000n);
    // A "refund" paid through the Splitter: the buyer gets the net, the fee goes to the collector.
    await approve(h.chain, merchant(), usdc(), h.service.deployment.contracts.Splitter.address, 10_000_000n);
    const throughSplitter = (
      await send(h.chain, merchant(), {
        address: h.service.deployment.contracts.Splitter.address,
        abi: splitterAbi,
        functionName: "pay",
        args: [usdc(), buyer().address, 10_000_000n, `0x${"77".repeat(32)}`],
      })
    ).transactionHash;
    const reverted = await h.chain.wallet(merchant()).sendTransaction({
      account: merchant(),
      chain: h.chain.chain,
      to: usdc(),
      gas: 100_000n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [buyer().address, 10n ** 18n] }),
    });
    await h.chain.mine(2);
    for (const hash of [wrongAmount, wrongToken, wrongDirection, toSomeoneElse, throughSplitter, reverted]) {
      const res = await post("/v1/refunds/verify", { ...p, refund_amount: "10000000", refund_tx_hash: hash });
      assert.equal(res.status, 400, hash);
      assert.deepEqual(res.body, { error: "REFUND_TRANSACTION_MISMATCH", action: "FIX_REQUEST" }, hash);
    }
  });

  it("refuses a matching transfer made before the original settlement (an earlier payout is not its refund), by block and log index", async () => {
    const earlierBlock = await transfer(merchant(), buyer().address, 10_000_000n);
    const p = await paid("10");
    const refuse = async (hash: Hex, label: string) => {
      const res = await post("/v1/refunds/verify", { ...p, refund_amount: "10000000", refund_tx_hash: hash });
      assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, { error: "REFUND_TRANSACTION_MISMATCH", action: "FIX_REQUEST" }, label);
    };
    await refuse(earlierBlock, "a payout in an earlier block");

    // One block: a payout, then the payment, then the refund. Only the transfer after the `Paid` log verifies.
    const created = (await post("/v1/payments", { recipient: merchant().address, amount: "10" })).body;
    await approve(h.chain, buyer(), usdc(), created.pay.splitter, 10_000_000n);
    const write = (from: ReturnType<typeof buyer>, call: object) =>
      h.chain.wallet(from).writeContract({ ...call, account: from, chain: h.chain.chain } as never);
    const transferCall = { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [buyer().address, 10_000_000n] } as const;
    await h.chain.testClient.setAutomine(false);
    let hashes: Hex[];
    try {
      hashes = [
        await write(merchant(), transferCall),
        await write(buyer(), {
          address: created.pay.splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [usdc(), merchant().address, 10_000_000n, created.pay.reference],
        }),
        await write(merchant(), transferCall),
      ];
      await h.chain.mine(3);
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    const [before, payment, after] = await Promise.all(hashes.map((hash) => h.chain.publicClient.getTransactionReceipt({ hash })));
    assert.equal(new Set([before!.blockNumber, payment!.blockNumber, after!.blockNumber]).size, 1, "one block");
    assert.deepEqual([before!.transactionIndex, payment!.transactionIndex, after!.transactionIndex], [0, 1, 2], "payout, payment, refund in that order");
    const sameBlock = { intent: created.intent, tx_hash: payment!.transactionHash };
    const verify = (hash: Hex) => post("/v1/refunds/verify", { ...sameBlock, refund_amount: "10000000", refund_tx_hash: hash });
    assert.deepEqual((await verify(before!.transactionHash)).body, { error: "REFUND_TRANSACTION_MISMATCH", action: "FIX_REQUEST" });
    assert.equal((await verify(after!.transactionHash)).body.status, "REFUNDED");
    // No refund history: one later transfer verifies as the refund of either earlier payment.
    assert.equal((await post("/v1/refunds/verify", { ...p, refund_amount: "10000000", refund_tx_hash: after!.transactionHash })).body.status, "REFUNDED");
  });

  it("says 409 REFUND_CONFIRMING (WAIT) for a refund hash the node has not mined or does not know: the money may have moved", async () => {
    const p = await paid("10");
    const body = (hash: Hex) => ({ ...p, refund_amount: "10000000", refund_tx_hash: hash });
    const unknown = await post("/v1/refunds/verify", body(`0x${"99".repeat(32)}`));
    assert.equal(unknown.status, 409, JSON.stringify(unknown.body));
    assert.deepEqual(unknown.body, { error: "REFUND_CONFIRMING", action: "WAIT", retry_after: 5 });
    assert.equal(unknown.headers["retry-after"], "5");
    await h.chain.testClient.setAutomine(false);
    try {
      const pending = await h.chain.wallet(merchant()).writeContract({
        address: usdc(),
        abi: erc20Abi,
        functionName: "transfer",
        args: [buyer().address, 10_000_000n],
        account: merchant(),
        chain: h.chain.chain,
      });
      const waiting = await post("/v1/refunds/verify", body(pending));
      assert.equal(waiting.status, 409, JSON.stringify(waiting.body));
      assert.deepEqual(waiting.body, { error: "REFUND_CONFIRMING", action: "WAIT", retry_after: 5 });
      await h.chain.mine(3);
      assert.equal((await post("/v1/refunds/verify", body(pending))).body.status, "REFUNDED");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    // The original payment's own lookups are unchanged: an unknown original is PAYMENT_NOT_FOUND.
    const unknownOriginal = await post("/v1/refunds/verify", { ...body(`0x${"99".repeat(32)}`), tx_hash: `0x${"98".repeat(32)}` });
    assert.deepEqual(unknownOriginal.body, { error: "PAYMENT_NOT_FOUND", action: "FIX_REQUEST" });
  });

  it("says 409 REFUND_CONFIRMING (WAIT) below finality, REFUNDED after; prepare waits for a settled original", async () => {
    const created = (await post("/v1/payments", { recipient: merchant().address, amount: "5" })).body;
    const receipt = await payIntent(h.chain, buyer(), created.pay);
    const early = await post("/v1/refunds/prepare", { intent: created.intent, tx_hash: receipt.transactionHash, amount: "1" });
    assert.equal(early.status, 409);
    assert.deepEqual(early.body, { error: "PAYMENT_CONFIRMING", action: "WAIT", retry_after: 5 });
    await h.chain.mine(2);
    const refundTx = await transfer(merchant(), buyer().address, 5_000_000n);
    const body = { intent: created.intent, tx_hash: receipt.transactionHash, refund_amount: "5000000", refund_tx_hash: refundTx };
    const confirming = await post("/v1/refunds/verify", body);
    assert.equal(confirming.status, 409);
    assert.deepEqual(confirming.body, { error: "REFUND_CONFIRMING", action: "WAIT", retry_after: 5 });
    assert.equal(confirming.headers["retry-after"], "5");
    await h.chain.mine(2);
    assert.equal((await post("/v1/refunds/verify", body)).body.status, "REFUNDED");
  });

  it("takes exactly one identifier (intent wins), and no recipient, payer, merchant or maximum", async () => {
    const p = await paid("3");
    const neither = await post("/v1/refunds/prepare", { tx_hash: p.tx_hash, amount: "1" });
    assert.deepEqual(neither.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" });
    const both = await post("/v1/refunds/prepare", { ...p, subscription: "sc.k1.not.valid", period_index: 0, amount: "1" });
    assert.equal(both.status, 200, "intent wins");
    for (const field of ["recipient", "payer", "merchant", "maximum"]) {
      const res = await post("/v1/refunds/prepare", { ...p, amount: "1", [field]: stranger().address });
      assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" }, field);
    }
    for (const amount of ["0", "1.5", "-1", "", "3000001", "1e3"]) {
      assert.deepEqual((await post("/v1/refunds/prepare", { ...p, amount })).body, { error: "REFUND_AMOUNT_INVALID", action: "FIX_REQUEST" }, amount);
    }
    assert.equal((await post("/v1/refunds/prepare", { ...p, amount: 1 })).body.error, "INVALID_REQUEST");
    const other = await paid("3");
    assert.equal((await post("/v1/refunds/prepare", { intent: p.intent, tx_hash: other.tx_hash, amount: "1" })).body.error, "PAYMENT_MISMATCH");
    assert.equal((await post("/v1/refunds/prepare", { intent: p.intent, tx_hash: `0x${"98".repeat(32)}`, amount: "1" })).body.error, "PAYMENT_NOT_FOUND");
  });

  it("extension: with neither capability, reference names the payment by its Paid in tx_hash (the merchant page's refund), full or partial, and verifies", async () => {
    const p = await paid("6");
    const byReference = { tx_hash: p.tx_hash, reference: p.reference };
    const prepared = await post("/v1/refunds/prepare", { ...byReference, amount: "2500000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.include(prepared.body, { merchant: merchant().address, payer: buyer().address, original_amount_units: "6000000", refund_amount_units: "2500000" });
    assert.equal((await post("/v1/refunds/prepare", { ...byReference, amount: "6000001" })).body.error, "REFUND_AMOUNT_INVALID");
    // Another reference in that transaction, or another transaction: no payment of it there.
    assert.equal((await post("/v1/refunds/prepare", { tx_hash: p.tx_hash, reference: `0x${"12".repeat(32)}`, amount: "1" })).body.error, "PAYMENT_MISMATCH");
    const other = await paid("6");
    assert.equal((await post("/v1/refunds/prepare", { tx_hash: other.tx_hash, reference: p.reference, amount: "1" })).body.error, "PAYMENT_MISMATCH");
    const refund = await transfer(merchant(), buyer().address, 2_500_000n);
    await h.chain.mine(2);
    const verified = await post("/v1/refunds/verify", { ...byReference, refund_amount: "2500000", refund_tx_hash: refund });
    assert.deepEqual(verified.body.status, "REFUNDED", JSON.stringify(verified.body));
    // An intent still wins over a reference.
    assert.equal((await post("/v1/refunds/prepare", { ...byReference, intent: other.intent, amount: "1" })).body.error, "PAYMENT_MISMATCH");
  });

  it("resolve reads only the token: no chain call; malformed → INVALID_REFUND_TOKEN, aged out → REFUND_TOKEN_EXPIRED", async () => {
    const p = await paid("3");
    const token = (await post("/v1/refunds/prepare", { ...p, amount: "1000000" })).body.refund_token as string;
    h.proxy.reset();
    assert.equal((await post("/v1/refunds/resolve", { refund_token: token })).status, 200);
    assert.equal(h.proxy.count(), 0, "no JSON-RPC call");
    // The token holds only what the chain said, plus the amount: nothing a merchant page could set.
    const payload = JSON.parse(Buffer.from(token.split(".")[2]!, "base64url").toString());
    assert.deepEqual(Object.keys(payload).sort(), ["amount_units", "chain_id", "env", "expires_at", "merchant", "payer", "token"]);
    assert.equal(payload.payer, buyer().address);
    for (const bad of [p.intent, `${token.slice(0, -20)}${token.at(-20) === "A" ? "B" : "A"}${token.slice(-19)}`, "rt.k1.e30.e30", "junk"]) {
      assert.deepEqual((await post("/v1/refunds/resolve", { refund_token: bad })).body, { error: "INVALID_REFUND_TOKEN", action: "FIX_REQUEST" });
    }
    h.clock.advance(900);
    assert.deepEqual((await post("/v1/refunds/resolve", { refund_token: token })).body, { error: "REFUND_TOKEN_EXPIRED", action: "FIX_REQUEST" });
  });
  it("refund prepare and verify by reference wait in each caller's own queue: a caller past its queue is RPC_BUSY, another caller is served", async () => {
    const gated = await h.another({ RECOVER_CONCURRENCY: "1", TRUST_PROXY: "1" });
    const api = supertest(gated.app);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    h.proxy.gate = async (methods) => {
      if (methods.includes("eth_getTransactionReceipt")) await released;
    };
    const unknown = { tx_hash: `0x${"ab".repeat(32)}`, reference: `0x${"cd".repeat(32)}` };
    const prepare = (ip: string) =>
      api
        .post("/v1/refunds/prepare")
        .set("X-Forwarded-For", ip)
        .send({ ...unknown, amount: "1" })
        .then((r) => r);
    const verify = (ip: string) =>
      api
        .post("/v1/refunds/verify")
        .set("X-Forwarded-For", ip)
        .send({ ...unknown, refund_amount: "1", refund_tx_hash: `0x${"ef".repeat(32)}` })
        .then((r) => r);
    try {
      // One running and four waiting for the stranger (from one IPv6 /64), then its sixth is refused at once.
      const crowd = [prepare("2001:db8::1"), verify("2001:db8::2"), prepare("2001:db8::3"), verify("2001:db8::4"), prepare("2001:db8::5")];
      await until(() => gated.refunds.held.running === 1 && gated.refunds.held.waiting === 4, "one prepare running and four waiting in the gate");
      assert.deepEqual(gated.refunds.held, { running: 1, waiting: 4 }, "the stranger's five in the gate before its sixth");
      const refused = await verify("2001:db8::6");
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(refused.body.error, "RPC_BUSY");
      const merchant = prepare("198.51.100.9");
      release();
      assert.equal((await merchant).body.error, "PAYMENT_NOT_FOUND", "another caller waits its turn and is answered");
      for (const answer of await Promise.all(crowd)) assert.equal(answer.body.error, "PAYMENT_NOT_FOUND");
    } finally {
      h.proxy.gate = null;
      release();
    }
  });
});
