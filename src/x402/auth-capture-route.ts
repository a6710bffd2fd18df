import { getAddress, isAddress, isAddressEqual, zeroAddress, type Address } from "viem";
import { z } from "zod";
import { holdsEscrowSet, type EscrowSet, type LiveDeployment } from "../deployments.js";
import { checkRecipient } from "../rules/recipient.js";
import type { X402FacilitatorRequest } from "../wire/index.js";
import { AUTH_CAPTURE_REASONS, X402_REASONS } from "./reasons.js";
import type { Refusal } from "./refusals.js";

/** x402's name for the scheme (x402-foundation/x402, specs/schemes/auth-capture). */
export const AUTH_CAPTURE = "auth-capture";

/** What `/x402/supported` says of `auth-capture`, and what every payment's `extra` must say the same. */
export interface AuthCaptureService {
  deployment: LiveDeployment;
  /** The escrow's operator: the relayer's account (null without a relayer key: nothing is settled). */
  operator: Address | null;
  /** The smallest amount a payment may be (PAYMENT_MIN_AMOUNT): each one costs the relayer a transaction. */
  minUnits: bigint;
}

/**
 * The `extra` of `auth-capture` in `/x402/supported`: the operator a `"delegated"` route names as
 * `captureAuthorizer`, the fee terms (equal bounds: x402's terms, copied verbatim by a resource server),
 * the holds' escrow written out (the set this service captures and voids on), and USDC with its
 * EIP-712 domain, so that a resource server needs nothing else to price a route (client package).
 * No `receiverAuthorizer`: this facilitator signs no consent on a server's behalf.
 */
export function authCaptureExtra(service: AuthCaptureService): Record<string, unknown> | null {
  const { deployment, operator } = service;
  const holds = holdsEscrowSet(deployment);
  if (!holds || !operator) return null;
  const feeBps = deployment.parameters.feeBps;
  return {
    authCaptureEscrow: holds.escrow,
    captureAuthorizer: operator,
    feeRecipient: deployment.parameters.feeCollector,
    minFeeBps: feeBps,
    maxFeeBps: feeBps,
    asset: deployment.token.address,
    name: deployment.token.eip712.name,
    version: deployment.token.eip712.version,
  };
}

/**
 * A route's `extra` as the EVM binding (v1.1) names it, resolved: the flow, the finalize mode, the
 * operator model (this service is always the `"delegated"` operator), the escrow set and the terms
 * the payment commits to. Absent addresses read as the zero address.
 */
export interface AuthCaptureRoute {
  paymentFlow: "escrow" | "authorization";
  captureMode: "sync" | "deferred";
  receiverAuthorizer: Address;
  policy: Address;
  /** The set `extra.authCaptureEscrow` names; null when it names none (the client's authorization decides, auth-capture-terms.ts). */
  named: EscrowSet | null;
  operator: Address;
  receiver: Address;
  amount: bigint;
  captureDeadline: number;
  refundDeadline: number;
  feeBps: number;
  feeRecipient: Address;
}

const uint48 = z
  .number()
  .int()
  .min(0)
  .max(2 ** 48 - 1);
const address = z.string().refine((s) => isAddress(s, { strict: false }), "an address");

/** Step 4's required fields (the `extra` table of the binding); unknown keys pass, as clients ignore them. */
const AuthCaptureExtra = z.looseObject({
  name: z.string(),
  version: z.string(),
  authCaptureEscrow: address.optional(),
  captureAuthorizer: address,
  receiverAuthorizer: address.optional(),
  policy: address.optional(),
  feeRecipient: address,
  minFeeBps: z.number().int().min(0).max(10_000),
  maxFeeBps: z.number().int().min(0).max(10_000),
  captureDeadline: uint48,
  refundDeadline: uint48,
});

/**
 * The binding's verification steps 2 to 5, shared by client payloads and lifecycle payloads: scheme,
 * network, `extra` (fields, escrow, flow, finalize mode, fees) with the requirements this service
 * settles (its USDC, a payee that can spend), then the operator: `"delegated"` only, this service's
 * operator as `captureAuthorizer`, no policy, and a receiver authorizer where the flow needs consent.
 */
export function judgeRoute(request: X402FacilitatorRequest, service: AuthCaptureService, network: string, payer?: string): AuthCaptureRoute | Refusal {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  const { deployment } = service;
  const refuse = (reason: string, message: string): Refusal => ({ reason, message, ...(payer ? { payer } : {}) });
  if (request.x402Version !== 2 || payload.x402Version !== 2) return refuse(X402_REASONS.version, "this facilitator speaks x402 version 2");
  if (requirements.scheme !== AUTH_CAPTURE || payload.accepted.scheme !== AUTH_CAPTURE)
    return refuse(AUTH_CAPTURE_REASONS.scheme, "this request is not of the auth-capture scheme");
  if (payload.accepted.network !== requirements.network)
    return refuse(AUTH_CAPTURE_REASONS.networkMismatch, "the payment is for another network than required");
  if (requirements.network !== network) return refuse(X402_REASONS.network, `this facilitator settles on ${network}`);
  const raw = requirements.extra ?? {};
  const extra = AuthCaptureExtra.safeParse(raw);
  if (!extra.success) {
    const field = extra.error.issues[0]?.path.map(String).join(".") || "extra";
    return refuse(
      AUTH_CAPTURE_REASONS.extra,
      `extra.${field} is missing or not of its form (addresses, fee bounds in basis points, deadlines in unix seconds)`,
    );
  }
  const e = extra.data;
  const sets = deployment.authCapture ?? [];
  const operator = service.operator;
  if (sets.length === 0 || !operator)
    return refuse(X402_REASONS.transactionState, "this deployment settles no auth-capture payments now (no escrow, or no relayer key)");
  const named = e.authCaptureEscrow === undefined ? null : (sets.find((s) => isAddressEqual(s.escrow, e.authCaptureEscrow!)) ?? undefined);
  if (named === undefined) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `extra.authCaptureEscrow must be one of this deployment's escrows (${sets.map((s) => s.escrow).join(", ")})`);
  }
  // v1.0's flag: `true` asked for a terminal charge, which no default may silently turn into a hold.
  if (raw.autoCapture === true) return refuse(AUTH_CAPTURE_REASONS.paymentFlow, "extra.autoCapture is removed in v1.1: name paymentFlow instead");
  const paymentFlow = raw.paymentFlow ?? "escrow";
  if (paymentFlow !== "escrow" && paymentFlow !== "authorization")
    return refuse(AUTH_CAPTURE_REASONS.paymentFlow, 'extra.paymentFlow must be "escrow" or "authorization"');
  const receiverAuthorizer = e.receiverAuthorizer === undefined ? zeroAddress : getAddress(e.receiverAuthorizer);
  const policy = e.policy === undefined ? zeroAddress : getAddress(e.policy);
  const refused = requirementsRefusal(request, service, sets, refuse);
  if (refused) return refused;
  const captureMode = raw.captureMode ?? "sync";
  if (raw.captureMode !== undefined && paymentFlow === "authorization")
    return refuse(AUTH_CAPTURE_REASONS.extra, 'extra.captureMode is for the escrow flow only: an "authorization" route must not name it');
  if (captureMode !== "sync" && captureMode !== "deferred") return refuse(AUTH_CAPTURE_REASONS.extra, 'extra.captureMode must be "sync" or "deferred"');
  const feeBps = deployment.parameters.feeBps;
  if (e.minFeeBps !== feeBps || e.maxFeeBps !== feeBps) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `the fee bounds must be this deployment's fee, ${feeBps} basis points, both minFeeBps and maxFeeBps`);
  }
  if (!isAddressEqual(e.feeRecipient, deployment.parameters.feeCollector)) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `extra.feeRecipient must be this deployment's fee collector (${deployment.parameters.feeCollector})`);
  }
  const tokenDomain = deployment.token.eip712;
  if (e.name !== tokenDomain.name || e.version !== tokenDomain.version) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `extra.name and extra.version must be USDC's EIP-712 domain ("${tokenDomain.name}", "${tokenDomain.version}")`);
  }
  // Step 5, the operator: this facilitator implements "delegated" alone.
  const operatorType = raw.operatorType ?? "delegated";
  if (operatorType !== "delegated") {
    return refuse(
      AUTH_CAPTURE_REASONS.operatorType,
      `operatorType "${String(operatorType)}" is not settled here: this facilitator is the "delegated" operator only`,
    );
  }
  if (!isAddressEqual(e.captureAuthorizer, operator)) {
    return refuse(
      AUTH_CAPTURE_REASONS.operatorNotAdmitted,
      `extra.captureAuthorizer must be this service's operator (${operator}): it sends every escrow call`,
    );
  }
  if (policy !== zeroAddress) return refuse(AUTH_CAPTURE_REASONS.policy, 'extra.policy must be absent or the zero address for a "delegated" operator');
  if (receiverAuthorizer === zeroAddress && paymentFlow === "authorization") {
    return refuse(AUTH_CAPTURE_REASONS.missingReceiverAuthorizer, "a charge needs the merchant's consent: extra.receiverAuthorizer must name its signer");
  }
  // A collect-only route has no relayed finalize: "sync" would strand the hold until the payer reclaims it.
  if (receiverAuthorizer === zeroAddress && captureMode !== "deferred") {
    return refuse(AUTH_CAPTURE_REASONS.extra, 'a route without a receiver authorizer is collect-only: extra.captureMode must be written out as "deferred"');
  }
  return {
    paymentFlow,
    captureMode,
    receiverAuthorizer,
    policy,
    named,
    operator,
    receiver: getAddress(requirements.payTo),
    amount: BigInt(requirements.amount),
    captureDeadline: e.captureDeadline,
    refundDeadline: e.refundDeadline,
    feeBps,
    feeRecipient: deployment.parameters.feeCollector,
  };
}

/** This facilitator's own terms on the requirements: its USDC, a payee that can spend what it receives, an amount it settles. */
function requirementsRefusal(
  request: X402FacilitatorRequest,
  service: AuthCaptureService,
  sets: readonly EscrowSet[],
  refuse: (reason: string, message: string) => Refusal,
): Refusal | null {
  const requirements = request.paymentRequirements;
  const { deployment } = service;
  if (!isAddress(requirements.asset, { strict: false }) || !isAddressEqual(requirements.asset, deployment.token.address)) {
    return refuse(X402_REASONS.requirements, `asset must be this deployment's USDC (${deployment.token.address})`);
  }
  if (!isAddress(requirements.payTo, { strict: false }) || isAddressEqual(requirements.payTo, zeroAddress) || !/^[0-9]{1,36}$/.test(requirements.amount)) {
    return refuse(X402_REASONS.requirements, "payTo must be the merchant's address and amount an integer of micro-units");
  }
  // Funds captured to the escrow, its collector, the token or one of our contracts are locked for good;
  // to the operator they would be the service's to hold: the same rule as a hold's recipient.
  const payTo = getAddress(requirements.payTo);
  const locked = [...sets.flatMap((s) => [s.escrow, s.eip3009Collector]), service.operator!];
  if (!spendable(deployment, payTo) || locked.some((a) => isAddressEqual(a, payTo))) {
    return refuse(
      X402_REASONS.requirements,
      "payTo must be the merchant's own address: not the token, the escrow, its collector, the operator or one of the service's contracts",
    );
  }
  const amount = BigInt(requirements.amount);
  if (amount < service.minUnits) return refuse(X402_REASONS.requirements, `amount must be at least ${service.minUnits} micro-units`);
  if (amount >= 2n ** 120n) return refuse(X402_REASONS.requirements, "amount is past what the escrow holds (uint120)");
  return null;
}

function spendable(deployment: LiveDeployment, payTo: Address): boolean {
  try {
    checkRecipient(deployment, payTo);
    return true;
  } catch {
    return false;
  }
}
