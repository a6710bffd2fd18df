import { assert } from "chai";
import { AuthCaptureServerScheme, type AuthCaptureRequirements } from "../../client/src/index.js";

/** The resource server's `auth-capture` scheme (client package): prices, requirements on the facilitator's terms, the deadlines a paid retry keeps. */
describe("AuthCaptureServerScheme", () => {
  const kind = {
    x402Version: 2,
    scheme: "auth-capture",
    network: "eip155:84532",
    extra: {
      authCaptureEscrow: "0xf96815976523E00e65Be8f34cA5e64b4f41EB19c",
      captureAuthorizer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      feeRecipient: "0x92805500B0fe54Be662109bD46De43e80D6148C2",
      minFeeBps: 200,
      maxFeeBps: 200,
      asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      name: "USDC",
      version: "2",
    },
  };
  let nowMs = 1_800_000_000_000;
  const scheme = (hold = false) => new AuthCaptureServerScheme({ hold, onHold: () => {}, now: () => nowMs });
  const base = (extra: Record<string, unknown> = {}): AuthCaptureRequirements => ({
    scheme: "auth-capture",
    network: "eip155:84532",
    amount: "10000",
    asset: "",
    payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    maxTimeoutSeconds: 300,
    extra,
  });

  it("prices in USDC micro-units by string: $0.01, 0.01, 12.5; refuses more than 6 decimals and zero", async () => {
    const s = scheme();
    assert.equal((await s.parsePrice("$0.01", "eip155:84532")).amount, "10000");
    assert.equal((await s.parsePrice("12.5", "eip155:84532")).amount, "12500000");
    assert.equal((await s.parsePrice(0.25, "eip155:84532")).amount, "250000");
    for (const bad of ["$0.0000001", "$0", "ten"]) {
      try {
        await s.parsePrice(bad, "eip155:84532");
        assert.fail(`${bad} was priced`);
      } catch (error) {
        assert.match((error as Error).message, /^auth-capture: /);
      }
    }
  });

  it("writes the facilitator's terms, USDC and the deadlines; a hold asks for the upfront flow; another facilitator's kind is refused", async () => {
    nowMs = 1_800_000_000_000;
    const charged = await scheme().enhancePaymentRequirements(base(), kind, []);
    assert.equal(charged.asset, kind.extra.asset);
    const { asset: _asset, ...terms } = kind.extra;
    assert.deepInclude(charged.extra, { ...terms, hold: false, captureDeadline: 1_800_000_000 + 300 + 600, refundDeadline: 1_800_000_000 + 300 + 600 });
    assert.notProperty(charged.extra, "paymentFlow");
    const held = await scheme().enhancePaymentRequirements(base({ hold: true }), kind, []);
    assert.deepInclude(held.extra, { hold: true, paymentFlow: "upfront", captureDeadline: 1_800_000_000 + 300 + 86_400 });
    try {
      await scheme().enhancePaymentRequirements(base(), { extra: { ...kind.extra, captureAuthorizer: undefined } }, []);
      assert.fail("a kind without an operator was used");
    } catch (error) {
      assert.match((error as Error).message, /names no captureAuthorizer/);
    }
  });

  it("a paid retry keeps the deadlines its 402 wrote (a minute later), and refuses ones this server could not have written", async () => {
    nowMs = 1_800_000_000_000;
    const s = scheme();
    const accepted = await s.enhancePaymentRequirements(base(), kind, []);
    nowMs += 60_000;
    const rebuilt = await s.enhancePaymentRequirements(base(), kind, []);
    assert.notEqual(rebuilt.extra!.captureDeadline, accepted.extra!.captureDeadline);
    const latest = Number(rebuilt.extra!.captureDeadline);
    const context = { paymentPayload: { accepted }, requirements: { ...rebuilt } };
    assert.isUndefined(await s.schemeHooks.onBeforeVerify(context));
    assert.equal(context.requirements.extra!.captureDeadline, accepted.extra!.captureDeadline);
    for (const captureDeadline of [Number(accepted.extra!.captureDeadline) - 600, latest + 60]) {
      const forged = { ...accepted, extra: { ...accepted.extra, captureDeadline, refundDeadline: captureDeadline } };
      const refused = await s.schemeHooks.onBeforeVerify({ paymentPayload: { accepted: forged }, requirements: { ...rebuilt } });
      assert.deepInclude(refused, { abort: true, reason: "invalid_auth_capture_evm_deadline_ordering" });
    }
  });

  it("takes the hold out of the settle answer and hands it to onHold", async () => {
    const holds: unknown[] = [];
    const s = new AuthCaptureServerScheme({ onHold: (hold) => void holds.push(hold) });
    const result = {
      success: true,
      transaction: "0xabc",
      extra: { hold: { payment_hash: "0x01", hold_id: "0x02", hold: "ho.secret", capture_before: 1, refund_before: 1 } },
    };
    await s.schemeHooks.onAfterSettle({ requirements: base(), result });
    assert.notProperty(result, "extra");
    assert.deepEqual(holds, [{ payment_hash: "0x01", hold_id: "0x02", hold: "ho.secret", capture_before: 1, refund_before: 1 }]);
  });
});
