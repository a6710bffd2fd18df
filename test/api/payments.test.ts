import { assert } from "chai";
import { encodeAbiParameters, encodeFunctionData, erc20Abi, keccak256, numberToHex, pad, type Hex } from "viem";
import { splitterAbi, noReturnTokenAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { CapabilityTokens, TOKEN_KINDS } from "../../src/tokens/capability.js";
import { useService } from "../helpers/service.js";
import { payIntent } from "../helpers/payments.js";
import { approve, send } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";

const SECRET = "a".repeat(40);

describe("one-time payments API", () => {
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;

  async function create(amount = "12.5", extra: Record<string, unknown> = {}) {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as {
      intent: string;
      reference: Hex;
      amount: string;
      expires_at: number;
      pay: import("../helpers/payments.js").PayBlock;
      notify_url?: string;
    };
  }
  const depositAddress = (pay: import("../helpers/payments.js").PayBlock) =>
    h.chain.publicClient.readContract({
      address: pay.splitter,
      abi: splitterAbi,
      functionName: "depositAddress",
      args: [pay.token, pay.recipient, BigInt(pay.amount_units), pay.reference],
    });
  const verify = (intent: string, tx_hash: Hex) => h.api.post("/v1/payments/verify").send({ intent, tx_hash });
  const recover = (intent: string) => h.api.post("/v1/payments/recover").send({ intent });
  const resolve = (intent: string) => h.api.post("/v1/payments/resolve").send({ intent });

  describe("POST /v1/payments", () => {
    it("mints an intent with a fresh service-made reference and the pay block", async () => {
      const a = await create("12.5");
      const b = await create("12.5");
      const { deployment } = h.service;
      assert.match(a.intent, /^pi\.k1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      assert.match(a.reference, /^0x[0-9a-f]{64}$/);
      assert.notEqual(a.reference, b.reference);
      assert.equal(a.amount, "12.500000");
      assert.equal(a.expires_at, Math.floor(h.clock.ms / 1000) + 3600);
      assert.deepEqual(a.pay, {
        chain_id: 84532,
        splitter: deployment.contracts.Splitter.address,
        token: deployment.token.address,
        recipient: merchant().address,
        amount_units: "12500000",
        reference: a.reference,
        // The contract's own answer for this payment: CREATE2 derived off chain agrees with it.
        deposit_address: await depositAddress(a.pay),
      });
      assert.notEqual(a.pay.deposit_address, b.pay.deposit_address, "one address per payment");
      assert.notProperty(a, "notify_url");
    });

    it("enforces the amount bounds (0.01 to 1,000,000.00 by default)", async () => {
      for (const amount of ["0.009999", "0", "1000000.000001", "5000000"]) {
        const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount });
        assert.equal(res.status, 400, amount);
        assert.deepEqual(res.body, { error: "AMOUNT_OUT_OF_BOUNDS", action: "FIX_REQUEST" });
      }
      assert.equal((await create("0.01")).amount, "0.010000");
      assert.equal((await create("1000000")).amount, "1000000.000000");
    });

    it("refuses malformed amounts, addresses, JSON numbers and any caller-chosen reference", async () => {
      const bad: Record<string, unknown>[] = [
        { recipient: merchant().address, amount: 12.5 },
        { recipient: merchant().address, amount: "1.1234567" },
        { recipient: merchant().address, amount: "-1" },
        { recipient: merchant().address, amount: "1e3" },
        { recipient: merchant().address, amount: " 1" },
        { recipient: "0x1234", amount: "1" },
        { recipient: "0x0000000000000000000000000000000000000000", amount: "1" },
        { recipient: merchant().address },
        { amount: "1" },
        { recipient: merchant().address, amount: "1", reference: "0x" + "11".repeat(32) },
      ];
      for (const body of bad) {
        const res = await h.api.post("/v1/payments").send(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" }, JSON.stringify(body));
      }
    });

    it("refuses the token, the Splitter and RecurringCharges as recipient (the net amount would be locked), at /v1/payments, /v1/links and /v1/subscriptions", async () => {
      const { deployment } = h.service;
      const ours = [deployment.token.address, deployment.contracts.Splitter.address, deployment.contracts.RecurringCharges.address];
      const creations = [
        ["/v1/payments", { amount: "1" }],
        ["/v1/links", { amount: "1" }],
        ["/v1/subscriptions", { amount: "1", period: 3600 }],
      ] as const;
      for (const [path, body] of creations) {
        for (const recipient of [...ours, ...ours.map((a) => a.toLowerCase())]) {
          const res = await h.api.post(path).send({ recipient, ...body });
          assert.equal(res.status, 400, `${path} ${recipient}`);
          assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" }, `${path} ${recipient}`);
        }
        const fine = await h.api.post(path).send({ recipient: merchant().address, ...body });
        assert.equal(fine.status, 200, `${path}: ${JSON.stringify(fine.body)}`);
      }
    });

    it("validates notify_url, and refuses it when the deployment has webhooks disabled", async () => {
      for (const notify_url of [
        "http://merchant.example.com/hook",
        "https://merchant.com:8443/hook",
        "https://10.0.0.1/hook",
        "https://user:pw@merchant.com/",
        `https://merchant.com/${"a".repeat(513 - 21)}`,
      ]) {
        const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1", notify_url });
        assert.equal(res.status, 400, notify_url);
        assert.equal(res.body.error, "INVALID_REQUEST");
      }
      const longest = `https://merchant.com/${"a".repeat(512 - 21)}`;
      assert.equal((await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1", notify_url: longest })).status, 200);
      const disabled = await h.another({ WEBHOOKS_ENABLED: "false" });
      const res = await (await import("supertest"))
        .default(disabled.app)
        .post("/v1/payments")
        .send({ recipient: merchant().address, amount: "1", notify_url: "https://merchant.com/hook" });
      assert.equal(res.status, 400);
      assert.equal(res.body.error, "INVALID_REQUEST");
    });
  });

  describe("POST /v1/payments/resolve", () => {
    it("returns what the checkout needs", async () => {
      const a = await create("3");
      const res = await resolve(a.intent);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        recipient: merchant().address,
        amount: "3.000000",
        amount_units: "3000000",
        token: h.service.deployment.token.address,
        splitter: h.service.deployment.contracts.Splitter.address,
        chain_id: 84532,
        reference: a.reference,
        expires_at: a.expires_at,
        // The token's EIP-712 domain from deployments/84532.json, for the checkout's EIP-3009 signature.
        token_domain: { name: "USDC", version: "2", chainId: 84532, verifyingContract: h.service.deployment.token.address },
        deposit_address: a.pay.deposit_address,
      });
    });

    it("refuses an expired intent with INTENT_EXPIRED, while verify and recover still work", async () => {
      const a = await create("2");
      const receipt = await payIntent(h.chain, buyer(), a.pay);
      await h.chain.mine(2);
      const fresh = await create("2");
      h.clock.advance(3600);
      const expired = await resolve(fresh.intent);
      assert.equal(expired.status, 400);
      assert.deepEqual(expired.body, { error: "INTENT_EXPIRED", action: "FIX_REQUEST" });
      assert.equal((await verify(a.intent, receipt.transactionHash)).body.valid, true);
      const recovered = await recover(a.intent);
      assert.equal(recovered.body.found, true);
      assert.equal(recovered.body.valid, true);
    });

    it("answers 409 PAYMENT_CONFIRMING (WAIT) while the payment is above the finality head, then PAYMENT_ALREADY_PROCESSED, even after expiry", async () => {
      const a = await create("2");
      await payIntent(h.chain, buyer(), a.pay);
      for (const confirmations of [0, 1]) {
        if (confirmations) await h.chain.mine(1);
        const confirming = await resolve(a.intent);
        assert.equal(confirming.status, 409, `mined, ${confirmations} confirmation(s) of 2`);
        assert.deepEqual(confirming.body, { error: "PAYMENT_CONFIRMING", action: "WAIT", retry_after: 5 });
        assert.equal(confirming.headers["retry-after"], "5");
      }
      await h.chain.mine(1);
      const res = await resolve(a.intent);
      assert.equal(res.status, 409);
      assert.deepEqual(res.body, { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" });
      h.clock.advance(7200);
      assert.deepEqual((await resolve(a.intent)).body, { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" });
    });

    it("cannot be griefed: look-alikes under the intent's reference settle nothing the buyer needs; resolve stays 200; the buyer pays; verify and recover are valid; then 409", async () => {
      const a = await create("5");
      const griefer = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
      // The reference is readable in the intent, the checkout and links: pay it first, cheaply.
      const toSelf = await payIntent(h.chain, griefer, a.pay, { recipient: griefer.address, amount: 1n });
      const oneUnit = await payIntent(h.chain, griefer, a.pay, { amount: 1n });
      const junk = await deployTestContract(h.chain, griefer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
      await send(h.chain, griefer, { address: junk, abi: noReturnTokenAbi, functionName: "mint", args: [griefer.address, 10n ** 9n] });
      await send(h.chain, griefer, { address: junk, abi: noReturnTokenAbi, functionName: "approve", args: [a.pay.splitter, 10n ** 9n] });
      const worthless = await send(h.chain, griefer, {
        address: a.pay.splitter,
        abi: splitterAbi,
        functionName: "pay",
        args: [junk, a.pay.recipient, 5_000_000n, a.reference],
      });
      await h.chain.mine(2);
      const resolved = await resolve(a.intent);
      assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
      assert.equal(resolved.body.reference, a.reference);
      for (const lookAlike of [toSelf, oneUnit, worthless])
        assert.deepEqual((await verify(a.intent, lookAlike.transactionHash)).body, { valid: false, code: "PAYMENT_MISMATCH" });
      const before = await recover(a.intent);
      assert.deepEqual(
        before.body,
        { found: false, code: "PAYMENT_NOT_FOUND", as_of_block: before.body.as_of_block },
        "a look-alike is not the intent's payment",
      );

      const paid = await payIntent(h.chain, buyer(), a.pay);
      assert.equal(paid.status, "success");
      await h.chain.mine(2);
      const verdict = await verify(a.intent, paid.transactionHash);
      assert.include(verdict.body, { valid: true, tx_hash: paid.transactionHash, reference: a.reference, amount: "5.000000" });
      const recovered = await recover(a.intent);
      assert.deepEqual(recovered.body, { found: true, ...verdict.body, as_of_block: recovered.body.as_of_block });
      const after = await resolve(a.intent);
      assert.equal(after.status, 409);
      assert.deepEqual(after.body, { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" });
    });

    it("refuses an intent minted through a link once the link is closed or expired (LINK_CLOSED); the link's payment made before still verifies, recovers and refunds", async () => {
      const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "4" })).body;
      const mintThrough = async () => {
        const res = await resolve(link.link);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body as { intent: string; reference: Hex; splitter: Hex; token: Hex; recipient: Hex; amount_units: string };
      };
      const paid = await mintThrough();
      const unpaid = await mintThrough();
      assert.equal((await resolve(unpaid.intent)).status, 200, "payable while the link is open");
      const pay = {
        chain_id: 84532,
        splitter: paid.splitter,
        token: paid.token,
        recipient: paid.recipient,
        amount_units: paid.amount_units,
        reference: paid.reference,
      };
      const receipt = await payIntent(h.chain, buyer(), pay);
      await h.chain.mine(2);

      const closed = await h.api.post("/v1/links/close").send({ manage_token: link.manage_token });
      assert.deepEqual(closed.body, { link_id: link.link_id, closed: true });
      const refused = await resolve(unpaid.intent);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: "LINK_CLOSED", action: "STOP" });
      // The payment made through the link before it closed: nothing is owed, and it stays verifiable and refundable.
      assert.deepEqual((await resolve(paid.intent)).body, { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" });
      assert.equal((await verify(paid.intent, receipt.transactionHash)).body.valid, true);
      assert.include((await recover(paid.intent)).body, { found: true, valid: true, tx_hash: receipt.transactionHash });
      const refund = await h.api.post("/v1/refunds/prepare").send({ intent: paid.intent, tx_hash: receipt.transactionHash, amount: "4000000" });
      assert.equal(refund.status, 200, JSON.stringify(refund.body));

      const expiring = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "4", expires_at: Math.floor(h.clock.ms / 1000) + 60 }))
        .body;
      const early = await resolve(expiring.link);
      assert.equal(early.status, 200);
      h.clock.advance(60);
      assert.isAbove(early.body.expires_at, Math.floor(h.clock.ms / 1000), "the intent itself has not expired");
      assert.deepEqual((await resolve(early.body.intent)).body, { error: "LINK_CLOSED", action: "STOP" });
    });

    it("refuses tampered tokens, tokens of another kind, secret, environment or deployment", async () => {
      const a = await create("2");
      const [kind, key, payload, sig] = a.intent.split(".") as [string, string, string, string];
      const data = JSON.parse(Buffer.from(payload, "base64url").toString());
      const tamperedPayload = Buffer.from(JSON.stringify({ ...data, amount_units: "1" })).toString("base64url");
      const scope = {
        environment: "test" as const,
        chainId: 84532,
        deployment: `${h.service.deployment.contracts.Splitter.address}:${h.service.deployment.contracts.RecurringCharges.address}`,
      };
      const same = new CapabilityTokens(scope, [{ id: "k1", secret: SECRET }]);
      const forged = [
        `${kind}.${key}.${tamperedPayload}.${sig}`,
        `${kind}.${key}.${payload}.${sig.slice(0, 10)}${sig[10] === "A" ? "B" : "A"}${sig.slice(11)}`,
        `st.${key}.${payload}.${sig}`,
        same.mint(TOKEN_KINDS.setup, data),
        same.mint(TOKEN_KINDS.subscription, data),
        new CapabilityTokens(scope, [{ id: "k1", secret: "b".repeat(40) }]).mint(TOKEN_KINDS.intent, data),
        new CapabilityTokens({ ...scope, environment: "production", chainId: 8453 }, [{ id: "k1", secret: SECRET }]).mint(TOKEN_KINDS.intent, data),
        new CapabilityTokens({ ...scope, deployment: "0xother" }, [{ id: "k1", secret: SECRET }]).mint(TOKEN_KINDS.intent, data),
        a.intent + ".x",
        "not-a-token",
      ];
      assert.equal((await resolve(same.mint(TOKEN_KINDS.intent, data))).status, 200, "control: same scope and secret verifies");
      for (const intent of forged) {
        for (const call of [resolve(intent), verify(intent, `0x${"ab".repeat(32)}`), recover(intent)]) {
          const res = await call;
          assert.equal(res.status, 400, intent);
          assert.deepEqual(res.body, { error: "INVALID_INTENT", action: "FIX_REQUEST" });
        }
      }
    });

    it("rotates keys: a new signing key signs, the old one still verifies until removed", async () => {
      const old = await create("2");
      const rotated = await h.another({ TOKEN_KEYS: `k2:${"c".repeat(40)},k1:${SECRET}` });
      const st = (await import("supertest")).default;
      const fresh = await st(rotated.app).post("/v1/payments").send({ recipient: merchant().address, amount: "2" });
      assert.match(fresh.body.intent, /^pi\.k2\./);
      assert.equal((await st(rotated.app).post("/v1/payments/resolve").send({ intent: old.intent })).status, 200);
      const retired = await h.another({ TOKEN_KEYS: `k2:${"c".repeat(40)}` });
      assert.equal((await st(retired.app).post("/v1/payments/resolve").send({ intent: old.intent })).body.error, "INVALID_INTENT");
      assert.equal((await st(retired.app).post("/v1/payments/resolve").send({ intent: fresh.body.intent })).status, 200);
    });
  });

  describe("POST /v1/payments/verify", () => {
    it("says valid once settled, with reference, amount, block number and block hash", async () => {
      const a = await create("12.5");
      const receipt = await payIntent(h.chain, buyer(), a.pay);
      await h.chain.mine(2);
      const res = await verify(a.intent, receipt.transactionHash);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        valid: true,
        tx_hash: receipt.transactionHash,
        reference: a.reference,
        amount: "12.500000",
        block_number: receipt.blockNumber.toString(),
        block_hash: receipt.blockHash,
      });
    });

    it("says PAYMENT_CONFIRMING above the finality head (2 confirmations), valid after mining", async () => {
      const a = await create("1");
      const receipt = await payIntent(h.chain, buyer(), a.pay);
      assert.deepEqual((await verify(a.intent, receipt.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" });
      await h.chain.mine(1);
      assert.deepEqual((await verify(a.intent, receipt.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" });
      await h.chain.mine(1);
      assert.equal((await verify(a.intent, receipt.transactionHash)).body.valid, true);
    });

    it("says PAYMENT_MISMATCH for a wrong amount, recipient, token, reference, or a transaction that is no payment", async () => {
      const a = await create("5");
      const other = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
      const wrongAmount = await payIntent(h.chain, buyer(), a.pay, { amount: 4_999_999n });
      const b = await create("5");
      const wrongRecipient = await payIntent(h.chain, buyer(), b.pay, { recipient: other.address });
      const c = await create("5");
      const token = await deployTestContract(h.chain, buyer(), noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
      await send(h.chain, buyer(), { address: token, abi: noReturnTokenAbi, functionName: "mint", args: [buyer().address, 10n ** 9n] });
      await send(h.chain, buyer(), { address: token, abi: noReturnTokenAbi, functionName: "approve", args: [c.pay.splitter, 10n ** 9n] });
      const wrongToken = await send(h.chain, buyer(), {
        address: c.pay.splitter,
        abi: splitterAbi,
        functionName: "pay",
        args: [token, c.pay.recipient, 5_000_000n, c.reference],
      });
      const d = await create("5");
      const otherIntentPaid = await payIntent(h.chain, buyer(), d.pay);
      const plainTransfer = await send(h.chain, buyer(), {
        address: a.pay.token,
        abi: erc20Abi,
        functionName: "transfer",
        args: [merchant().address, 5_000_000n],
      });
      await h.chain.mine(2);
      const cases: Array<[string, Hex]> = [
        [a.intent, wrongAmount.transactionHash],
        [b.intent, wrongRecipient.transactionHash],
        [c.intent, wrongToken.transactionHash],
        [a.intent, otherIntentPaid.transactionHash],
        [a.intent, plainTransfer.transactionHash],
      ];
      for (const [intent, hash] of cases) assert.deepEqual((await verify(intent, hash)).body, { valid: false, code: "PAYMENT_MISMATCH" }, hash);
      assert.equal((await verify(d.intent, otherIntentPaid.transactionHash)).body.valid, true, "control");
    });

    it("says TRANSACTION_REVERTED for a reverted transaction and PAYMENT_NOT_FOUND for an unknown hash", async () => {
      const a = await create("1");
      await payIntent(h.chain, buyer(), a.pay);
      await approve(h.chain, buyer(), a.pay.token, a.pay.splitter, 1_000_000n);
      const hash = await h.chain.wallet(buyer()).sendTransaction({
        account: buyer(),
        chain: h.chain.chain,
        to: a.pay.splitter,
        gas: 200_000n,
        data: encodeFunctionData({ abi: splitterAbi, functionName: "pay", args: [a.pay.token, a.pay.recipient, 1_000_000n, a.reference] }),
      });
      const receipt = await h.chain.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, "reverted");
      await h.chain.mine(2);
      assert.deepEqual((await verify(a.intent, hash)).body, { valid: false, code: "TRANSACTION_REVERTED" });
      assert.deepEqual((await verify(a.intent, `0x${"12".repeat(32)}`)).body, { valid: false, code: "PAYMENT_NOT_FOUND" });
    });

    it("follows a reorg: a payment reorged out is not found; re-mined elsewhere it verifies with the new block hash", async () => {
      const a = await create("7");
      await approve(h.chain, buyer(), a.pay.token, a.pay.splitter, 7_000_000n);
      const before = await h.chain.snapshot();
      const raw = await h.chain.wallet(buyer()).signTransaction(
        await h.chain.wallet(buyer()).prepareTransactionRequest({
          account: buyer(),
          chain: h.chain.chain,
          to: a.pay.splitter,
          data: encodeFunctionData({ abi: splitterAbi, functionName: "pay", args: [a.pay.token, a.pay.recipient, 7_000_000n, a.reference] }),
        }),
      );
      const hash = await h.chain.publicClient.sendRawTransaction({ serializedTransaction: raw });
      const first = await h.chain.publicClient.waitForTransactionReceipt({ hash });
      await h.chain.mine(2);
      const settled = await verify(a.intent, hash);
      assert.equal(settled.body.block_hash, first.blockHash);

      await h.chain.revert(before); // the blocks with the payment are gone
      assert.deepEqual((await verify(a.intent, hash)).body, { valid: false, code: "PAYMENT_NOT_FOUND" });
      const lost = await recover(a.intent);
      assert.equal(lost.body.found, false);
      assert.equal(lost.body.code, "PAYMENT_NOT_FOUND");

      await h.chain.mine(3); // the same transaction lands in another block
      await h.chain.publicClient.sendRawTransaction({ serializedTransaction: raw });
      const second = await h.chain.publicClient.waitForTransactionReceipt({ hash });
      await h.chain.mine(2);
      const again = await verify(a.intent, hash);
      assert.equal(again.body.valid, true);
      assert.notEqual(second.blockHash, first.blockHash);
      assert.equal(again.body.block_hash, second.blockHash);
      assert.equal(again.body.block_number, second.blockNumber.toString());
      assert.equal((await recover(a.intent)).body.block_hash, second.blockHash);
    });
  });

  describe("POST /v1/payments/recover", () => {
    it("answers the three shapes: not found (as of a block), found but not valid yet, found and valid", async () => {
      const a = await create("9");
      const none = await recover(a.intent);
      const latest = await h.chain.publicClient.getBlockNumber();
      assert.deepEqual(none.body, { found: false, code: "PAYMENT_NOT_FOUND", as_of_block: latest.toString() });

      const receipt = await payIntent(h.chain, buyer(), a.pay);
      const confirming = await recover(a.intent);
      assert.deepEqual(confirming.body, {
        found: true,
        tx_hash: receipt.transactionHash,
        valid: false,
        code: "PAYMENT_CONFIRMING",
        as_of_block: receipt.blockNumber.toString(),
      });

      await h.chain.mine(2);
      const found = await recover(a.intent);
      const verified = await verify(a.intent, receipt.transactionHash);
      assert.deepEqual(found.body, { found: true, ...verified.body, as_of_block: (receipt.blockNumber + 2n).toString() });
    });

    it("matches only the exact payment the intent describes: a payment of the reference with another amount is not found", async () => {
      const a = await create("9");
      const receipt = await payIntent(h.chain, buyer(), a.pay, { amount: 1_000_000n });
      await h.chain.mine(2);
      const res = await recover(a.intent);
      assert.deepEqual(res.body, { found: false, code: "PAYMENT_NOT_FOUND", as_of_block: (receipt.blockNumber + 2n).toString() });
    });

    it("finds the intent's payment when a look-alike of its reference settled in the same block", async () => {
      const a = await create("9");
      const griefer = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
      await approve(h.chain, griefer, a.pay.token, a.pay.splitter, 1n);
      await approve(h.chain, buyer(), a.pay.token, a.pay.splitter, 9_000_000n);
      await h.chain.testClient.setAutomine(false);
      try {
        await h.chain.wallet(griefer).writeContract({
          address: a.pay.splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [a.pay.token, a.pay.recipient, 1n, a.reference],
          account: griefer,
          chain: h.chain.chain,
        });
        await h.chain.wallet(buyer()).writeContract({
          address: a.pay.splitter,
          abi: splitterAbi,
          functionName: "pay",
          args: [a.pay.token, a.pay.recipient, 9_000_000n, a.reference],
          account: buyer(),
          chain: h.chain.chain,
        });
        await h.chain.mine(3);
      } finally {
        await h.chain.testClient.setAutomine(true);
      }
      const res = await recover(a.intent);
      assert.equal(res.body.valid, true, JSON.stringify(res.body));
      assert.equal((await verify(a.intent, res.body.tx_hash)).body.valid, true);
    });

    it("answers 502 PAYMENT_RECOVERY_INCONSISTENT when the contract says settled and the log is missing", async () => {
      const a = await create("9");
      // Write the replay-guard slot by hand: settledBlock[key] = 3, a block with no Paid log.
      const key = keccak256(
        encodeAbiParameters(
          [{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }],
          [a.pay.token, a.pay.recipient, BigInt(a.pay.amount_units), a.reference],
        ),
      );
      const slot = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [key, 0n]));
      await h.chain.testClient.setStorageAt({ address: a.pay.splitter, index: slot, value: pad(numberToHex(3)) });
      const res = await recover(a.intent);
      assert.equal(res.status, 502);
      assert.deepEqual(res.body, { error: "PAYMENT_RECOVERY_INCONSISTENT", action: "RETRY", retry_after: 30 });
      assert.equal(res.headers["retry-after"], "30");
    });

    it("makes the same number of RPC calls at 1,000 and at 20,000 blocks of history", async () => {
      const a = await create("1");
      const receipt = await payIntent(h.chain, buyer(), a.pay);
      await h.chain.mine(1_000);
      h.proxy.reset();
      assert.equal((await recover(a.intent)).body.valid, true);
      const atThousand = h.proxy.count();
      await h.chain.mine(20_000);
      h.proxy.reset();
      assert.equal((await recover(a.intent)).body.tx_hash, receipt.transactionHash);
      assert.equal(h.proxy.count(), atThousand);
      assert.isAtMost(atThousand, 4);
      // Paid by its key and the payment address's PaidInExcess, each in the one settled block.
      assert.equal(h.proxy.count("eth_getLogs"), 2);
    });

    it("is limited per intent (10 a minute by default) as well as per IP", async () => {
      const a = await create("1");
      const b = await create("1");
      for (let i = 0; i < 10; i++) assert.equal((await recover(a.intent)).status, 200);
      const limited = await recover(a.intent);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, "RATE_LIMITED");
      assert.equal(limited.body.action, "RETRY");
      assert.isAbove(limited.body.retry_after, 0);
      assert.equal(limited.headers["retry-after"], String(limited.body.retry_after));
      assert.equal((await recover(b.intent)).status, 200, "another intent is not limited");
      h.clock.advance(60);
      assert.equal((await recover(a.intent)).status, 200, "a minute later");
    });

    it("is limited per IP too, across intents", async () => {
      const strict = (await import("supertest")).default((await h.another({ RECOVER_LIMIT_PER_MINUTE: "3" })).app);
      const intents = await Promise.all([1, 2, 3, 4].map(() => create("1")));
      for (const i of intents.slice(0, 3)) assert.equal((await strict.post("/v1/payments/recover").send({ intent: i.intent })).status, 200);
      const limited = await strict.post("/v1/payments/recover").send({ intent: intents[3]!.intent });
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error, "RATE_LIMITED");
    });
  });
});
