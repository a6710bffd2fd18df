import { assert } from "chai";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { hashTypedData, serializeErc6492Signature, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { feeAmountOf } from "../../src/holds/fee.js";
import { paymentInfoHash } from "../../src/holds/payment-info.js";
import {
  capturePayload,
  chargeCompletion,
  clientPayload,
  termsOf,
  voidPayload,
  wireInfo,
  type SignTyped,
  type SpecParty,
} from "../helpers/auth-capture-spec.js";
import { createSafe, deploySafeInfrastructure, safeMessageSignature } from "../helpers/safe.js";
import { useService } from "../helpers/service.js";
import { balanceOf } from "../helpers/tx.js";
import { until } from "../helpers/until.js";
import { authCaptureRequirements } from "../helpers/x402-parties.js";

/**
 * The facilitator against hand-made payloads of x402's `auth-capture` EVM binding (v1.1): what a
 * conformant resource server sends (@x402/evm's client payload, the server's completions and lifecycle
 * payloads signed by its receiver authorizer), each refusal with the code the spec names.
 */
describe("x402 auth-capture: the EVM binding's payloads (spec v1.1)", function () {
  this.timeout(120_000);
  const h = useService();
  const agent = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const authorizer = () => h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
  const usdc = () => h.service.deployment.token.address;
  const set = () => h.service.deployment.authCapture![0]!;
  const party = (): SpecParty => ({
    chainId: h.service.deployment.chainId,
    escrow: set().escrow,
    collector: set().eip3009Collector,
    feeBps: h.service.deployment.parameters.feeBps,
  });
  /** A facilitator request, with blocks mined while it runs: a lifecycle settle reads the escrow at the final block, and a sync close-out waits for its capture to be final. */
  async function facilitator(path: "verify" | "settle", sent: unknown) {
    let answer: Awaited<ReturnType<typeof h.api.post>> | undefined;
    const asked = h.api
      .post(`/x402/${path}`)
      .send(sent as object)
      .then((a) => {
        answer = a;
      });
    await until(
      async () => {
        if (answer === undefined) await h.chain.mine(1);
        return answer !== undefined;
      },
      `the facilitator's ${path} answer`,
      { timeoutMs: 60_000, everyMs: 50 },
    );
    await asked;
    return answer!;
  }
  const signs =
    (account: { signTypedData: SignTyped }): SignTyped =>
    (typed) =>
      account.signTypedData(typed);
  const PRICE = 100_000n;

  /** A route of 0.10 to the merchant on the facilitator's terms, `extra` changed (the authorizer named by default). */
  function route(extra: Record<string, unknown> = {}, by: Address = authorizer().address): PaymentRequirements {
    const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
    const r = authCaptureRequirements(
      kind.extra,
      { asset: usdc(), payTo: merchant().address, now: Math.floor(Date.now() / 1000) },
      { receiverAuthorizer: by, paymentFlow: "escrow", captureMode: "sync", ...extra },
    );
    return { ...r, amount: PRICE.toString() };
  }
  const body = (p: PaymentPayload, r: PaymentRequirements, payload: Record<string, unknown> = p.payload) => ({
    x402Version: 2,
    paymentPayload: { ...p, accepted: r, payload },
    paymentRequirements: r,
  });
  const state = (hash: Hex) =>
    h.chain.publicClient.readContract({ address: set().escrow, abi: authCaptureEscrowAbi, functionName: "paymentState", args: [hash] });
  /** The client's payment authorized in escrow on `r`. */
  async function authorized(r: PaymentRequirements) {
    const p = await clientPayload(agent(), h.chain.publicClient, r);
    const settled = await facilitator("settle", body(p, r));
    assert.include(settled.body, { success: true, amount: PRICE.toString() }, JSON.stringify(settled.body));
    assert.notProperty(settled.body, "extra", "a bound route's lifecycle is relayed: no ho is handed out");
    return p;
  }

  it("escrow, sync: authorize, then one settle captures 0.06 with the fee and voids 0.04 back; the same capture again is refused", async () => {
    const r = route();
    const [agentBefore, merchantBefore] = await Promise.all([balanceOf(h.chain, usdc(), agent().address), balanceOf(h.chain, usdc(), merchant().address)]);
    const p = await authorized(r);
    const capture = await capturePayload(party(), r, p, { amount: 60_000n, expected: [PRICE, 0n], sign: signs(authorizer()), voidRemainder: true });
    const settled = await facilitator("settle", body(p, r, capture));
    assert.include(settled.body, { success: true, amount: "60000" }, JSON.stringify(settled.body));
    const hash = paymentInfoHash(termsOf(r, p), party().chainId, set().escrow);
    assert.deepEqual(await state(hash), [true, 0n, 60_000n], "captured 0.06, the rest voided");
    const fee = feeAmountOf(60_000n, party().feeBps);
    assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 60_000n - fee);
    assert.equal(agentBefore - (await balanceOf(h.chain, usdc(), agent().address)), 60_000n, "0.04 back to the agent");
    const replay = await facilitator("settle", body(p, r, capture));
    assert.include(replay.body, { success: false, errorReason: "invalid_auth_capture_evm_unexpected_payment_state" }, JSON.stringify(replay.body));
  });

  it("escrow: partial captures repeat, each against the balances it expects; a stale expectation and another key's signature are refused; void ends it", async () => {
    const r = route({ captureMode: "deferred" });
    const p = await authorized(r);
    const sign = signs(authorizer());
    const first = await facilitator("settle", body(p, r, await capturePayload(party(), r, p, { amount: 30_000n, expected: [PRICE, 0n], sign })));
    assert.include(first.body, { success: true, amount: "30000" }, JSON.stringify(first.body));
    const stale = await capturePayload(party(), r, p, { amount: 30_000n, expected: [PRICE, 0n], sign });
    assert.include((await facilitator("settle", body(p, r, stale))).body, { success: false, errorReason: "invalid_auth_capture_evm_unexpected_payment_state" });
    const forged = await capturePayload(party(), r, p, { amount: 30_000n, expected: [70_000n, 30_000n], sign: signs(stranger()) });
    assert.include((await facilitator("settle", body(p, r, forged))).body, { success: false, errorReason: "invalid_auth_capture_evm_authorizer_signature" });
    const second = await facilitator("settle", body(p, r, await capturePayload(party(), r, p, { amount: 30_000n, expected: [70_000n, 30_000n], sign })));
    assert.include(second.body, { success: true, amount: "30000" }, JSON.stringify(second.body));
    const voided = await facilitator("settle", body(p, r, await voidPayload(party(), r, p, sign)));
    assert.include(voided.body, { success: true, amount: "0" }, JSON.stringify(voided.body));
    assert.deepEqual(await state(paymentInfoHash(termsOf(r, p), party().chainId, set().escrow)), [true, 0n, 60_000n]);
  });

  it("the same partial capture sent twice at once: one captures, the other finds the balances moved", async () => {
    const r = route({ captureMode: "deferred" });
    const p = await authorized(r);
    const capture = await capturePayload(party(), r, p, { amount: 30_000n, expected: [PRICE, 0n], sign: signs(authorizer()) });
    const answers = await Promise.all([facilitator("settle", body(p, r, capture)), facilitator("settle", body(p, r, capture))]);
    assert.deepEqual(answers.map((a) => a.body.success).sort(), [false, true], JSON.stringify(answers.map((a) => a.body)));
    assert.include(answers.find((a) => !a.body.success)!.body, { errorReason: "invalid_auth_capture_evm_unexpected_payment_state" });
    assert.deepEqual(await state(paymentInfoHash(termsOf(r, p), party().chainId, set().escrow)), [true, 70_000n, 30_000n], "captured once");
  });

  it("authorization: one charge of the amount the merchant's authorizer signed; without a receiver authorizer a charge is refused", async () => {
    const r = route({ paymentFlow: "authorization", captureMode: undefined });
    const p = await clientPayload(agent(), h.chain.publicClient, r);
    assert.include((await facilitator("verify", body(p, r))).body, { isValid: true }, "the raw form verifies");
    assert.include(
      (await facilitator("settle", body(p, r))).body,
      { success: false, errorReason: "invalid_auth_capture_evm_payload_format" },
      "settle needs it completed",
    );
    const completed = { ...p.payload, ...(await chargeCompletion(party(), r, p, 75_000n, signs(authorizer()))) };
    const charged = await facilitator("settle", body(p, r, completed));
    assert.include(charged.body, { success: true, amount: "75000" }, JSON.stringify(charged.body));
    const hash = paymentInfoHash(termsOf(r, p), party().chainId, set().escrow);
    assert.deepEqual(await state(hash), [true, 0n, 75_000n]);

    const unbound = { ...r, extra: { ...r.extra, receiverAuthorizer: undefined } };
    const q = await clientPayload(agent(), h.chain.publicClient, unbound);
    const charge = { ...q.payload, ...(await chargeCompletion(party(), unbound, q, PRICE, signs(authorizer()))) };
    const refused = await facilitator("settle", body(q, unbound, charge));
    assert.include(refused.body, { success: false, errorReason: "invalid_auth_capture_evm_missing_receiver_authorizer" }, JSON.stringify(refused.body));
  });

  it("a capture whose authorizer is a Safe 1.4.1 (ERC-1271) settles", async () => {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    const infra = await deploySafeInfrastructure(h.chain, owner);
    const safe = await createSafe(h.chain, infra, owner, [owner], 1, 58n);
    const r = route({ captureMode: "deferred" }, safe);
    const p = await authorized(r);
    const bySafe: SignTyped = (typed) => safeMessageSignature(h.chain, safe, [owner], hashTypedData(typed as never));
    const captured = await facilitator("settle", body(p, r, await capturePayload(party(), r, p, { amount: PRICE, expected: [PRICE, 0n], sign: bySafe })));
    assert.include(captured.body, { success: true, amount: PRICE.toString() }, JSON.stringify(captured.body));
    const byOwnerKey = await capturePayload(party(), r, p, { amount: 1n, expected: [0n, PRICE], sign: signs(owner) });
    assert.include((await facilitator("verify", body(p, r, byOwnerKey))).body, {
      isValid: false,
      invalidReason: "invalid_auth_capture_evm_authorizer_signature",
    });
  });

  describe("hand-made payloads refused with the spec's code", () => {
    it("an unknown escrow: invalid_auth_capture_evm_extra", async () => {
      const r = route({ authCaptureEscrow: "0x000000000000000000000000000000000000dEaD" });
      const p = await clientPayload(agent(), h.chain.publicClient, route());
      assert.include((await facilitator("verify", body(p, r))).body, { isValid: false, invalidReason: "invalid_auth_capture_evm_extra" });
    });

    it("a lifecycle payload on a collect-only route: invalid_auth_capture_evm_lifecycle_not_relayed", async () => {
      const bound = route();
      const p = await clientPayload(agent(), h.chain.publicClient, bound);
      const capture = await capturePayload(party(), bound, p, { amount: PRICE, expected: [PRICE, 0n], sign: signs(authorizer()) });
      const collectOnly = route({ receiverAuthorizer: undefined, captureMode: "deferred" });
      for (const payload of [capture, await voidPayload(party(), bound, p, signs(authorizer()))]) {
        assert.include((await facilitator("settle", body(p, collectOnly, payload))).body, {
          success: false,
          errorReason: "invalid_auth_capture_evm_lifecycle_not_relayed",
        });
      }
    });

    it("a feeBps field on a v1.1 route: invalid_auth_capture_evm_payload_format", async () => {
      const r = route({ paymentFlow: "authorization", captureMode: undefined });
      const p = await clientPayload(agent(), h.chain.publicClient, r);
      const mixed = { ...p.payload, ...(await chargeCompletion(party(), r, p, PRICE, signs(authorizer()))), feeBps: party().feeBps };
      assert.include((await facilitator("verify", body(p, r, mixed))).body, { isValid: false, invalidReason: "invalid_auth_capture_evm_payload_format" });
    });

    it("a refund payload: invalid_auth_capture_evm_refund_funding_unavailable", async () => {
      const r = route();
      const p = await clientPayload(agent(), h.chain.publicClient, r);
      const refund = {
        type: "refund",
        paymentInfo: wireInfo(termsOf(r, p)),
        saltNonce: (p.payload as { saltNonce: Hex }).saltNonce,
        amount: "1000",
        expectedCapturableAmount: "0",
        expectedRefundableAmount: PRICE.toString(),
        authorizerSignature: "0x00",
      };
      const answer = await facilitator("settle", body(p, r, refund));
      assert.include(answer.body, { success: false, errorReason: "invalid_auth_capture_evm_refund_funding_unavailable" });
      assert.include(answer.body.errorMessage, "/v1/refunds/prepare");
    });

    it("autoCapture: true: invalid_auth_capture_evm_unsupported_payment_flow", async () => {
      const r = route({ autoCapture: true });
      const p = await clientPayload(agent(), h.chain.publicClient, r);
      assert.include((await facilitator("verify", body(p, r))).body, { isValid: false, invalidReason: "invalid_auth_capture_evm_unsupported_payment_flow" });
    });

    it('operatorType "custom" or "policy": invalid_auth_capture_evm_unsupported_operator_type', async () => {
      for (const operatorType of ["custom", "policy"]) {
        const r = route({ operatorType, captureMode: "deferred" });
        const p = await clientPayload(agent(), h.chain.publicClient, r);
        assert.include((await facilitator("verify", body(p, r))).body, { isValid: false, invalidReason: "invalid_auth_capture_evm_unsupported_operator_type" });
      }
    });

    it("a policy on a delegated route: invalid_auth_capture_evm_policy; captureMode on an authorization route or sync on a collect-only one: invalid_auth_capture_evm_extra", async () => {
      for (const [extra, reason] of [
        [{ policy: stranger().address }, "invalid_auth_capture_evm_policy"],
        [{ paymentFlow: "authorization", captureMode: "sync" }, "invalid_auth_capture_evm_extra"],
        [{ receiverAuthorizer: undefined, captureMode: "sync" }, "invalid_auth_capture_evm_extra"],
      ] as const) {
        const r = route(extra);
        const p = await clientPayload(agent(), h.chain.publicClient, r);
        assert.include((await facilitator("verify", body(p, r))).body, { isValid: false, invalidReason: reason }, JSON.stringify(extra));
      }
    });

    it("a capture on an authorization route: invalid_auth_capture_evm_payload_type; a void carrying voidAuthorizerSignature: invalid_auth_capture_evm_void_authorizer_signature", async () => {
      const escrowRoute = route();
      const p = await clientPayload(agent(), h.chain.publicClient, escrowRoute);
      const capture = await capturePayload(party(), escrowRoute, p, { amount: PRICE, expected: [PRICE, 0n], sign: signs(authorizer()) });
      const charging = route({ paymentFlow: "authorization", captureMode: undefined });
      assert.include((await facilitator("settle", body(p, charging, capture))).body, { success: false, errorReason: "invalid_auth_capture_evm_payload_type" });
      const voided = { ...(await voidPayload(party(), escrowRoute, p, signs(authorizer()))), voidAuthorizerSignature: "0x00" };
      assert.include((await facilitator("settle", body(p, escrowRoute, voided))).body, {
        success: false,
        errorReason: "invalid_auth_capture_evm_void_authorizer_signature",
      });
    });

    it("a charge whose fee is not the one the equal bounds fix: invalid_auth_capture_evm_fee_bps_out_of_range", async () => {
      const r = route({ paymentFlow: "authorization", captureMode: undefined });
      const p = await clientPayload(agent(), h.chain.publicClient, r);
      const completion = await chargeCompletion(party(), r, p, PRICE, signs(authorizer()));
      const cheaper = { ...p.payload, ...completion, feeAmount: "0" };
      assert.include((await facilitator("verify", body(p, r, cheaper))).body, {
        isValid: false,
        invalidReason: "invalid_auth_capture_evm_fee_bps_out_of_range",
      });
    });

    it("an undeployed payer (an ERC-6492 envelope): invalid_auth_capture_evm_erc6492_factory_not_allowed (the allowlist is empty)", async () => {
      const r = route();
      const p = await clientPayload(agent(), h.chain.publicClient, r);
      const signature = serializeErc6492Signature({ address: stranger().address, data: "0x1234", signature: (p.payload as { signature: Hex }).signature });
      const wrapped = { ...p.payload, signature };
      assert.include((await facilitator("verify", body(p, r, wrapped))).body, {
        isValid: false,
        invalidReason: "invalid_auth_capture_evm_erc6492_factory_not_allowed",
      });
    });

    it("a salt not bound to the route's receiver authorizer: invalid_auth_capture_evm_salt_binding_mismatch", async () => {
      const r = route();
      const p = await clientPayload(agent(), h.chain.publicClient, r);
      const other = { ...p.payload, saltNonce: `0x${"11".repeat(32)}` };
      assert.include((await facilitator("verify", body(p, r, other))).body, {
        isValid: false,
        invalidReason: "invalid_auth_capture_evm_salt_binding_mismatch",
      });
    });
  });
});
