import { getAddress, isAddress, isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import { z } from "zod";
import { receiveAuthorizationTypedData, tokenDomain } from "../chain/token-authorizations.js";
import { feeAmountOf } from "../holds/fee.js";
import { payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "../holds/payment-info.js";
import { HOLD_MAX_CAPTURE_SECONDS, HOLD_MAX_REFUND_SECONDS } from "../holds/terms.js";
import { holdsEscrowSet, type EscrowSet } from "../deployments.js";
import type { X402FacilitatorRequest } from "../wire/index.js";
import { boundSalt, chargeTypedData, isBound } from "./auth-capture-authorizer.js";
import { AUTH_CAPTURE, judgeRoute, type AuthCaptureRoute, type AuthCaptureService } from "./auth-capture-route.js";
import { Eip3009Payload } from "./payload.js";
import { AUTH_CAPTURE_REASONS } from "./reasons.js";
import type { Refusal } from "./refusals.js";

export { AUTH_CAPTURE, type AuthCaptureService };

const word = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const units = z.string().regex(/^[0-9]{1,78}$/);

/**
 * The client's `auth-capture` EVM payload this facilitator settles: an ERC-3009 `ReceiveWithAuthorization`
 * to the escrow's collector, its signature and `salt` (0x and 64 hex digits), `saltNonce` beside it when
 * the route binds a receiver authorizer, and on a completed `charge` the four fields its server adds.
 */
export const AuthCapturePayload = Eip3009Payload.extend({
  salt: word,
  saltNonce: word.optional(),
  amount: units.optional(),
  feeAmount: units.optional(),
  feeReceiver: z
    .string()
    .refine((a) => isAddress(a, { strict: false }))
    .optional(),
  authorizerSignature: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})+$/)
    .optional(),
});
export type AuthCapturePayload = z.infer<typeof AuthCapturePayload>;

/** The fields a server adds to complete a `charge`: all four or none. */
const COMPLETION = ["amount", "feeAmount", "feeReceiver", "authorizerSignature"] as const;

/** A completed charge's server-added terms, as the authorizer signed them. */
export interface ChargeCompletion {
  amount: bigint;
  feeAmount: bigint;
  feeReceiver: Address;
  authorizerSignature: Hex;
}

/** A client payload that passed verification steps 1 to 14: its terms, as the escrow will read them. */
export interface AuthCaptureTerms {
  payer: Address;
  info: PaymentInfo;
  /** The listed escrow set the payment names (extra.authCaptureEscrow, or its collector). */
  escrow: EscrowSet;
  /** The escrow's name for the payment (its `getHash`). */
  paymentHash: Hex;
  signature: Hex;
  route: AuthCaptureRoute;
  /** What the client's payload settles as: `authorize` under the escrow flow, `charge` under the authorization flow. */
  operation: "authorize" | "charge";
  /** A completed charge's terms; absent on `authorize` and on a raw charge at /verify (the full amount is simulated then). */
  charge?: ChargeCompletion;
}

/** What verification reads of the chain: its time, and whether an address signed typed data (ECDSA or ERC-1271). */
export interface ChainEyes {
  now: bigint;
  signed: (address: Address, typed: object, signature: Hex) => Promise<boolean>;
}

/** The least time left on an authorization or a capture deadline (the binding's 6 s floor). */
export const DEADLINE_FLOOR_SECONDS = 6n;
/** ERC-6492's magic suffix: a signature of an account not deployed yet. */
const ERC6492_SUFFIX = "6492649264926492649264926492649264926492649264926492649264926492";

/** A Permit2 payload, in this service's words: the local chain has no Permit2, so no deployment of this service takes one. */
export const PERMIT2_REFUSAL = "a Permit2 payload: this facilitator settles auth-capture with USDC's ERC-3009 authorization only (assetTransferMethod eip3009)";

/**
 * The binding's "Verification — Client payment payload", steps 1 to 14 in its order (step 15, the
 * simulation, and the checks that the payment is unused follow in auth-capture.ts). `settling`:
 * /settle requires a `charge` completed, /verify accepts it raw.
 */
export async function judgeAuthCapture(
  request: X402FacilitatorRequest,
  service: AuthCaptureService,
  network: string,
  eyes: ChainEyes,
  settling: boolean,
): Promise<AuthCaptureTerms | Refusal> {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  const { deployment } = service;
  const fields = payload.payload;
  const parsed = AuthCapturePayload.safeParse(fields);
  const payer = parsed.success ? getAddress(parsed.data.authorization.from) : undefined;
  const refuse = (reason: string, message: string): Refusal => ({ reason, message, ...(payer ? { payer } : {}) });
  // 1. Shape guard.
  if ("permit2Authorization" in fields) return refuse(AUTH_CAPTURE_REASONS.payloadFormat, PERMIT2_REFUSAL);
  if (!parsed.success) {
    return refuse(
      AUTH_CAPTURE_REASONS.payloadFormat,
      "the payload must be an ERC-3009 authorization to the escrow's collector, its signature and the payment's salt (0x and 64 hex digits)",
    );
  }
  const p = parsed.data;
  const raw = requirements.extra ?? {};
  const bound = isBound(addressOrZero(raw.receiverAuthorizer), addressOrZero(raw.policy));
  if (bound !== (p.saltNonce !== undefined)) {
    const message = bound
      ? "the route binds a receiver authorizer: the payload must carry saltNonce beside salt"
      : "saltNonce is for a route that binds a receiver authorizer or policy; this one binds none";
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, message);
  }
  if ("feeBps" in fields) return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "feeBps is v1.0's fee field: a v1.1 escrow takes feeAmount");
  const completed = COMPLETION.filter((k) => p[k] !== undefined).length;
  const charge = raw.paymentFlow === "authorization";
  if (completed !== 0 && completed !== COMPLETION.length)
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "a completed charge carries amount, feeAmount, feeReceiver and authorizerSignature together");
  if (completed !== 0 && !charge)
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "an authorize settles the client's payload as it arrived: no amount, fee or authorizer signature");
  if (completed === 0 && charge && settling)
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "/settle needs the charge completed: amount, feeAmount, feeReceiver and the authorizer's signature");
  // 2 to 5. Scheme, network, extra, operator.
  const route = judgeRoute(request, service, network, payer);
  if ("reason" in route) return route;
  // 6. Method routing.
  const method = raw.assetTransferMethod ?? "eip3009";
  if (method === "permit2") return refuse(AUTH_CAPTURE_REASONS.payloadFormat, PERMIT2_REFUSAL);
  if (method !== "eip3009") return refuse(AUTH_CAPTURE_REASONS.transferMethod, 'the asset transfer method must be "eip3009" (USDC\'s ERC-3009 authorization)');
  // 7. Deadline ordering.
  const a = p.authorization;
  const { now } = eyes;
  const validBefore = BigInt(a.validBefore);
  const captureDeadline = BigInt(route.captureDeadline);
  if (captureDeadline > BigInt(route.refundDeadline) || now + BigInt(requirements.maxTimeoutSeconds) > captureDeadline || validBefore > captureDeadline) {
    return refuse(
      AUTH_CAPTURE_REASONS.deadlineOrdering,
      "the deadlines must be in order: now + maxTimeoutSeconds and the authorization's validBefore, then captureDeadline, then refundDeadline",
    );
  }
  if (captureDeadline <= now + DEADLINE_FLOOR_SECONDS) return refuse(AUTH_CAPTURE_REASONS.captureDeadlineExpired, "the capture deadline is past");
  // A hold's own limits: the agent's funds sit in escrow until the capture deadline.
  if (captureDeadline > now + BigInt(HOLD_MAX_CAPTURE_SECONDS) || BigInt(route.refundDeadline) > now + BigInt(HOLD_MAX_REFUND_SECONDS)) {
    const message = `captureDeadline at most ${HOLD_MAX_CAPTURE_SECONDS} s and refundDeadline at most ${HOLD_MAX_REFUND_SECONDS} s from now (a hold's limits)`;
    return refuse(AUTH_CAPTURE_REASONS.extra, message);
  }
  // 8. Time window.
  if (validBefore <= now + DEADLINE_FLOOR_SECONDS)
    return refuse(AUTH_CAPTURE_REASONS.authorizationExpired, "the authorization has expired: its validBefore is past");
  if (BigInt(a.validAfter) > now) return refuse(AUTH_CAPTURE_REASONS.notYetValid, "the authorization is not valid yet: its validAfter is to come");
  if (BigInt(a.validAfter) !== 0n)
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "the authorization's validAfter must be 0 (the collector redeems it from then)");
  // 9. Collector match, against the resolved deployment (never a collector named in extra).
  const sets = deployment.authCapture!; // judgeRoute refused a deployment with none
  const escrow = route.named ?? sets.find((s) => isAddressEqual(s.eip3009Collector, a.to)) ?? null;
  if (!escrow || !isAddressEqual(a.to, escrow.eip3009Collector)) {
    const collectors = (route.named ? [route.named] : sets).map((s) => s.eip3009Collector);
    return refuse(AUTH_CAPTURE_REASONS.collector, `the authorization must pay the escrow's ERC-3009 collector (${collectors.join(", ")})`);
  }
  // This service captures and voids on the holds' escrow only: a hold elsewhere could never be finalized.
  const holds = holdsEscrowSet(deployment)!;
  if (route.paymentFlow === "escrow" && !isAddressEqual(escrow.escrow, holds.escrow)) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `the escrow flow runs on the holds' escrow (${holds.escrow}): its capture and void are sent there`);
  }
  // 11. Client signature (ECDSA or ERC-1271; an undeployed account's ERC-6492 is refused: no factory is admitted).
  // The magic suffix is digits only: no case to fold.
  const signature = p.signature as Hex;
  if (signature.endsWith(ERC6492_SUFFIX))
    return refuse(AUTH_CAPTURE_REASONS.erc6492, "an undeployed smart account (ERC-6492) is refused: deploy the account first");
  const authorization = receiveAuthorizationTypedData(tokenDomain(deployment.chainId, deployment.token.address, deployment.token.eip712), {
    from: payer!,
    to: escrow.eip3009Collector,
    value: BigInt(a.value),
    validAfter: 0n,
    validBefore,
    nonce: a.nonce as Hex,
  });
  if (!(await eyes.signed(payer!, authorization, signature)))
    return refuse(AUTH_CAPTURE_REASONS.signature, "the signature is not the payer's over this authorization");
  // 12. Amount and fee.
  if (BigInt(a.value) !== route.amount) return refuse(AUTH_CAPTURE_REASONS.amount, "the authorization's value is not the amount required");
  const completion = completed ? completionOf(p) : undefined;
  if (completion) {
    if (completion.amount === 0n || completion.amount > route.amount)
      return refuse(AUTH_CAPTURE_REASONS.amount, "a charge's amount must be above zero and at most the amount required");
    if (completion.feeAmount !== feeAmountOf(completion.amount, route.feeBps))
      return refuse(AUTH_CAPTURE_REASONS.feeOutOfRange, `the fee must be floor(amount × ${route.feeBps} / 10,000): the fee bounds are equal`);
    if (!isAddressEqual(completion.feeReceiver, route.feeRecipient))
      return refuse(AUTH_CAPTURE_REASONS.feeReceiver, `the fee receiver must be extra.feeRecipient (${route.feeRecipient})`);
  }
  // 13. Nonce match, and the salt's binding to the receiver authorizer.
  const info: PaymentInfo = {
    operator: route.operator,
    payer: payer!,
    receiver: route.receiver,
    token: deployment.token.address,
    maxAmount: route.amount,
    preApprovalExpiry: Number(validBefore),
    authorizationExpiry: route.captureDeadline,
    refundExpiry: route.refundDeadline,
    minFeeBps: route.feeBps,
    maxFeeBps: route.feeBps,
    feeReceiver: route.feeRecipient,
    salt: BigInt(p.salt),
  };
  if (payerAgnosticHash(info, deployment.chainId, escrow.escrow).toLowerCase() !== a.nonce.toLowerCase()) {
    return refuse(
      AUTH_CAPTURE_REASONS.nonceMismatch,
      "the authorization's nonce is not the payment's terms' hash (payer left out): it was signed for other terms",
    );
  }
  if (bound && boundSalt(route.receiverAuthorizer, route.policy, BigInt(p.saltNonce!)) !== info.salt) {
    return refuse(AUTH_CAPTURE_REASONS.saltBinding, "the salt is not the commitment to this route's receiver authorizer, policy and the saltNonce");
  }
  const paymentHash = paymentInfoHash(info, deployment.chainId, escrow.escrow);
  // 14. The receiver authorizer's consent to exactly this charge.
  if (completion) {
    const typed = chargeTypedData(deployment.chainId, route.operator, {
      paymentInfoHash: paymentHash,
      amount: completion.amount,
      tokenCollector: escrow.eip3009Collector,
      collectorData: signature,
      feeAmount: completion.feeAmount,
      feeReceiver: completion.feeReceiver,
    });
    if (!(await eyes.signed(route.receiverAuthorizer, typed, completion.authorizerSignature)))
      return refuse(AUTH_CAPTURE_REASONS.authorizerSignature, "the authorizer signature is not the receiver authorizer's Charge over these terms");
  }
  return {
    payer: payer!,
    info,
    escrow,
    paymentHash,
    signature,
    route,
    operation: route.paymentFlow === "escrow" ? "authorize" : "charge",
    ...(completion ? { charge: completion } : {}),
  };
}

function completionOf(p: AuthCapturePayload): ChargeCompletion {
  return {
    amount: BigInt(p.amount!),
    feeAmount: BigInt(p.feeAmount!),
    feeReceiver: getAddress(p.feeReceiver!),
    authorizerSignature: p.authorizerSignature as Hex,
  };
}

/** An `extra` address as the binding reads it: absent (or not an address, refused at step 4) is the zero address. */
export function addressOrZero(value: unknown): Address {
  return typeof value === "string" && isAddress(value, { strict: false }) ? getAddress(value) : zeroAddress;
}
