import { assert } from "chai";
import {
  concat,
  decodeFunctionData,
  encodeAbiParameters,
  encodeFunctionData,
  erc20Abi,
  getAbiItem,
  hexToBigInt,
  keccak256,
  maxUint256,
  numberToHex,
  pad,
  parseEventLogs,
  parseSignature,
  recoverTypedDataAddress,
  toFunctionSelector,
} from "viem";
import { multicall3Abi } from "viem";
import { recurringChargesAbi, safeAbi, testSmartAccountAbi, fiatTokenAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { createService } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { configFor, useService } from "../helpers/service.js";
import { deployTestContract } from "../helpers/deploy.js";
import { wrap6492 } from "../helpers/subscriptions.js";
import { createSafe, deploySafeInfrastructure, execTransaction, safeMessageSignature, signOnChain } from "../helpers/safe.js";
import { balanceOf, send } from "../helpers/tx.js";
import { approveThroughSession, reimbursingEnv, sendPrepared, subscribe, typedDataDigest, walletTypedData } from "../helpers/recurring.js";
import supertest from "supertest";
import { readFileSync } from "node:fs";
import { gasQuoteUnits } from "../../src/recurring/gas-quote.js";
import { parseAmount } from "../../src/money.js";

/** The token reads every charge shares through the chain view (paused, blacklisted), not a charge's own. */
const SHARED_TOKEN_READS = new Set((["paused", "isBlacklisted"] as const).map((name) => toFunctionSelector(getAbiItem({ abi: fiatTokenAbi, name }) as never)));
const isSharedTokenRead = (selector: string) => SHARED_TOKEN_READS.has(selector as `0x${string}`);

describe("recurring charges API", function () {
  this.timeout(60_000);
  const h = useService();
  const payer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const other = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const usdc = () => h.service.deployment.token.address;
  const recurring = () => h.service.deployment.contracts.RecurringCharges.address;
  const charge = (subscription: string) => h.api.post("/v1/charges").send({ subscription });
  const state = (subscription: string) => h.api.post("/v1/subscriptions/state").send({ subscription });
  const relayerNonce = () => h.chain.publicClient.getTransactionCount({ address: h.chain.accounts[LOCAL_ROLES.relayer]!.address });

  describe("POST /v1/subscriptions", () => {
    it("starts the terms at the chain's time when the chain runs ahead of the service's clock", async () => {
      await h.chain.advanceTime(10_000);
      const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "1", period: 3600 });
      const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      const chainNow = Number((await h.chain.publicClient.getBlock()).timestamp);
      assert.isAtLeast(resolved.body.start, chainNow - 1);
      assert.isAbove(resolved.body.start, Math.floor(h.clock.ms / 1000) + 9_000);
    });

    it("mints a setup token with a service-made salt", async () => {
      const res = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "9.99", period: 3600 });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ["amount", "chain_id", "contract", "expires_at", "salt", "setup_token"]);
      assert.match(res.body.setup_token, /^st\.k1\./);
      assert.match(res.body.salt, /^0x[0-9a-f]{64}$/);
      assert.equal(res.body.amount, "9.990000");
      assert.equal(res.body.chain_id, 84532);
      assert.equal(res.body.contract, recurring());
      assert.equal(res.body.expires_at, Math.floor(h.clock.ms / 1000) + 3600);
    });

    it("refuses amounts below the network-fee floor (0.102041) with AMOUNT_OUT_OF_BOUNDS", async () => {
      const below = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "0.10204", period: 3600 });
      assert.equal(below.status, 400);
      assert.deepEqual(below.body, { error: "AMOUNT_OUT_OF_BOUNDS", action: "FIX_REQUEST" });
      const floor = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "0.102041", period: 3600 });
      assert.equal(floor.status, 200);
    });

    it("refuses a period below the minimum, a string period, an end in the past, unknown fields", async () => {
      const now = Math.floor(h.clock.ms / 1000);
      for (const body of [
        { recipient: merchant().address, amount: "1", period: 59 },
        { recipient: merchant().address, amount: "1", period: "3600" },
        { recipient: merchant().address, amount: "1", period: 3600.5 },
        { recipient: merchant().address, amount: "1", period: 3600, end: now - 1 },
        { recipient: merchant().address, amount: "1", period: 3600, end: -1 },
        { recipient: merchant().address, amount: "1", period: 3600, salt: "0x00" },
        { recipient: merchant().address, amount: 1, period: 3600 },
      ]) {
        const res = await h.api.post("/v1/subscriptions").send(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error, "INVALID_REQUEST", JSON.stringify(body));
      }
    });
  });

  describe("POST /v1/subscriptions/resolve", () => {
    it("returns the terms and the exact typed data: its digest is the contract's subscription id", async () => {
      const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
      const res = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      assert.equal(res.status, 200);
      const b = res.body;
      assert.include(b, {
        recipient: merchant().address,
        amount: "10.000000",
        amount_units: "10000000",
        period: 3600,
        end: 0,
        token: usdc(),
        chain_id: 84532,
        contract: recurring(),
        salt: created.body.salt,
        max_gas_reimbursement: "0",
        fee_bps: 200,
        network_fee: "0.100000",
        network_fee_units: "100000",
        expires_at: created.body.expires_at,
      });
      assert.equal(b.start, Math.floor(h.clock.ms / 1000));
      assert.match(b.network_fee_estimate, /^[0-9]+\.[0-9]{6}$/);
      // The measured gas of a first charge on real USDC (snapshots/gas.json), at the next base fee + tip,
      // plus the L1 data fee of its transaction (the local chain runs an ordinary L1 market; the whole
      // cost against real charges is test/api/l1-fee.test.ts).
      const history = await h.chain.publicClient.getFeeHistory({ blockCount: 1, rewardPercentiles: [] });
      const pricing = { unitsPerEth: h.service.config.recurring.unitsPerEth, tipWei: h.service.config.recurring.tipWei };
      const measured = JSON.parse(readFileSync(new URL("../../snapshots/gas.json", import.meta.url), "utf8"))["first charge (EOA)"];
      const l2Only = gasQuoteUnits(BigInt(measured), history.baseFeePerGas.at(-1)! + pricing.tipWei, pricing);
      const estimate = parseAmount(b.network_fee_estimate)!;
      assert.isAbove(Number(estimate), Number(l2Only), "the L1 data fee is priced");
      assert.isBelow(Number(estimate), Number(l2Only) * 1.5, "an ordinary L1 adds well under half the L2 part");
      assert.deepEqual(b.typed_data.domain, { name: "RecurringCharges", version: "1", chainId: 84532, verifyingContract: recurring() });
      assert.equal(b.typed_data.primaryType, "Terms");
      const typed = walletTypedData(b, payer().address);
      const onChain = await h.chain.publicClient.readContract({
        address: recurring(),
        abi: recurringChargesAbi,
        functionName: "subscriptionId",
        args: [typed.message],
      });
      assert.equal(typedDataDigest(b, payer().address), onChain);
    });

    it("gives network_fee_estimate null when the chain cannot be asked, and refuses bad or expired setup tokens", async () => {
      const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
      h.proxy.mode = "http-500";
      const res = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      assert.equal(res.status, 200);
      assert.isNull(res.body.network_fee_estimate);
      h.proxy.mode = "pass";
      const intent = (await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1" })).body.intent;
      for (const token of [intent, created.body.setup_token.slice(0, -3) + "abc", "st.x.y.z"]) {
        const bad = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: token });
        assert.deepEqual(bad.body, { error: "INVALID_SETUP_TOKEN", action: "FIX_REQUEST" });
      }
      h.clock.advance(3600);
      const expired = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      assert.equal(expired.status, 400);
      assert.deepEqual(expired.body, { error: "SETUP_TOKEN_EXPIRED", action: "FIX_REQUEST" });
    });

    it("sets a setup token's lifetime on the clock that enforces it, even when the chain's clock is ahead (one clock)", async () => {
      await h.chain.advanceTime(7200);
      await h.chain.mine(1);
      const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
      const nowSeconds = Math.floor(h.clock.now() / 1000);
      assert.equal(created.body.expires_at, nowSeconds + 3600, "the service's clock plus SETUP_TTL_SECONDS");
      const terms = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      assert.isAtLeast(terms.body.start, nowSeconds + 7200, "the terms start on the chain's clock (the contract's)");
      h.clock.advance(3600);
      const expired = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      assert.deepEqual(expired.body, { error: "SETUP_TOKEN_EXPIRED", action: "FIX_REQUEST" }, "expired one TTL later, as expires_at says");
    });
  });

  describe("POST /v1/subscriptions/finalize", () => {
    it("returns the capability for a valid EOA signature, and refuses another signer or an ERC-6492 wrapper", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      assert.match(s.subscription, /^sc\.k1\./);
      assert.deepEqual(
        { ...s.finalized, subscription: undefined },
        { subscription: undefined, subscription_id: typedDataDigest(s.resolved, payer().address), amount: "10.000000", period: 3600, end: 0 },
      );

      const wrong = await other().signTypedData(walletTypedData(s.resolved, payer().address) as never);
      const refused = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: s.created.setup_token, payer: payer().address, signature: wrong });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, "INVALID_SIGNATURE");
      const wrapped = await h.api
        .post("/v1/subscriptions/finalize")
        .send({ setup_token: s.created.setup_token, payer: payer().address, signature: wrap6492(s.signature, other().address) });
      assert.equal(wrapped.status, 400);
      assert.deepEqual(wrapped.body, { error: "UNSUPPORTED_SIGNATURE_FORMAT", action: "ASK_PAYER" });
    });

    it("checks an ERC-1271 account by isValidSignature, and says SIGNATURE_VALIDATION_TOO_EXPENSIVE over the gas cap", async () => {
      const account = await deployTestContract(h.chain, payer(), testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [payer().address]);
      const s = await subscribe(h, payer(), { payer: account, recipient: merchant().address });
      assert.equal(s.id, typedDataDigest(s.resolved, account));
      const byOther = await other().signTypedData(walletTypedData(s.resolved, account) as never);
      const refused = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: s.created.setup_token, payer: account, signature: byOther });
      assert.equal(refused.body.error, "INVALID_SIGNATURE");
      await send(h.chain, payer(), { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [2_000n] });
      const expensive = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: s.created.setup_token, payer: account, signature: s.signature });
      assert.equal(expensive.status, 400);
      assert.deepEqual(expensive.body, { error: "SIGNATURE_VALIDATION_TOO_EXPENSIVE", action: "FIX_REQUEST" });
      h.proxy.mode = "rpc-error";
      const rpcDown = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: s.created.setup_token, payer: account, signature: s.signature });
      assert.equal(rpcDown.status, 502);
      assert.equal(rpcDown.body.error, "RPC_ERROR");
    });

    it("asks isValidSignature once, under the gas cap: one that loops forever is SIGNATURE_VALIDATION_TOO_EXPENSIVE, never a retry without the cap", async () => {
      const account = await deployTestContract(h.chain, payer(), testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [payer().address]);
      const s = await subscribe(h, payer(), { payer: account, recipient: merchant().address });
      // A hostile "payer": validation never ends (2^256 - 1 rounds), whatever gas it is given.
      await send(h.chain, payer(), { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [maxUint256] });
      h.proxy.reset();
      const endless = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: s.created.setup_token, payer: account, signature: s.signature });
      assert.equal(endless.status, 400);
      assert.deepEqual(endless.body, { error: "SIGNATURE_VALIDATION_TOO_EXPENSIVE", action: "FIX_REQUEST" });
      assert.equal(h.proxy.calls.get("eth_call"), 1, "one capped eth_call, no uncapped retry");
    });
  });

  describe("one signature rule with the contract (OpenZeppelin's SignatureChecker)", () => {
    const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const finalize = (setup_token: string, payerAddress: string, signature: string) =>
      h.api.post("/v1/subscriptions/finalize").send({ setup_token, payer: payerAddress, signature });

    async function offer() {
      const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
      const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      return { setup: created.body.setup_token as string, resolved: resolved.body };
    }

    /** A 1-of-1 Safe 1.4.1 owned by the payer's key, holding USDC and allowing the contract. */
    async function fundedSafe() {
      const infra = await deploySafeInfrastructure(h.chain, payer());
      const safe = await createSafe(h.chain, infra, payer(), [payer()], 1);
      await send(h.chain, payer(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [safe, 100_000_000n] });
      await execTransaction(h.chain, safe, [payer()], {
        to: usdc(),
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] }),
      });
      return { infra, safe };
    }

    it("refuses a high-s (malleated) EOA signature, as the contract does; a y-parity v (0/1) is stored as 27/28 and charges", async () => {
      const { setup, resolved } = await offer();
      const signature = await payer().signTypedData(walletTypedData(resolved, payer().address) as never);
      const { r, s: low, v } = parseSignature(signature);
      const malleated = concat([r, numberToHex(SECP256K1_N - hexToBigInt(low), { size: 32 }), v === 27n ? "0x1c" : "0x1b"]);
      assert.equal(
        await recoverTypedDataAddress({ ...walletTypedData(resolved, payer().address), signature: malleated } as never),
        payer().address,
        "the twin recovers to the payer",
      );
      const refused = await finalize(setup, payer().address, malleated);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: "INVALID_SIGNATURE", action: "ASK_PAYER" });
      for (const bad of [signature.slice(0, -2), `${signature}00`, "0x"])
        assert.equal((await finalize(setup, payer().address, bad)).body.error, "INVALID_SIGNATURE", `${(bad.length - 2) / 2} bytes`);

      const yParity = `${signature.slice(0, -2)}${v === 27n ? "00" : "01"}`;
      const accepted = await finalize(setup, payer().address, yParity);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      await approveThroughSession(h, payer(), accepted.body.subscription);
      assert.include((await charge(accepted.body.subscription)).body, { status: "CONFIRMING" });
    });

    it("accepts an empty signature from a Safe 1.4.1 that approved the terms on chain, and charges it; refuses it before the approval", async () => {
      const { infra, safe } = await fundedSafe();
      const { setup, resolved } = await offer();
      const id = typedDataDigest(resolved, safe);
      assert.deepEqual((await finalize(setup, safe, "0x")).body, { error: "INVALID_SIGNATURE", action: "ASK_PAYER" }, "not approved yet");
      await signOnChain(h.chain, safe, infra, [payer()], id);
      const finalized = await finalize(setup, safe, "0x");
      assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
      assert.equal(finalized.body.subscription_id, id);
      const first = await charge(finalized.body.subscription);
      assert.include(first.body, { status: "CONFIRMING" }, JSON.stringify(first.body));
      await h.chain.mine(2);
      assert.include((await charge(finalized.body.subscription)).body, { status: "CHARGED", ok: true, tx_hash: first.body.tx_hash });
    });

    it("a first charge whose signature no longer validates on chain (the Safe changed owner) is INVALID_SIGNATURE / ASK_PAYER, not a revocation; nothing is sent", async () => {
      const { safe } = await fundedSafe();
      const { setup, resolved } = await offer();
      const id = typedDataDigest(resolved, safe);
      const finalized = await finalize(setup, safe, await safeMessageSignature(h.chain, safe, [payer()], id));
      assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
      // The Safe replaces its only owner (Safe's owner list starts at the sentinel address 0x…01).
      const sentinel = "0x0000000000000000000000000000000000000001";
      await execTransaction(h.chain, safe, [payer()], {
        to: safe,
        data: encodeFunctionData({ abi: safeAbi, functionName: "swapOwner", args: [sentinel, payer().address, other().address] }),
      });
      const nonceBefore = await relayerNonce();
      const refused = await charge(finalized.body.subscription);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: "INVALID_SIGNATURE", action: "ASK_PAYER" });
      assert.equal(await relayerNonce(), nonceBefore, "nothing sent");
    });
  });

  describe("a full cycle", () => {
    for (const kind of ["EOA", "ERC-1271 account"] as const) {
      it(`${kind}: sign, finalize, approve, charge, ALREADY_CHARGED, next period, revoke, PERMISSION_REVOKED`, async () => {
        const account =
          kind === "EOA"
            ? undefined
            : await deployTestContract(h.chain, payer(), testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [payer().address]);
        const payerAddress = account ?? payer().address;
        if (account) await send(h.chain, payer(), { address: usdc(), abi: fiatTokenAbi, functionName: "transfer", args: [account, 100_000_000n] });
        const s = await subscribe(h, payer(), { payer: account, recipient: merchant().address, amount: "10", period: 3600 });
        assert.deepEqual((await state(s.subscription)).body.state, "PENDING");
        await approveThroughSession(h, payer(), s.subscription, account);
        const merchantBefore = await balanceOf(h.chain, usdc(), merchant().address);

        const first = await charge(s.subscription);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.include(first.body, {
          status: "CONFIRMING",
          ok: false,
          already_paid: false,
          action: "WAIT",
          subscription_id: s.id,
          period_index: 0,
          amount: "10.000000",
        });
        assert.match(first.body.tx_hash, /^0x[0-9a-f]{64}$/);
        const again = await charge(s.subscription);
        assert.include(again.body, { status: "CONFIRMING", tx_hash: first.body.tx_hash });

        await h.chain.mine(2);
        const charged = await charge(s.subscription);
        assert.include(charged.body, { status: "CHARGED", ok: true, already_paid: false, action: "SUCCESS", tx_hash: first.body.tx_hash, period_index: 0 });
        const start = Number(s.resolved.start);
        assert.deepEqual([charged.body.period_start, charged.body.period_end, charged.body.next_period_at], [start, start + 3600, start + 3600]);
        const repeat = await charge(s.subscription);
        assert.include(repeat.body, { status: "ALREADY_CHARGED", ok: true, already_paid: true, action: "SUCCESS", tx_hash: first.body.tx_hash });
        const st = (await state(s.subscription)).body;
        assert.include(st, { state: "ACTIVE", lastPeriod: 0, paid_count: 1, period_index: 0, subscription_id: s.id, payer: payerAddress });

        await h.chain.advanceTime(3600);
        const second = await charge(s.subscription);
        assert.include(second.body, { status: "CONFIRMING", period_index: 1 });
        assert.notEqual(second.body.tx_hash, first.body.tx_hash);
        await h.chain.mine(2);
        assert.include((await charge(s.subscription)).body, { status: "CHARGED", period_index: 1, tx_hash: second.body.tx_hash });
        assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 2n * (10_000_000n - 200_000n - 100_000n));

        const session = await h.api.post("/v1/subscriptions/revoke/session").send({ subscription: s.subscription });
        assert.include(session.body, { subscription_id: s.id, payer: payerAddress });
        assert.match(session.body.cancel_token, /^ct\./);
        const prepared = await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: session.body.cancel_token });
        assert.include(prepared.body, { chain_id: 84532, payer: payerAddress, to: recurring(), subscription_id: s.id });
        assert.isString(prepared.body.description);
        // Periods 0 and 1 charged: the next charge is period 2's start, not yet due.
        assert.include(prepared.body.terms, {
          recipient: merchant().address,
          amount_units: "10000000",
          period: 3600,
          next_charge_at: Number(s.resolved.start) + 7200,
          next_charge_due: false,
        });
        await sendPrepared(h, payer(), prepared.body, account);
        assert.equal((await state(s.subscription)).body.state, "REVOKED");
        const afterRevoke = await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: session.body.cancel_token });
        assert.include(afterRevoke.body.terms, { next_charge_at: null, next_charge_due: false }, "revoked: no further charge");
        await h.chain.advanceTime(3600);
        const nonceBefore = await relayerNonce();
        const revoked = await charge(s.subscription);
        assert.equal(revoked.status, 400);
        assert.deepEqual(revoked.body, { error: "PERMISSION_REVOKED", action: "STOP" });
        assert.equal(await relayerNonce(), nonceBefore, "nothing sent");
      });
    }
  });

  describe("reorgs and restarts", () => {
    it("a charge reorged out is charged again with the same transaction, never twice", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const before = await h.chain.snapshot();
      const merchantBefore = await balanceOf(h.chain, usdc(), merchant().address);
      const first = await charge(s.subscription);
      assert.equal(first.body.status, "CONFIRMING");
      await h.chain.revert(before); // the block with the charge is gone
      const again = await charge(s.subscription);
      assert.include(again.body, { status: "CONFIRMING", tx_hash: first.body.tx_hash });
      await h.chain.mine(2);
      assert.include((await charge(s.subscription)).body, { status: "CHARGED", tx_hash: first.body.tx_hash });
      assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 9_700_000n);
      const [, paidCount] = await h.chain.publicClient.readContract({
        address: recurring(),
        abi: recurringChargesAbi,
        functionName: "subscriptions",
        args: [s.id],
      });
      assert.equal(paidCount, 1);
    });

    it("a service killed after recording and before broadcasting re-sends the recorded transaction on restart", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const crashing = await createService(configFor(h.proxy.url), {
        now: h.clock.now,
        logger: createLogger("silent"),
        database: h.database,
        beforeBroadcast: () => {
          throw new Error("killed");
        },
      });
      const crashed = await supertest(crashing.app).post("/v1/charges").send({ subscription: s.subscription });
      assert.equal(crashed.status, 500);
      const recorded = await new ChargeAttempts(h.database).find(s.id, 0n);
      assert.ok(recorded, "recorded before broadcast");
      assert.isNull(await h.chain.publicClient.getTransaction({ hash: recorded.txHash }).catch(() => null), "never reached the node");

      const restarted = await h.another();
      const resumed = await supertest(restarted.app).post("/v1/charges").send({ subscription: s.subscription });
      assert.include(resumed.body, { status: "CONFIRMING", tx_hash: recorded.txHash });
      await h.chain.mine(2);
      assert.include((await supertest(restarted.app).post("/v1/charges").send({ subscription: s.subscription })).body, {
        status: "CHARGED",
        tx_hash: recorded.txHash,
      });
    });

    it("a service killed after broadcasting answers CONFIRMING, then CHARGED, for the same transaction after restart", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const first = await charge(s.subscription);
      const nonce = await relayerNonce();
      const restarted = await h.another();
      const api = supertest(restarted.app);
      assert.include((await api.post("/v1/charges").send({ subscription: s.subscription })).body, { status: "CONFIRMING", tx_hash: first.body.tx_hash });
      await h.chain.mine(2);
      assert.include((await api.post("/v1/charges").send({ subscription: s.subscription })).body, { status: "CHARGED", tx_hash: first.body.tx_hash });
      assert.equal(await relayerNonce(), nonce, "no second transaction");
    });
  });

  describe("refusals before anything is sent", () => {
    it("allowance revoked → INSUFFICIENT_ALLOWANCE; restored through the approve session's numbers → the charge works", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const prepared = await h.api.post("/v1/allowances/revoke/prepare").send({});
      assert.equal(prepared.status, 200);
      assert.include(prepared.body, { chain_id: 84532, to: usdc() });
      assert.deepEqual(decodeFunctionData({ abi: erc20Abi, data: prepared.body.data }).args, [recurring(), 0n]);
      await sendPrepared(h, payer(), prepared.body);
      const nonce = await relayerNonce();
      const refused = await charge(s.subscription);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" });
      assert.equal(await relayerNonce(), nonce);

      const session = await h.api.post("/v1/subscriptions/approve/session").send({ subscription: s.subscription });
      assert.include(session.body, { payer: payer().address, subscription_id: s.id });
      const approval = await h.api.post("/v1/subscriptions/approve/resolve").send({ approve_token: session.body.approve_token });
      assert.deepEqual(approval.body, {
        chain_id: 84532,
        token: usdc(),
        spender: recurring(),
        payer: payer().address,
        subscription_id: s.id,
        required_units: "10000000",
        expires_at: session.body.expires_at,
        // The extension the page names the subscription with: never charged, so its current period is due now.
        terms: {
          recipient: merchant().address,
          amount: "10.000000",
          amount_units: "10000000",
          period: 3600,
          start: s.resolved.start,
          end: 0,
          next_charge_at: s.resolved.start,
          next_charge_due: true,
        },
      });
      await send(h.chain, payer(), {
        address: usdc(),
        abi: erc20Abi,
        functionName: "approve",
        args: [approval.body.spender, BigInt(approval.body.required_units)],
      });
      assert.equal((await charge(s.subscription)).body.status, "CONFIRMING");
    });

    it("INSUFFICIENT_BALANCE, NOT_DUE (with retry_after), SUBSCRIPTION_EXPIRED", async () => {
      const poor = other();
      const s = await subscribe(h, poor, { recipient: merchant().address });
      await approveThroughSession(h, poor, s.subscription);
      const balance = await balanceOf(h.chain, usdc(), poor.address);
      await send(h.chain, poor, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [merchant().address, balance - 1n] });
      assert.deepEqual((await charge(s.subscription)).body, { error: "INSUFFICIENT_BALANCE", action: "ASK_PAYER" });

      h.clock.advance(1000); // the service's clock runs ahead: start lies in the chain's future
      const later = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), later.subscription);
      const notDue = await charge(later.subscription);
      assert.equal(notDue.status, 409);
      assert.equal(notDue.body.error, "NOT_DUE");
      assert.isAtLeast(notDue.body.retry_after, 900);
      assert.equal(notDue.headers["retry-after"], String(notDue.body.retry_after));

      const start = Number((await subscribe(h, payer(), { recipient: merchant().address })).resolved.start);
      const ending = await subscribe(h, payer(), { recipient: merchant().address, end: start + 3600 + 1000 });
      await h.chain.advanceTime(7000);
      const expired = await charge(ending.subscription);
      assert.equal(expired.status, 409);
      assert.deepEqual(expired.body, { error: "SUBSCRIPTION_EXPIRED", action: "STOP" });
      assert.equal((await state(ending.subscription)).body.state, "ENDED");
    });

    it("never sends a charge that could be mined after its period closes: NOT_DUE until the next period opens, which is then charged and named", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address, period: 3600 });
      await approveThroughSession(h, payer(), s.subscription);
      const start = BigInt(s.resolved.start as number);
      const first = await charge(s.subscription);
      assert.equal(first.body.period_index, 0);
      await h.chain.mine(2);
      // 30 s before period 1 closes: within the 60 s margin, so nothing is sent.
      await h.chain.testClient.setNextBlockTimestamp({ timestamp: start + 2n * 3600n - 30n });
      await h.chain.mine(1);
      const nonce = await relayerNonce();
      const late = await charge(s.subscription);
      assert.equal(late.status, 409);
      assert.equal(late.body.error, "NOT_DUE");
      assert.equal(late.body.action, "RETRY");
      assert.equal(late.body.retry_after, 31, "until period 2 opens");
      assert.equal(await relayerNonce(), nonce, "no transaction sent");
      await h.chain.testClient.setNextBlockTimestamp({ timestamp: start + 2n * 3600n + 1n });
      await h.chain.mine(1);
      const next = await charge(s.subscription);
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.equal(next.body.period_index, 2, "the answer names the period its transaction charges");
      await h.chain.mine(2);
      const settled = await charge(s.subscription);
      assert.include(settled.body, { status: "CHARGED", period_index: 2, tx_hash: next.body.tx_hash });
    });

    it("GAS_TOO_HIGH above the signed maximum, GAS_QUOTE_UNAVAILABLE without a quote; a reimbursement within the maximum is charged", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const nonce = await relayerNonce();
      const pricey = await h.another({ GAS_PRICE_USDC_PER_ETH: "100000000000" });
      const tooHigh = await supertest(pricey.app).post("/v1/charges").send({ subscription: s.subscription });
      assert.equal(tooHigh.status, 409);
      assert.equal(tooHigh.body.error, "GAS_TOO_HIGH");
      h.proxy.mode = "rpc-error";
      h.proxy.faultMethods = new Set(["eth_feeHistory"]);
      const noQuote = await charge(s.subscription);
      assert.equal(noQuote.status, 502);
      assert.equal(noQuote.body.error, "GAS_QUOTE_UNAVAILABLE");
      h.proxy.reset();
      assert.equal(await relayerNonce(), nonce, "nothing sent");

      const reimbursing = await h.another(await reimbursingEnv(h));
      const api = supertest(reimbursing.app);
      const created = await api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
      const resolved = await api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      assert.equal(resolved.body.max_gas_reimbursement, "1000000");
      const signature = await payer().signTypedData(walletTypedData(resolved.body, payer().address) as never);
      const sub = (await api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer: payer().address, signature })).body
        .subscription;
      const payerBefore = await balanceOf(h.chain, usdc(), payer().address);
      const sent = await api.post("/v1/charges").send({ subscription: sub });
      assert.equal(sent.body.status, "CONFIRMING", JSON.stringify(sent.body));
      const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: sent.body.tx_hash });
      const [event] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
      const reimbursed = event!.args.gasReimbursement;
      assert.ok(reimbursed > 0n && reimbursed <= 1_000_000n, `reimbursement ${reimbursed} within (0, 1.00]`);
      assert.equal(payerBefore - (await balanceOf(h.chain, usdc(), payer().address)), 10_000_000n + event!.args.gasReimbursement);
    });

    it("RELAYER_UNAVAILABLE when paused or short of ETH; nothing is spent", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const paused = await h.another({ RELAYER_PAUSED: "true" });
      const res = await supertest(paused.app).post("/v1/charges").send({ subscription: s.subscription });
      assert.equal(res.status, 503);
      assert.deepEqual(res.body, { error: "RELAYER_UNAVAILABLE", action: "RETRY", retry_after: 60 });
      await h.chain.testClient.setBalance({ address: h.chain.accounts[LOCAL_ROLES.relayer]!.address, value: 1000n });
      const broke = await charge(s.subscription);
      assert.equal(broke.status, 503);
      assert.equal(broke.body.error, "RELAYER_UNAVAILABLE");
      assert.equal(await relayerNonce(), 0);
    });

    it("a renewal's simulation is the trial shared by the charges in flight (one chargeBatch call with the largest reimbursement, the paid counts in one Multicall3 call: no estimate, no funds read); a first charge is simulated alone and estimated; a charge whose trial fails is simulated alone, and funds short of the largest reimbursement are simulated without it and read", async () => {
      // A service whose charges carry a reimbursement (its gas price makes one), so the funds matter beyond the amount.
      const api = supertest((await h.another(await reimbursingEnv(h))).app);
      const created = await api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600 });
      const resolved = await api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      const signature = await payer().signTypedData(walletTypedData(resolved.body, payer().address) as never);
      const finalized = await api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer: payer().address, signature });
      const subscription = finalized.body.subscription as string;
      await send(h.chain, payer(), { address: usdc(), abi: fiatTokenAbi, functionName: "approve", args: [recurring(), 100_000_000n] });
      const charge = (body: object) => api.post("/v1/charges").send(body);
      const multicall3 = h.chain.chain.contracts!.multicall3!.address.toLowerCase();
      const aggregate3 = toFunctionSelector(getAbiItem({ abi: multicall3Abi, name: "aggregate3" }));
      const ownCalls = () =>
        h.proxy.contractCalls
          .filter((c) => c.to === recurring().toLowerCase() || c.to === usdc().toLowerCase() || c.to === multicall3)
          .filter((c) => c.method === "eth_estimateGas" || !isSharedTokenRead(c.selector))
          .map((c) => `${c.method} ${c.to === usdc().toLowerCase() ? "token" : c.to === multicall3 ? "multicall3" : "contract"} ${c.selector}`);
      h.proxy.reset();
      const first = await charge({ subscription });
      assert.equal(first.body.status, "CONFIRMING", JSON.stringify(first.body));
      const chargeSelector = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "charge" }));
      const trialSelector = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "chargeBatch" }));
      const allowance = toFunctionSelector(getAbiItem({ abi: erc20Abi, name: "allowance" }));
      const balanceOfSelector = toFunctionSelector(getAbiItem({ abi: erc20Abi, name: "balanceOf" }));
      const trial = [`eth_call contract ${trialSelector}`, `eth_call multicall3 ${aggregate3}`];
      // A first charge (period 0: anyone can set one up for nothing) is simulated alone, never tried.
      assert.sameMembers(ownCalls(), [`eth_call contract ${chargeSelector}`, `eth_estimateGas contract ${chargeSelector}`]);
      await h.chain.mine(2);
      await h.chain.advanceTime(3600);
      h.proxy.reset();
      const renewal = await charge({ subscription });
      assert.include(renewal.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(renewal.body));
      assert.sameMembers(ownCalls(), trial);
      // Tried with the largest reimbursement, the one sent (smaller) is covered by the funds the trial saw.
      const sent = await h.chain.publicClient.getTransaction({ hash: renewal.body.tx_hash });
      const { args } = decodeFunctionData({ abi: recurringChargesAbi, data: sent.input });
      const reimbursement = args[2] as bigint;
      assert.ok(reimbursement > 0n && reimbursement < 1_000_000n, `a reimbursement under the signed maximum: ${reimbursement}`);

      // Funds for the amount and this reimbursement but not the largest one: the trial fails, the charge is
      // simulated alone, again without a reimbursement, the funds read, and charged all the same.
      await h.chain.mine(2);
      await h.chain.advanceTime(3600);
      await send(h.chain, payer(), { address: usdc(), abi: fiatTokenAbi, functionName: "approve", args: [recurring(), 10_000_000n + reimbursement + 50_000n] });
      h.proxy.reset();
      const tight = await charge({ subscription });
      assert.include(tight.body, { status: "CONFIRMING", period_index: 2 }, JSON.stringify(tight.body));
      assert.sameMembers(ownCalls(), [
        ...trial,
        `eth_call contract ${chargeSelector}`,
        `eth_call contract ${chargeSelector}`,
        `eth_call token ${allowance}`,
        `eth_call token ${balanceOfSelector}`,
      ]);
      // Funds short of the amount and that reimbursement: INSUFFICIENT_ALLOWANCE, nothing sent.
      await h.chain.mine(2);
      await h.chain.advanceTime(3600);
      await send(h.chain, payer(), { address: usdc(), abi: fiatTokenAbi, functionName: "approve", args: [recurring(), 10_000_000n + 1n] });
      const short = await charge({ subscription });
      assert.equal(short.body.error, "INSUFFICIENT_ALLOWANCE", JSON.stringify(short.body));
    });

    it("one charge at a time per subscription (CONCURRENCY_LIMIT); different subscriptions in parallel are each charged (in one batch when ready together: charge-batch.test.ts)", async () => {
      const a = await subscribe(h, payer(), { recipient: merchant().address });
      const b = await subscribe(h, payer(), { recipient: merchant().address, amount: "11" });
      const c = await subscribe(h, other(), { recipient: merchant().address, amount: "12" });
      await approveThroughSession(h, payer(), a.subscription);
      await approveThroughSession(h, other(), c.subscription);
      const same = await Promise.all([charge(a.subscription), charge(a.subscription)]);
      const statuses = same.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 429]);
      const limited = same.find((r) => r.status === 429)!;
      assert.equal(limited.body.error, "CONCURRENCY_LIMIT");
      assert.equal(limited.headers["retry-after"], String(limited.body.retry_after));
      const parallel = await Promise.all([charge(b.subscription), charge(c.subscription)]);
      assert.deepEqual(
        parallel.map((r) => r.body.status),
        ["CONFIRMING", "CONFIRMING"],
      );
      await h.chain.mine(2);
      const settled = await Promise.all([charge(b.subscription), charge(c.subscription)]);
      assert.deepEqual(
        settled.map((r) => [r.body.status, r.body.subscription_id]),
        [
          ["CHARGED", b.id],
          ["CHARGED", c.id],
        ],
      );
    });
  });

  describe("tokens of the wrong kind", () => {
    it("are refused everywhere; a cancel token can never charge and carries no signature", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const cancel = (await h.api.post("/v1/subscriptions/revoke/session").send({ subscription: s.subscription })).body.cancel_token as string;
      const approve = (await h.api.post("/v1/subscriptions/approve/session").send({ subscription: s.subscription })).body.approve_token as string;
      const intent = (await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1" })).body.intent as string;
      const payload = JSON.parse(Buffer.from(cancel.split(".")[2]!, "base64url").toString());
      assert.notProperty(payload, "signature");

      for (const token of [cancel, approve, s.created.setup_token, intent, "sc.k1.a.b"]) {
        for (const path of ["/v1/charges", "/v1/subscriptions/approve/session", "/v1/subscriptions/revoke/session"]) {
          const res = await h.api.post(path).send({ subscription: token });
          assert.deepEqual(res.body, { error: "INVALID_SUBSCRIPTION", action: "FIX_REQUEST" }, `${path} ${token.slice(0, 3)}`);
        }
        assert.equal((await h.api.post("/v1/charges/recover").send({ subscription: token, period_index: 0 })).body.error, "INVALID_SUBSCRIPTION");
      }
      for (const token of [s.subscription, cancel, intent]) {
        assert.equal((await h.api.post("/v1/subscriptions/resolve").send({ setup_token: token })).body.error, "INVALID_SETUP_TOKEN");
        assert.equal((await h.api.post("/v1/subscriptions/approve/resolve").send({ approve_token: token })).body.error, "INVALID_APPROVE_TOKEN");
      }
      assert.equal((await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: intent })).body.error, "INVALID_SUBSCRIPTION");
      assert.equal(
        (await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: cancel.slice(0, -4) + "AAAA" })).body.error,
        "INVALID_CANCEL_TOKEN",
      );
      assert.equal((await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: s.subscription })).status, 200, "the capability itself works");
      assert.equal((await h.api.post("/v1/subscriptions/state").send({ subscription: cancel })).status, 200, "state reads with a cancel token");

      h.clock.advance(900);
      assert.deepEqual(
        (await h.api.post("/v1/subscriptions/state").send({ subscription: cancel })).body,
        { error: "CANCEL_TOKEN_EXPIRED", action: "FIX_REQUEST" },
        "an expired cancel token reads nothing",
      );
      assert.equal((await h.api.post("/v1/subscriptions/state").send({ subscription: s.subscription })).status, 200, "the capability still reads");
      assert.deepEqual((await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: cancel })).body, {
        error: "CANCEL_TOKEN_EXPIRED",
        action: "FIX_REQUEST",
      });
      assert.deepEqual((await h.api.post("/v1/subscriptions/approve/resolve").send({ approve_token: approve })).body, {
        error: "APPROVE_TOKEN_EXPIRED",
        action: "FIX_REQUEST",
      });
    });

    it("allowance revoke prepare takes {} or no body, nothing else", async () => {
      assert.equal((await h.api.post("/v1/allowances/revoke/prepare")).status, 200);
      const extra = await h.api.post("/v1/allowances/revoke/prepare").send({ token: usdc() });
      assert.equal(extra.status, 400);
      assert.equal(extra.body.error, "INVALID_REQUEST");
    });
  });

  describe("POST /v1/charges/recover", () => {
    it("finds a settled charge with every field, says PAYMENT_CONFIRMING (409, with the hash) below finality, PAYMENT_NOT_FOUND for a skipped period", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      await approveThroughSession(h, payer(), s.subscription);
      const sent = await charge(s.subscription);
      const confirming = await h.api.post("/v1/charges/recover").set("Origin", "https://shop.example").send({ subscription: s.subscription, period_index: 0 });
      assert.equal(confirming.status, 409);
      assert.deepEqual(confirming.body, { error: "PAYMENT_CONFIRMING", action: "WAIT", retry_after: 5 });
      assert.equal(confirming.headers["svc-tx-hash"], sent.body.tx_hash);
      // A browser may read the hash and Retry-After only when CORS exposes them.
      const exposed = String(confirming.headers["access-control-expose-headers"])
        .split(",")
        .map((name) => name.trim().toLowerCase());
      assert.includeMembers(exposed, ["svc-tx-hash", "retry-after"]);
      await h.chain.mine(2);
      const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: sent.body.tx_hash });
      const found = await h.api.post("/v1/charges/recover").send({ subscription: s.subscription, period_index: 0 });
      assert.deepEqual(found.body, {
        found: true,
        subscription_id: s.id,
        period_index: 0,
        tx_hash: sent.body.tx_hash,
        block_number: receipt.blockNumber.toString(),
        payer: payer().address,
        recipient: merchant().address,
        net_units: "9700000",
        fee_units: "200000",
        network_fee_units: "100000",
        amount_units: "10000000",
      });
      const skipped = await h.api.post("/v1/charges/recover").send({ subscription: s.subscription, period_index: 3 });
      assert.deepEqual(skipped.body, { found: false, code: "PAYMENT_NOT_FOUND", as_of_block: (receipt.blockNumber + 2n).toString() });
    });

    it("recovers any period's charge with the same number of RPC calls (one record read, one one-block log query), whatever the period or the chain's length", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address, period: 3600 });
      await approveThroughSession(h, payer(), s.subscription);
      const recoverCalls = async (period_index: number) => {
        h.proxy.reset();
        const res = await h.api.post("/v1/charges/recover").send({ subscription: s.subscription, period_index });
        assert.equal(res.body.found, true, JSON.stringify(res.body));
        return [h.proxy.count(), h.proxy.count("eth_getLogs")];
      };
      for (let period = 0; period < 8; period++) {
        if (period > 0) await h.chain.advanceTime(3600);
        const sent = await charge(s.subscription);
        assert.equal(sent.body.status, "CONFIRMING", JSON.stringify(sent.body));
        await h.chain.mine(2);
        const settled = await charge(s.subscription);
        assert.equal(settled.body.status, "CHARGED", `period ${period}: ${JSON.stringify(settled.body)}`);
      }
      const first = await recoverCalls(0);
      assert.deepEqual(first[1], 1);
      for (const period of [5, 6, 7]) assert.deepEqual(await recoverCalls(period), first, `period ${period}`);
      await h.chain.mine(5_000);
      assert.deepEqual(await recoverCalls(7), first, "after 5,000 more blocks");
    });

    it("answers 502 PAYMENT_RECOVERY_INCONSISTENT when the contract's record has no matching log", async () => {
      const s = await subscribe(h, payer(), { recipient: merchant().address });
      // Period 5's record = block 3 by hand: a block with no Charged log. Storage: EIP712's two fallback
      // strings (0, 1), Ownable (2), Ownable2Step (3), subscriptions (4), the charge records (5), six
      // 40-bit block numbers per slot: period 5 is bits 200..239 of group 0.
      const outer = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [s.id, 5n]));
      const slot = keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "bytes32" }], [0n, outer]));
      await h.chain.testClient.setStorageAt({ address: recurring(), index: slot, value: pad(numberToHex(3n << 200n)) });
      assert.equal(
        await h.chain.publicClient.readContract({ address: recurring(), abi: recurringChargesAbi, functionName: "chargedBlock", args: [s.id, 5n] }),
        3n,
      );
      const res = await h.api.post("/v1/charges/recover").send({ subscription: s.subscription, period_index: 5 });
      assert.equal(res.status, 502);
      assert.equal(res.body.error, "PAYMENT_RECOVERY_INCONSISTENT");
    });
  });
});
