import { getAddress, isAddress, isAddressEqual, zeroAddress, type Hex } from "viem";
import { z } from "zod";
import { holdsEscrowSet, type EscrowSet } from "../deployments.js";
import { feeAmountOf } from "../holds/fee.js";
import { paymentInfoHash, type PaymentInfo } from "../holds/payment-info.js";
import type { X402FacilitatorRequest } from "../wire/index.js";
import { boundSalt, captureTypedData, voidTypedData } from "./auth-capture-authorizer.js";
import { judgeRoute, type AuthCaptureRoute, type AuthCaptureService } from "./auth-capture-route.js";
import { addressOrZero, type ChainEyes } from "./auth-capture-terms.js";
import { AUTH_CAPTURE_REASONS } from "./reasons.js";
import type { Refusal } from "./refusals.js";

const word = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const units = z.string().regex(/^[0-9]{1,78}$/);
const address = z.string().refine((a) => isAddress(a, { strict: false }));
const bytes = z.string().regex(/^0x([0-9a-fA-F]{2})+$/);
const uint48 = z
  .number()
  .int()
  .min(0)
  .max(2 ** 48 - 1);
const bps = z.number().int().min(0).max(10_000);

/** `PaymentInfo` on the wire: the exact struct the escrow call takes, amounts as strings, the salt as 32 bytes. */
const WirePaymentInfo = z.object({
  operator: address,
  payer: address,
  receiver: address,
  token: address,
  maxAmount: units,
  preApprovalExpiry: uint48,
  authorizationExpiry: uint48,
  refundExpiry: uint48,
  minFeeBps: bps,
  maxFeeBps: bps,
  feeReceiver: address,
  salt: word,
});

/**
 * The lifecycle payloads a server authors (`payload.type`). Loose: a sync finalize adds them to the
 * client's own payload (@x402/core's enrichment is additive), whose fields are not read here.
 */
const LifecycleBase = { paymentInfo: WirePaymentInfo, saltNonce: word, authorizerSignature: bytes.optional() };
const CapturePayload = z.looseObject({
  type: z.literal("capture"),
  ...LifecycleBase,
  amount: units,
  feeAmount: units,
  feeReceiver: address,
  expectedCapturableAmount: units,
  expectedRefundableAmount: units,
  voidAuthorizerSignature: bytes.optional(),
});
const VoidPayload = z.looseObject({ type: z.literal("void"), ...LifecycleBase });
const RefundPayload = z.looseObject({
  type: z.literal("refund"),
  ...LifecycleBase,
  amount: units,
  expectedCapturableAmount: units,
  expectedRefundableAmount: units,
});

/** The escrow's ledger of a payment (`paymentState`), the two balances the single-use rule reads. */
export interface EscrowBalances {
  capturable: bigint;
  refundable: bigint;
}

/** A lifecycle payload that passed verification up to its preconditions: the call to relay. */
export type LifecycleCall = {
  info: PaymentInfo;
  paymentHash: Hex;
  escrow: EscrowSet;
  route: AuthCaptureRoute;
} & ({ type: "capture"; amount: bigint; feeAmount: bigint; expected: EscrowBalances; voidRemainder: boolean } | { type: "void" });

/** Whether a settle payload is a lifecycle one: only those carry `payload.type`. */
export function isLifecyclePayload(payload: Record<string, unknown>): boolean {
  return "type" in payload;
}

/**
 * The binding's "Verification — Lifecycle payloads" up to the operation's preconditions (read by
 * {@link lifecyclePreconditions} from the escrow's state): collect-only routes refused first and with
 * nothing else checked, the shape, steps 2 to 5 as for a client payload, refunds (this service holds
 * no funds to pay them from), then the operator, the salt's binding, the terms, and the authorizer's
 * signatures over the operation.
 */
export async function judgeLifecycle(
  request: X402FacilitatorRequest,
  service: AuthCaptureService,
  network: string,
  eyes: Pick<ChainEyes, "signed">,
): Promise<LifecycleCall | Refusal> {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  const fields = payload.payload;
  const raw = requirements.extra ?? {};
  const payerOf = (fields.paymentInfo as { payer?: unknown } | undefined)?.payer;
  const payer = typeof payerOf === "string" && isAddress(payerOf, { strict: false }) ? getAddress(payerOf) : undefined;
  const refuse = (reason: string, message: string): Refusal => ({ reason, message, ...(payer ? { payer } : {}) });
  const type = fields.type;
  if (type !== "capture" && type !== "void" && type !== "refund")
    return refuse(AUTH_CAPTURE_REASONS.payloadType, 'payload.type must be "capture", "void" or "refund"');
  if ((raw.operatorType ?? "delegated") === "custom" || addressOrZero(raw.receiverAuthorizer) === zeroAddress) {
    return refuse(
      AUTH_CAPTURE_REASONS.lifecycleNotRelayed,
      "this route is collect-only (no receiver authorizer): its capture, void and refund run out of band, through /v1/holds with the hold's ho capability",
    );
  }
  if (type !== "capture" && fields.voidAuthorizerSignature !== undefined)
    return refuse(AUTH_CAPTURE_REASONS.voidAuthorizerSignature, "voidAuthorizerSignature belongs to a capture payload only");
  const parsed = (type === "capture" ? CapturePayload : type === "void" ? VoidPayload : RefundPayload).safeParse(fields);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.map(String).join(".") || "payload";
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, `the ${type} payload's ${field} is missing or not of its form`);
  }
  // The route is judged at the client's ceiling (`accepted`): @x402/core lowers the settle's requirements'
  // amount to the server's Settlement-Overrides amount, down to 0 for a void.
  const atCeiling = { ...request, paymentRequirements: { ...requirements, amount: payload.accepted.amount } };
  const route = judgeRoute(atCeiling, service, network, payer);
  if ("reason" in route) return route;
  if (type === "refund") {
    return refuse(
      AUTH_CAPTURE_REASONS.refundFunding,
      "this service holds no funds to pay a refund from: the merchant refunds with its own funds (POST /v1/refunds/prepare)",
    );
  }
  if (route.paymentFlow !== "escrow") return refuse(AUTH_CAPTURE_REASONS.payloadType, `an "authorization" route places no hold: there is nothing to ${type}`);
  const p = parsed.data as z.infer<typeof CapturePayload> | z.infer<typeof VoidPayload>;
  const info = infoOf(p.paymentInfo);
  // 1. Operator match.
  if (!isAddressEqual(info.operator, route.operator))
    return refuse(AUTH_CAPTURE_REASONS.operatorMismatch, "paymentInfo.operator is not extra.captureAuthorizer");
  // 2. Salt binding: no client signature here enforces it transitively.
  if (boundSalt(route.receiverAuthorizer, route.policy, BigInt(p.saltNonce)) !== info.salt)
    return refuse(AUTH_CAPTURE_REASONS.saltBinding, "paymentInfo.salt is not the commitment to this route's receiver authorizer, policy and the saltNonce");
  // 3. Requirements match, the ceiling the client's.
  const { deployment } = service;
  const terms =
    isAddressEqual(info.receiver, route.receiver) &&
    isAddressEqual(info.token, deployment.token.address) &&
    info.maxAmount === route.amount &&
    info.authorizationExpiry === route.captureDeadline &&
    info.refundExpiry === route.refundDeadline &&
    info.minFeeBps === route.feeBps &&
    info.maxFeeBps === route.feeBps &&
    isAddressEqual(info.feeReceiver, route.feeRecipient);
  if (!terms) return refuse(AUTH_CAPTURE_REASONS.extra, "paymentInfo is not the terms these requirements dictate (payTo, asset, amount, deadlines, fees)");
  const holds = holdsEscrowSet(deployment)!;
  const escrow = route.named ?? holds;
  if (!isAddressEqual(escrow.escrow, holds.escrow))
    return refuse(AUTH_CAPTURE_REASONS.extra, `holds are captured and voided on the holds' escrow (${holds.escrow}) only`);
  const paymentHash = paymentInfoHash(info, deployment.chainId, escrow.escrow);
  // 4. The authorizer's signature (delegating it to this facilitator is not offered: /supported names no receiverAuthorizer).
  const noConsent = refuse(
    AUTH_CAPTURE_REASONS.authorizerSignature,
    `the authorizer signature is not the receiver authorizer's ${type === "capture" ? "Capture" : "Void"} over this request`,
  );
  if (!p.authorizerSignature) return noConsent;
  const base = { info, paymentHash, escrow, route };
  if (p.type === "void") {
    const signed = await eyes.signed(route.receiverAuthorizer, voidTypedData(deployment.chainId, route.operator, paymentHash), p.authorizerSignature as Hex);
    return signed ? { ...base, type: "void" } : noConsent;
  }
  const capture = p as z.infer<typeof CapturePayload>;
  const amount = BigInt(capture.amount);
  const feeAmount = BigInt(capture.feeAmount);
  const feeReceiver = getAddress(capture.feeReceiver);
  const expected = { capturable: BigInt(capture.expectedCapturableAmount), refundable: BigInt(capture.expectedRefundableAmount) };
  const consent = captureTypedData(deployment.chainId, route.operator, {
    paymentInfoHash: paymentHash,
    amount,
    feeAmount,
    feeReceiver,
    expectedCapturableAmount: expected.capturable,
    expectedRefundableAmount: expected.refundable,
  });
  if (!(await eyes.signed(route.receiverAuthorizer, consent, capture.authorizerSignature as Hex))) return noConsent;
  // 5. The sync close-out's Void, checked as a standalone void's.
  const voidRemainder = capture.voidAuthorizerSignature !== undefined;
  if (
    voidRemainder &&
    !(await eyes.signed(route.receiverAuthorizer, voidTypedData(deployment.chainId, route.operator, paymentHash), capture.voidAuthorizerSignature as Hex))
  ) {
    return refuse(AUTH_CAPTURE_REASONS.voidAuthorizerSignature, "voidAuthorizerSignature is not the receiver authorizer's Void of this payment");
  }
  // The fee is the one the bounds fix (equal): what the operator submits, so what the authorizer must have signed.
  if (feeAmount !== feeAmountOf(amount, route.feeBps))
    return refuse(AUTH_CAPTURE_REASONS.feeOutOfRange, `the fee must be floor(amount × ${route.feeBps} / 10,000): the fee bounds are equal`);
  if (!isAddressEqual(feeReceiver, route.feeRecipient))
    return refuse(AUTH_CAPTURE_REASONS.feeReceiver, `the fee receiver must be extra.feeRecipient (${route.feeRecipient})`);
  return { ...base, type: "capture", amount, feeAmount, expected, voidRemainder };
}

/**
 * Step 6, the operation's preconditions on the escrow's state (`state`: its ledger as the facilitator
 * reads it, `now`: the chain's time): the single-use rule first (both signed balances are what the
 * ledger holds, so a replayed or stale consent is refused), then the capture's window and amount, or
 * a void's remaining hold.
 */
export function lifecyclePreconditions(call: LifecycleCall, state: EscrowBalances, now: bigint): Refusal | null {
  const refuse = (reason: string, message: string): Refusal => ({ reason, message, payer: call.info.payer });
  if (call.type === "void") {
    return state.capturable > 0n ? null : refuse(AUTH_CAPTURE_REASONS.unexpectedPaymentState, "nothing is left authorized to void");
  }
  if (state.capturable !== call.expected.capturable || state.refundable !== call.expected.refundable) {
    return refuse(
      AUTH_CAPTURE_REASONS.unexpectedPaymentState,
      `the escrow holds ${state.capturable} capturable and ${state.refundable} refundable, not the balances signed: a replayed or stale capture`,
    );
  }
  if (now >= BigInt(call.info.authorizationExpiry)) return refuse(AUTH_CAPTURE_REASONS.captureDeadlineExpired, "the capture deadline is past");
  if (call.amount === 0n || call.amount > state.capturable)
    return refuse(AUTH_CAPTURE_REASONS.amount, "a capture's amount must be above zero and at most what is capturable");
  if (call.voidRemainder && call.amount === state.capturable) {
    return refuse(AUTH_CAPTURE_REASONS.voidRemainderFullCapture, "a full capture leaves nothing to void: omit voidAuthorizerSignature");
  }
  return null;
}

function infoOf(w: z.infer<typeof WirePaymentInfo>): PaymentInfo {
  return {
    operator: getAddress(w.operator),
    payer: getAddress(w.payer),
    receiver: getAddress(w.receiver),
    token: getAddress(w.token),
    maxAmount: BigInt(w.maxAmount),
    preApprovalExpiry: w.preApprovalExpiry,
    authorizationExpiry: w.authorizationExpiry,
    refundExpiry: w.refundExpiry,
    minFeeBps: w.minFeeBps,
    maxFeeBps: w.maxFeeBps,
    feeReceiver: getAddress(w.feeReceiver),
    salt: BigInt(w.salt),
  };
}
