import { assert } from "chai";
import { hashTypedData, recoverTypedDataAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { AuthCaptureServerScheme, type AuthCaptureRequirements, type AuthorizedPayment } from "../../client/src/index.js";
import { captureTypedData as clientCapture, paymentInfoHash as clientHash } from "../../client/src/x402-auth-capture-consent.js";
import { paymentInfoHash } from "../../src/holds/payment-info.js";
import { captureTypedData } from "../../src/x402/auth-capture-authorizer.js";

/** The resource server's `auth-capture` scheme (client package): prices, requirements on the facilitator's terms and the route's, the deadlines a paid retry keeps, its consents. */
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
  const authorizer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const signer = { address: authorizer.address, signTypedData: (typed: object) => authorizer.signTypedData(typed as never) };
  const scheme = () => new AuthCaptureServerScheme({ onAuthorized: () => {}, now: () => nowMs });
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

  it("writes the facilitator's terms, USDC, the route's flow, finalize mode and authorizer, and the deadlines; another facilitator's kind is refused", async () => {
    nowMs = 1_800_000_000_000;
    const collectOnly = await scheme().enhancePaymentRequirements(base(), kind, []);
    assert.equal(collectOnly.asset, kind.extra.asset);
    const { asset: _asset, ...terms } = kind.extra;
    assert.deepInclude(collectOnly.extra, { ...terms, paymentFlow: "escrow", captureMode: "deferred", captureDeadline: 1_800_000_000 + 300 + 86_400 });
    assert.notProperty(collectOnly.extra, "receiverAuthorizer");
    const sync = await new AuthCaptureServerScheme({ authorizer: signer, now: () => nowMs }).enhancePaymentRequirements(base(), kind, []);
    assert.deepInclude(sync.extra, {
      paymentFlow: "escrow",
      captureMode: "sync",
      receiverAuthorizer: authorizer.address,
      captureDeadline: 1_800_000_000 + 300 + 600,
    });
    const charge = await new AuthCaptureServerScheme({ authorizer: signer, paymentFlow: "authorization" }).enhancePaymentRequirements(base(), kind, []);
    assert.include(charge.extra, { paymentFlow: "authorization" });
    assert.notProperty(charge.extra, "captureMode", "captureMode is the escrow flow's alone");
    for (const [s, why] of [
      [new AuthCaptureServerScheme({ paymentFlow: "authorization" }), /a charge needs the merchant's consent/],
      [new AuthCaptureServerScheme(), /needs onAuthorized/],
    ] as const) {
      try {
        await s.enhancePaymentRequirements(base(), kind, []);
        assert.fail("a route it cannot serve was written");
      } catch (error) {
        assert.match((error as Error).message, why);
      }
    }
    try {
      await scheme().enhancePaymentRequirements(base(), { extra: { ...kind.extra, captureAuthorizer: undefined } }, []);
      assert.fail("a kind without an operator was used");
    } catch (error) {
      assert.match((error as Error).message, /names no captureAuthorizer/);
    }
  });

  it("its offline paymentInfoHash and Capture typed data are the escrow's and the facilitator's: the digest the authorizer signs recovers to it", async () => {
    const info = {
      operator: kind.extra.captureAuthorizer,
      payer: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
      receiver: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      token: kind.extra.asset,
      maxAmount: "100000",
      preApprovalExpiry: 1_800_000_300,
      authorizationExpiry: 1_800_000_900,
      refundExpiry: 1_800_000_900,
      minFeeBps: 200,
      maxFeeBps: 200,
      feeReceiver: kind.extra.feeRecipient,
      salt: `0x${"ab".repeat(32)}`,
    };
    const ours = {
      ...info,
      operator: info.operator as `0x${string}`,
      payer: info.payer as `0x${string}`,
      receiver: info.receiver as `0x${string}`,
      token: info.token as `0x${string}`,
      feeReceiver: info.feeReceiver as `0x${string}`,
      maxAmount: 100_000n,
      salt: BigInt(info.salt),
    };
    const hash = clientHash(info, 84532, kind.extra.authCaptureEscrow);
    assert.equal(hash, paymentInfoHash(ours, 84532, kind.extra.authCaptureEscrow as `0x${string}`));
    const consent = {
      paymentInfoHash: hash,
      amount: "60000",
      feeAmount: "1200",
      feeReceiver: kind.extra.feeRecipient,
      expectedCapturableAmount: "100000",
      expectedRefundableAmount: "0",
    };
    const typed = clientCapture(84532, info.operator, consent);
    const facilitator = captureTypedData(84532, info.operator as `0x${string}`, {
      ...consent,
      feeReceiver: consent.feeReceiver as `0x${string}`,
      amount: 60_000n,
      feeAmount: 1_200n,
      expectedCapturableAmount: 100_000n,
      expectedRefundableAmount: 0n,
    });
    assert.equal(hashTypedData(typed as never), hashTypedData(facilitator));
    assert.equal(await recoverTypedDataAddress({ ...facilitator, signature: await signer.signTypedData(typed) }), authorizer.address);
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

  it("after a collect-only authorize, takes the hold out of the settle answer and hands the payment to onAuthorized", async () => {
    const kept: AuthorizedPayment[] = [];
    const s = new AuthCaptureServerScheme({ onAuthorized: (payment) => void kept.push(payment) });
    const requirements = await s.enhancePaymentRequirements(base(), kind, []);
    const result = {
      success: true,
      transaction: "0xabc",
      network: "eip155:84532" as const,
      extra: { hold: { payment_hash: "0x01", hold_id: "0x02", hold: "ho.secret", capture_before: 1, refund_before: 1 } },
    };
    const authorization = {
      from: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
      to: "0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88",
      value: "10000",
      validBefore: "1800000300",
    };
    const paymentPayload = { accepted: requirements, payload: { authorization, signature: "0x01", salt: `0x${"01".repeat(32)}` } };
    await s.schemeHooks.onAfterSettle({ paymentPayload, requirements, phase: "before-handler", result });
    assert.notProperty(result, "extra");
    assert.lengthOf(kept, 1);
    assert.deepEqual(kept[0]!.hold, { payment_hash: "0x01", hold_id: "0x02", hold: "ho.secret", capture_before: 1, refund_before: 1 });
    assert.include(kept[0]!, { transaction: "0xabc", capturableAmount: "10000", refundableAmount: "0" });
    assert.notProperty(kept[0]!, "saltNonce", "an unbound payment has none");
  });
});
