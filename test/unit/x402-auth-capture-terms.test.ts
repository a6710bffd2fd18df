import { assert } from "chai";
import { getAddress, toHex, verifyTypedData, zeroAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { receiveAuthorizationTypedData, tokenDomain } from "../../src/chain/token-authorizations.js";
import { loadLiveDeployment } from "../../src/deployments.js";
import { payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "../../src/holds/payment-info.js";
import { boundSalt, chargeTypedData } from "../../src/x402/auth-capture-authorizer.js";
import { addressOrZero, judgeAuthCapture, PERMIT2_REFUSAL, type AuthCaptureTerms, type ChainEyes } from "../../src/x402/auth-capture-terms.js";
import { AUTH_CAPTURE_REASONS as R } from "../../src/x402/reasons.js";
import type { Refusal } from "../../src/x402/refusals.js";
import type { X402FacilitatorRequest } from "../../src/wire/index.js";

/**
 * The facilitator's verification of an `auth-capture` client payload (x402's EVM binding v1.1,
 * "Verification — Client payment payload", steps 1 and 6 to 14), each rule answered with the binding's
 * `invalid_auth_capture_evm_…` code. The chain is a fake of our own: a fixed time, and signatures
 * checked offline (ECDSA), as a node's ERC-1271-aware check answers for an EOA.
 */
const deployment = loadLiveDeployment(84532);
const [holdsSet, otherSet] = deployment.authCapture as [NonNullable<typeof deployment.authCapture>[0], NonNullable<typeof deployment.authCapture>[0]];
const token = deployment.token.address;
const feeCollector = deployment.parameters.feeCollector;
const FEE_BPS = deployment.parameters.feeBps;
const OPERATOR = getAddress("0x5555555555555555555555555555555555555555");
const PAY_TO = getAddress("0x3333333333333333333333333333333333333333");
const service = { deployment, operator: OPERATOR, minUnits: 10_000n };
const NETWORK = "eip155:84532";
const payer = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const merchant = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const stranger = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a");
const NOW = 1_800_000_000n;
const eyes: ChainEyes = {
  now: NOW,
  signed: (address, typed, signature) => verifyTypedData({ ...(typed as Parameters<typeof verifyTypedData>[0]), address, signature }),
};
const ERC6492_SUFFIX = "6492649264926492649264926492649264926492649264926492649264926492";

interface Case {
  flow?: "escrow" | "authorization";
  /** The route names the merchant as receiver authorizer (its salt then bound to it). */
  bound?: boolean;
  amount?: bigint;
  captureDeadline?: bigint;
  refundDeadline?: bigint;
  maxTimeoutSeconds?: number;
  /** The escrow set the client pays through; `named`: extra.authCaptureEscrow names it. */
  set?: typeof holdsSet;
  named?: boolean;
  extra?: Record<string, unknown>;
  /** What the client signs, where it differs from the route's terms. */
  signed?: Partial<{ to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; salt: bigint; by: typeof payer }>;
  /** A completed charge of this amount (authorization flow), and what the server changes of it. */
  charge?: bigint;
  completion?: Partial<{ feeAmount: bigint; feeReceiver: Address; by: typeof payer; signedAmount: bigint }>;
  payload?: (payload: Record<string, unknown>) => Record<string, unknown>;
}

/** A client payload and its route, as @x402/evm's client and a conformant resource server write them. */
async function paid(c: Case = {}) {
  const flow = c.flow ?? "escrow";
  const bound = c.bound ?? true;
  const amount = c.amount ?? 1_000_000n;
  const captureDeadline = c.captureDeadline ?? NOW + 3600n;
  const refundDeadline = c.refundDeadline ?? NOW + 86_400n;
  const set = c.set ?? holdsSet;
  const validBefore = c.signed?.validBefore ?? NOW + 600n;
  const saltNonce = 42n;
  const salt = c.signed?.salt ?? (bound ? boundSalt(merchant.address, zeroAddress, saltNonce) : 7n);
  const extra: Record<string, unknown> = {
    name: "USDC",
    version: "2",
    ...((c.named ?? true) ? { authCaptureEscrow: set.escrow } : {}),
    captureAuthorizer: OPERATOR,
    ...(bound ? { receiverAuthorizer: merchant.address } : {}),
    feeRecipient: feeCollector,
    minFeeBps: FEE_BPS,
    maxFeeBps: FEE_BPS,
    captureDeadline: Number(captureDeadline),
    refundDeadline: Number(refundDeadline),
    paymentFlow: flow,
    ...(flow === "escrow" ? { captureMode: bound ? "sync" : "deferred" } : {}),
    ...c.extra,
  };
  const info: PaymentInfo = {
    operator: OPERATOR,
    payer: payer.address,
    receiver: PAY_TO,
    token,
    maxAmount: amount,
    preApprovalExpiry: Number(validBefore),
    authorizationExpiry: Number(captureDeadline),
    refundExpiry: Number(refundDeadline),
    minFeeBps: FEE_BPS,
    maxFeeBps: FEE_BPS,
    feeReceiver: feeCollector,
    salt,
  };
  const authorization = {
    from: payer.address,
    to: c.signed?.to ?? set.eip3009Collector,
    value: c.signed?.value ?? amount,
    validAfter: c.signed?.validAfter ?? 0n,
    validBefore,
    nonce: c.signed?.nonce ?? payerAgnosticHash(info, 84532, set.escrow),
  };
  const signature = await (c.signed?.by ?? payer).signTypedData(
    receiveAuthorizationTypedData(tokenDomain(84532, token, deployment.token.eip712), authorization) as never,
  );
  let payload: Record<string, unknown> = {
    signature,
    authorization: Object.fromEntries(Object.entries(authorization).map(([k, v]) => [k, String(v)])),
    salt: toHex(salt, { size: 32 }),
    ...(bound ? { saltNonce: toHex(saltNonce, { size: 32 }) } : {}),
  };
  const paymentHash = paymentInfoHash(info, 84532, set.escrow);
  if (c.charge !== undefined) {
    const feeAmount = c.completion?.feeAmount ?? (c.charge * BigInt(FEE_BPS)) / 10_000n;
    const feeReceiver = c.completion?.feeReceiver ?? feeCollector;
    const consent = {
      paymentInfoHash: paymentHash,
      amount: c.completion?.signedAmount ?? c.charge,
      tokenCollector: set.eip3009Collector,
      collectorData: signature,
      feeAmount,
      feeReceiver,
    };
    const authorizerSignature = await (c.completion?.by ?? merchant).signTypedData(chargeTypedData(84532, OPERATOR, consent));
    payload = { ...payload, amount: c.charge.toString(), feeAmount: feeAmount.toString(), feeReceiver, authorizerSignature };
  }
  if (c.payload) payload = c.payload(payload);
  const requirements = {
    scheme: "auth-capture",
    network: NETWORK,
    amount: amount.toString(),
    asset: token,
    payTo: PAY_TO,
    maxTimeoutSeconds: c.maxTimeoutSeconds ?? 300,
    extra,
  };
  const request: X402FacilitatorRequest = {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: requirements, payload },
    paymentRequirements: requirements,
  };
  return { request, info, paymentHash, signature, set };
}

const judge = async (c: Case = {}, settling = true) => judgeAuthCapture((await paid(c)).request, service, NETWORK, eyes, settling);
const accepted = async (c: Case = {}, settling = true): Promise<AuthCaptureTerms> => {
  const verdict = await judge(c, settling);
  assert.notProperty(verdict, "reason", "reason" in verdict ? `${verdict.reason}: ${verdict.message}` : "");
  return verdict as AuthCaptureTerms;
};
async function refused(c: Case, reason: string, message?: RegExp, settling = true): Promise<Refusal> {
  const verdict = await judge(c, settling);
  assert.deepInclude(verdict, { reason }, "reason" in verdict ? `${verdict.reason}: ${verdict.message}` : "accepted");
  const refusal = verdict as Refusal;
  if (message) assert.match(refusal.message!, message);
  return refusal;
}

describe("x402 auth-capture: a client payload's verification (EVM binding v1.1, steps 1, 6–14)", () => {
  it("accepts an escrow-flow authorize as the escrow will read it: the payer, its terms, their hash, the escrow set", async () => {
    const { info, paymentHash, signature } = await paid();
    const terms = await accepted();
    assert.equal(terms.payer, payer.address);
    assert.deepEqual(terms.info, info);
    assert.equal(terms.paymentHash, paymentHash);
    assert.equal(terms.signature, signature);
    assert.deepEqual(terms.escrow, holdsSet);
    assert.equal(terms.operation, "authorize");
    assert.notProperty(terms, "charge");
    assert.deepInclude(terms.route, { paymentFlow: "escrow", receiver: PAY_TO, amount: 1_000_000n });
  });

  it("accepts a collect-only route (no receiver authorizer): its salt is the client's own, no saltNonce", async () => {
    const terms = await accepted({ bound: false });
    assert.equal(terms.info.salt, 7n);
    assert.equal(terms.operation, "authorize");
  });

  it("accepts a completed charge: its amount up to the whole, the fee floor(amount × fee_bps / 10,000), the merchant's consent", async () => {
    for (const amount of [600_000n, 1_000_000n, 1n]) {
      const terms = await accepted({ flow: "authorization", charge: amount });
      assert.equal(terms.operation, "charge");
      assert.deepEqual(terms.charge, {
        amount,
        feeAmount: (amount * BigInt(FEE_BPS)) / 10_000n,
        feeReceiver: feeCollector,
        authorizerSignature: ((await paid({ flow: "authorization", charge: amount })).request.paymentPayload.payload as { authorizerSignature: Hex })
          .authorizerSignature,
      });
    }
    // Capitals are no checksum: the fee receiver is read in any case.
    const upper = (a: unknown) => `0x${String(a).slice(2).toUpperCase()}`;
    const capitals = await accepted({ flow: "authorization", charge: 1n, payload: (p) => ({ ...p, feeReceiver: upper(p.feeReceiver) }) });
    assert.equal(capitals.charge!.feeReceiver, feeCollector);
  });

  describe("step 1: the payload's shape (invalid_auth_capture_evm_payload_format)", () => {
    it("refuses a Permit2 payload, in the facilitator's words, naming the payer where it can", async () => {
      const refusal = await refused({ payload: (p) => ({ ...p, permit2Authorization: {} }) }, R.payloadFormat);
      assert.equal(refusal.message, PERMIT2_REFUSAL);
      assert.equal(refusal.payer, payer.address);
      await refused({ extra: { assetTransferMethod: "permit2" } }, R.payloadFormat, /Permit2/);
    });

    it("refuses a payload that is not an ERC-3009 authorization with a 32-byte salt; no payer is named from it", async () => {
      for (const payload of [
        (p: Record<string, unknown>) => ({ ...p, salt: "0x07" }),
        (p: Record<string, unknown>) => ({ ...p, salt: `${p.salt}00` }),
        (p: Record<string, unknown>) => ({ ...p, salt: `0${p.salt}` }),
        (p: Record<string, unknown>) => ({ ...p, saltNonce: "0x2a" }),
        (p: Record<string, unknown>) => ({ ...p, authorization: { ...(p.authorization as object), from: "0x12" } }),
        (p: Record<string, unknown>) => ({ signature: p.signature, salt: p.salt, saltNonce: p.saltNonce }),
      ]) {
        const refusal = await refused({ payload }, R.payloadFormat, /ERC-3009 authorization to the escrow's collector/);
        assert.notProperty(refusal, "payer");
      }
      for (const field of ["amount", "feeAmount"]) {
        for (const bad of ["-1", "1.5", "", `${"9".repeat(79)}`]) {
          await refused({ flow: "authorization", charge: 1n, payload: (p) => ({ ...p, [field]: bad }) }, R.payloadFormat, /ERC-3009/);
        }
      }
      await refused({ flow: "authorization", charge: 1n, payload: (p) => ({ ...p, feeReceiver: "0x12" }) }, R.payloadFormat, /ERC-3009/);
      for (const bad of ["0x", "0x1", "0xzz", "ab", "zz0x1234", "0x1234zz"]) {
        await refused({ flow: "authorization", charge: 1n, payload: (p) => ({ ...p, authorizerSignature: bad }) }, R.payloadFormat, /ERC-3009/);
      }
    });

    it("wants saltNonce exactly where the route binds a receiver authorizer", async () => {
      await refused({ payload: ({ saltNonce: _s, ...p }) => p }, R.payloadFormat, /binds a receiver authorizer: the payload must carry saltNonce/);
      await refused({ bound: false, payload: (p) => ({ ...p, saltNonce: toHex(42n, { size: 32 }) }) }, R.payloadFormat, /^saltNonce is for a route that binds/);
    });

    it("refuses v1.0's feeBps, and a charge's completion in part, on an authorize, or missing at /settle (a raw charge verifies)", async () => {
      await refused({ payload: (p) => ({ ...p, feeBps: 200 }) }, R.payloadFormat, /feeBps is v1\.0's fee field/);
      for (const field of ["amount", "feeAmount", "feeReceiver", "authorizerSignature"]) {
        await refused({ flow: "authorization", charge: 1n, payload: ({ [field]: _f, ...p }) => p }, R.payloadFormat, /together/);
      }
      const completed = (await paid({ flow: "authorization", charge: 1n })).request.paymentPayload.payload;
      const { signature: _s, authorization: _a, salt: _salt, saltNonce: _n, ...completion } = completed;
      await refused({ payload: (p) => ({ ...p, ...completion }) }, R.payloadFormat, /^an authorize settles the client's payload as it arrived/);
      await refused({ flow: "authorization" }, R.payloadFormat, /^\/settle needs the charge completed/);
      const raw = await accepted({ flow: "authorization" }, false);
      assert.equal(raw.operation, "charge");
      assert.notProperty(raw, "charge");
    });
  });

  it("steps 2 to 5: passes on the route's refusal, naming the payer", async () => {
    const refusal = await refused({ extra: { captureAuthorizer: merchant.address } }, R.operatorNotAdmitted);
    assert.equal(refusal.payer, payer.address);
  });

  it("step 6: the asset transfer method is eip3009 (written out or absent); any other is unsupported", async () => {
    await accepted({ extra: { assetTransferMethod: "eip3009" } });
    await refused({ extra: { assetTransferMethod: "erc7710" } }, R.transferMethod, /"eip3009"/);
  });

  describe("steps 7 and 8: deadlines and the authorization's window", () => {
    it("orders now + maxTimeoutSeconds and validBefore, then captureDeadline, then refundDeadline (equal is in order)", async () => {
      const order = /^the deadlines must be in order/;
      await accepted({ captureDeadline: NOW + 3600n, refundDeadline: NOW + 3600n, maxTimeoutSeconds: 3600, signed: { validBefore: NOW + 3600n } });
      await refused({ captureDeadline: NOW + 3600n, refundDeadline: NOW + 3599n }, R.deadlineOrdering, order);
      await refused({ captureDeadline: NOW + 3600n, maxTimeoutSeconds: 3601 }, R.deadlineOrdering, order);
      await refused({ captureDeadline: NOW + 3600n, signed: { validBefore: NOW + 3601n } }, R.deadlineOrdering, order);
    });

    it("wants more than 6 s left to the capture deadline", async () => {
      await refused(
        { captureDeadline: NOW + 6n, maxTimeoutSeconds: 1, signed: { validBefore: NOW + 6n } },
        R.captureDeadlineExpired,
        /capture deadline is past/,
      );
      await accepted({ captureDeadline: NOW + 7n, maxTimeoutSeconds: 1, signed: { validBefore: NOW + 7n } });
    });

    it("keeps a hold's limits: the capture deadline at most 30 days away, the refund deadline at most a year", async () => {
      const limits = /^captureDeadline at most 2592000 s and refundDeadline at most 31536000 s from now/;
      await accepted({ captureDeadline: NOW + 2_592_000n, refundDeadline: NOW + 31_536_000n });
      await refused({ captureDeadline: NOW + 2_592_001n, refundDeadline: NOW + 31_536_000n }, R.extra, limits);
      await refused({ refundDeadline: NOW + 31_536_001n }, R.extra, limits);
    });

    it("wants more than 6 s left on the authorization, and a validAfter of 0 (one to come: not yet valid)", async () => {
      await refused({ signed: { validBefore: NOW + 6n } }, R.authorizationExpired, /validBefore is past/);
      await accepted({ signed: { validBefore: NOW + 7n } });
      await refused({ signed: { validAfter: NOW + 1n } }, R.notYetValid, /validAfter is to come/);
      await refused({ signed: { validAfter: NOW } }, R.payloadFormat, /validAfter must be 0/);
      await refused({ signed: { validAfter: 1n } }, R.payloadFormat, /validAfter must be 0/);
    });
  });

  describe("step 9: the collector, from this deployment", () => {
    it("refuses an authorization to another collector than the named escrow's, naming the right one", async () => {
      const refusal = await refused({ signed: { to: otherSet.eip3009Collector } }, R.collector);
      assert.equal(refusal.message, `the authorization must pay the escrow's ERC-3009 collector (${holdsSet.eip3009Collector})`);
    });

    it("with no escrow named, takes the set whose collector the client paid, and refuses one not listed, naming the listed", async () => {
      const terms = await accepted({ named: false, flow: "authorization", set: otherSet, charge: 1n });
      assert.deepEqual(terms.escrow, otherSet);
      assert.equal(terms.paymentHash, (await paid({ named: false, flow: "authorization", set: otherSet, charge: 1n })).paymentHash);
      assert.deepEqual((await accepted({ named: false })).escrow, holdsSet);
      const refusal = await refused({ named: false, signed: { to: PAY_TO } }, R.collector);
      assert.equal(refusal.message, `the authorization must pay the escrow's ERC-3009 collector (${holdsSet.eip3009Collector}, ${otherSet.eip3009Collector})`);
    });

    it("runs the escrow flow on the holds' escrow only (its capture and void are sent there)", async () => {
      await refused({ set: otherSet }, R.extra, new RegExp(`^the escrow flow runs on the holds' escrow \\(${holdsSet.escrow}\\)`));
      await refused({ set: otherSet, named: false }, R.extra, /holds' escrow/);
      assert.equal((await accepted({ set: otherSet, flow: "authorization", charge: 1n })).escrow.escrow, otherSet.escrow);
    });
  });

  describe("step 11: the client's signature", () => {
    it("refuses an undeployed account's ERC-6492 signature (its magic suffix): no factory is admitted", async () => {
      await refused({ payload: (p) => ({ ...p, signature: `${p.signature}${ERC6492_SUFFIX}` }) }, R.erc6492, /deploy the account first/);
    });

    it("is the payer's over exactly this authorization: another signer, or any signed field changed, is refused", async () => {
      const notPayers = /^the signature is not the payer's over this authorization$/;
      await refused({ signed: { by: stranger } }, R.signature, notPayers);
      const { request } = await paid();
      const auth = (request.paymentPayload.payload as { authorization: Record<string, string> }).authorization;
      for (const [field, value] of Object.entries({ value: "1000001", validBefore: String(NOW + 601n), nonce: toHex(1n, { size: 32 }) })) {
        await refused({ payload: (p) => ({ ...p, authorization: { ...auth, [field]: value } }) }, R.signature, notPayers);
      }
    });
  });

  describe("step 12: the amount and the fee", () => {
    it("wants the authorization's value to be the amount required", async () => {
      await refused({ signed: { value: 999_999n } }, R.amount, /value is not the amount required/);
      await refused({ signed: { value: 1_000_001n } }, R.amount, /value is not the amount required/);
    });

    it("wants a charge's amount above zero and at most the amount required", async () => {
      for (const amount of [0n, 1_000_001n]) await refused({ flow: "authorization", charge: amount }, R.amount, /above zero and at most the amount required/);
    });

    it("wants the fee at exactly the bounds' amount, to the fee collector", async () => {
      const fee = (600_000n * BigInt(FEE_BPS)) / 10_000n;
      for (const feeAmount of [fee - 1n, fee + 1n]) {
        await refused({ flow: "authorization", charge: 600_000n, completion: { feeAmount } }, R.feeOutOfRange, /^the fee must be floor\(amount × 200/);
      }
      const refusal = await refused({ flow: "authorization", charge: 600_000n, completion: { feeReceiver: PAY_TO } }, R.feeReceiver);
      assert.equal(refusal.message, `the fee receiver must be extra.feeRecipient (${feeCollector})`);
    });
  });

  describe("steps 13 and 14: the nonce, the salt's binding, the authorizer's consent", () => {
    it("wants the nonce to be the terms' hash with the payer left out (in any case of hex)", async () => {
      await refused({ signed: { nonce: toHex(1n, { size: 32 }) } }, R.nonceMismatch, /signed for other terms/);
      const { info } = await paid();
      await refused({ signed: { nonce: paymentInfoHash(info, 84532, holdsSet.escrow) } }, R.nonceMismatch);
      const upper = payerAgnosticHash(info, 84532, holdsSet.escrow).toUpperCase().replace("0X", "0x") as Hex;
      await accepted({ signed: { nonce: upper } });
    });

    it("wants a bound route's salt to commit to its receiver authorizer, no policy and the saltNonce", async () => {
      await refused({ signed: { salt: 7n } }, R.saltBinding, /^the salt is not the commitment/);
      await refused({ signed: { salt: boundSalt(merchant.address, zeroAddress, 43n) } }, R.saltBinding);
    });

    it("wants the receiver authorizer's Charge consent over exactly these terms", async () => {
      const consent = /^the authorizer signature is not the receiver authorizer's Charge/;
      await refused({ flow: "authorization", charge: 600_000n, completion: { by: stranger } }, R.authorizerSignature, consent);
      await refused({ flow: "authorization", charge: 600_000n, completion: { signedAmount: 600_001n } }, R.authorizerSignature, consent);
    });
  });

  it("reads an extra address as the binding does: absent, not a string or not an address is the zero address; any case, checksummed", () => {
    for (const value of [undefined, 5, "0x12", `${PAY_TO}0`, [merchant.address]]) assert.equal(addressOrZero(value), zeroAddress, String(value));
    assert.equal(addressOrZero(PAY_TO.toLowerCase()), PAY_TO);
    assert.equal(addressOrZero(`0x${merchant.address.slice(2).toUpperCase()}`), merchant.address);
  });
});
