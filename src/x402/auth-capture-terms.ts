import { getAddress, isAddress, isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import { z } from "zod";
import { payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "../holds/payment-info.js";
import { holdsEscrowSet, type EscrowSet, type LiveDeployment } from "../deployments.js";
import type { X402FacilitatorRequest } from "../wire/index.js";
import { checkRecipient } from "../rules/recipient.js";
import { Eip3009Payload } from "./payload.js";
import { AUTH_CAPTURE_REASONS, X402_REASONS } from "./reasons.js";
import type { Refusal } from "./refusals.js";

/** x402's name for the scheme (x402-foundation/x402, specs/schemes/auth-capture). */
export const AUTH_CAPTURE = "auth-capture";

/**
 * The `auth-capture` EVM payload this facilitator settles: an ERC-3009 `ReceiveWithAuthorization` to
 * the escrow's collector and its signature, with `salt`, the payment's `PaymentInfo.salt` (0x and 64
 * hex digits). A `saltNonce` (a salt bound to a receiver authorizer or policy) is not this one's.
 */
export const AuthCapturePayload = Eip3009Payload.extend({ salt: z.string().regex(/^0x[0-9a-fA-F]{64}$/) });
export type AuthCapturePayload = z.infer<typeof AuthCapturePayload>;

/** What `/x402/supported` says of `auth-capture`, and what every payment's `extra` must say the same. */
export interface AuthCaptureService {
  deployment: LiveDeployment;
  /** The escrow's operator: the relayer's account (null without a relayer key: nothing is settled). */
  operator: Address | null;
  /** The smallest amount a payment may be (PAYMENT_MIN_AMOUNT): each one costs the relayer a transaction. */
  minUnits: bigint;
}

/**
 * The `extra` of `auth-capture` in `/x402/supported`: the escrow, the operator, the fee collector and
 * the fee, fixed (x402's terms, copied verbatim by a resource server), and USDC with its EIP-712
 * domain, so that a resource server needs nothing else to price a route (client package).
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

/** A request that passed the checks that need no chain: its terms, as the escrow will read them. */
export interface AuthCaptureTerms {
  payer: Address;
  info: PaymentInfo;
  /** The listed escrow set the payment names (extra.authCaptureEscrow, or its collector), called with its release's interface. */
  escrow: EscrowSet;
  /** The escrow's name for the payment (its `getHash`). */
  paymentHash: Hex;
  signature: Hex;
  /** The requirements ask for a hold (`extra.hold`): authorize only, the merchant captures later. */
  hold: boolean;
}

const uint48 = z
  .number()
  .int()
  .min(0)
  .max(2 ** 48 - 1);

/** The requirements' `extra` for `auth-capture`, as @x402/evm's client reads it (the deadlines are absolute unix seconds). */
const AuthCaptureExtra = z.looseObject({
  name: z.string(),
  version: z.string(),
  /** Absent: the v1.1 set whose collector the authorization pays. */
  authCaptureEscrow: z.string().optional(),
  captureAuthorizer: z.string(),
  feeRecipient: z.string(),
  minFeeBps: z.number().int().min(0).max(10_000),
  maxFeeBps: z.number().int().min(0).max(10_000),
  captureDeadline: uint48,
  refundDeadline: uint48,
  hold: z.boolean().optional(),
});

/**
 * This facilitator's checks of an `auth-capture` request that need no chain: version, scheme,
 * network, the payload's kind (Permit2 refused), the asset and amount, the `extra` (one of our listed escrows, our
 * operator, our fee collector, the deployment's fee as both bounds, no bound salt, deadlines in order),
 * the authorization (to our collector, for the amount, its window the payment's) and its nonce: the
 * payer-agnostic `PaymentInfo` hash of the terms rebuilt from the requirements and the salt. The
 * chain's checks (time, signature, unused, simulation) follow in auth-capture.ts.
 */
export function judgeAuthCapture(request: X402FacilitatorRequest, service: AuthCaptureService, network: string): AuthCaptureTerms | Refusal {
  const { paymentPayload: payload, paymentRequirements: requirements } = request;
  const { deployment } = service;
  const parsed = AuthCapturePayload.safeParse(payload.payload);
  const payer = parsed.success ? getAddress(parsed.data.authorization.from) : undefined;
  const refuse = (reason: string, message: string): Refusal => ({ reason, message, ...(payer ? { payer } : {}) });
  if (request.x402Version !== 2 || payload.x402Version !== 2) return refuse(X402_REASONS.version, "this facilitator speaks x402 version 2");
  if (requirements.scheme !== AUTH_CAPTURE || payload.accepted.scheme !== AUTH_CAPTURE)
    return refuse(X402_REASONS.scheme, "this request is not of the auth-capture scheme");
  if (requirements.network !== network || payload.accepted.network !== network) return refuse(X402_REASONS.network, `this facilitator settles on ${network}`);
  const fields = payload.payload;
  if ("permit2Authorization" in fields || requirements.extra?.assetTransferMethod === "permit2") {
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, PERMIT2_REFUSAL);
  }
  if (requirements.extra?.assetTransferMethod !== undefined && requirements.extra.assetTransferMethod !== "eip3009") {
    return refuse(AUTH_CAPTURE_REASONS.transferMethod, "the asset transfer method must be eip3009 (USDC's ERC-3009 authorization)");
  }
  if (!parsed.success) {
    return refuse(
      AUTH_CAPTURE_REASONS.payloadFormat,
      "the payload must be an ERC-3009 authorization to the escrow's collector, its signature and the payment's salt (0x and 64 hex digits)",
    );
  }
  if ("saltNonce" in fields)
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "a salt bound to a receiver authorizer or policy (saltNonce) is not settled here");
  const sets = deployment.authCapture ?? [];
  const operator = service.operator;
  if (sets.length === 0 || !operator)
    return refuse(X402_REASONS.transactionState, "this deployment settles no auth-capture payments now (no escrow, or no relayer key)");
  if (!isAddress(requirements.asset, { strict: false }) || !isAddressEqual(requirements.asset, deployment.token.address)) {
    return refuse(X402_REASONS.requirements, `asset must be this deployment's USDC (${deployment.token.address})`);
  }
  if (!isAddress(requirements.payTo, { strict: false }) || isAddressEqual(requirements.payTo, zeroAddress) || !/^[0-9]{1,36}$/.test(requirements.amount)) {
    return refuse(X402_REASONS.requirements, "payTo must be the merchant's address and amount an integer of micro-units");
  }
  // Funds captured to the escrow, its collector, the token or one of our contracts are locked for good;
  // to the operator they would be the service's to hold: the same rule as a hold's recipient.
  const payTo = getAddress(requirements.payTo);
  if (!spendable(deployment, payTo) || [...sets.flatMap((s) => [s.escrow, s.eip3009Collector]), operator].some((a) => isAddressEqual(a, payTo))) {
    return refuse(
      X402_REASONS.requirements,
      "payTo must be the merchant's own address: not the token, the escrow, its collector, the operator or one of the service's contracts",
    );
  }
  const amount = BigInt(requirements.amount);
  if (amount < service.minUnits) return refuse(X402_REASONS.requirements, `amount must be at least ${service.minUnits} micro-units`);
  if (amount >= 2n ** 120n) return refuse(X402_REASONS.requirements, "amount is past what the escrow holds (uint120)");
  const extra = AuthCaptureExtra.safeParse(requirements.extra ?? {});
  if (!extra.success) {
    const field = extra.error.issues[0]?.path.map(String).join(".") || "extra";
    return refuse(
      AUTH_CAPTURE_REASONS.extra,
      `extra.${field} is missing or not of its form (addresses, fee bounds in basis points, deadlines in unix seconds)`,
    );
  }
  const e = extra.data;
  const a = parsed.data.authorization;
  const escrow = escrowSetNamed(sets, e.authCaptureEscrow, a.to);
  if (!escrow && e.authCaptureEscrow !== undefined) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `extra.authCaptureEscrow must be one of this deployment's escrows (${sets.map((s) => s.escrow).join(", ")})`);
  }
  if (!escrow) {
    const collectors = sets.filter((s) => s.version === "v1.1").map((s) => s.eip3009Collector);
    return refuse(AUTH_CAPTURE_REASONS.collector, `the authorization must pay one of the escrows' ERC-3009 collectors (${collectors.join(", ")})`);
  }
  if (e.hold === true && escrow !== sets[0]) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `a hold runs on the holds' escrow (${sets[0]!.escrow}): its capture and void go through /v1/holds`);
  }
  if (!isAddress(e.captureAuthorizer, { strict: false }) || !isAddressEqual(e.captureAuthorizer, operator)) {
    return refuse(
      AUTH_CAPTURE_REASONS.operatorNotAdmitted,
      `extra.captureAuthorizer must be this service's operator (${operator}): it sends every escrow call`,
    );
  }
  for (const key of ["receiverAuthorizer", "policy"] as const) {
    const value = requirements.extra?.[key];
    if (value !== undefined && !(typeof value === "string" && isAddress(value, { strict: false }) && isAddressEqual(value, zeroAddress))) {
      return refuse(AUTH_CAPTURE_REASONS.payloadFormat, `extra.${key} must be absent: this facilitator is the operator and relays no authorizer's signature`);
    }
  }
  const feeBps = deployment.parameters.feeBps;
  if (e.minFeeBps !== feeBps || e.maxFeeBps !== feeBps) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `the fee bounds must be this deployment's fee, ${feeBps} basis points, both minFeeBps and maxFeeBps`);
  }
  if (!isAddress(e.feeRecipient, { strict: false }) || !isAddressEqual(e.feeRecipient, deployment.parameters.feeCollector)) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `extra.feeRecipient must be this deployment's fee collector (${deployment.parameters.feeCollector})`);
  }
  const tokenDomain = deployment.token.eip712;
  if (e.name !== tokenDomain.name || e.version !== tokenDomain.version) {
    return refuse(AUTH_CAPTURE_REASONS.extra, `extra.name and extra.version must be USDC's EIP-712 domain ("${tokenDomain.name}", "${tokenDomain.version}")`);
  }
  if (!isAddressEqual(a.to, escrow.eip3009Collector)) {
    return refuse(AUTH_CAPTURE_REASONS.collector, `the authorization must pay the escrow's ERC-3009 collector (${escrow.eip3009Collector})`);
  }
  if (BigInt(a.value) !== amount) return refuse(AUTH_CAPTURE_REASONS.amount, "the authorization's value is not the amount required");
  if (BigInt(a.validAfter) !== 0n)
    return refuse(AUTH_CAPTURE_REASONS.payloadFormat, "the authorization's validAfter must be 0 (the collector redeems it from then)");
  const preApprovalExpiry = BigInt(a.validBefore);
  if (preApprovalExpiry > BigInt(e.captureDeadline) || e.captureDeadline > e.refundDeadline) {
    return refuse(
      AUTH_CAPTURE_REASONS.deadlineOrdering,
      "the deadlines must be in order: the authorization's validBefore, then captureDeadline, then refundDeadline",
    );
  }
  const info: PaymentInfo = {
    operator,
    payer: payer!,
    receiver: getAddress(requirements.payTo),
    token: deployment.token.address,
    maxAmount: amount,
    preApprovalExpiry: Number(preApprovalExpiry),
    authorizationExpiry: e.captureDeadline,
    refundExpiry: e.refundDeadline,
    minFeeBps: feeBps,
    maxFeeBps: feeBps,
    feeReceiver: deployment.parameters.feeCollector,
    salt: BigInt(parsed.data.salt),
  };
  if (payerAgnosticHash(info, deployment.chainId, escrow.escrow).toLowerCase() !== a.nonce.toLowerCase()) {
    return refuse(
      AUTH_CAPTURE_REASONS.nonceMismatch,
      "the authorization's nonce is not the payment's terms' hash (payer left out): it was signed for other terms",
    );
  }
  return {
    payer: payer!,
    info,
    escrow,
    paymentHash: paymentInfoHash(info, deployment.chainId, escrow.escrow),
    signature: parsed.data.signature as Hex,
    hold: e.hold === true,
  };
}

/**
 * The listed escrow set a payment names: the one at `named` (its `extra.authCaptureEscrow`), or, when
 * the requirements name none, the v1.1 set whose EIP-3009 collector the authorization pays (`@x402/evm`
 * signs for its default set then). Null when no listed set matches.
 */
export function escrowSetNamed(sets: readonly EscrowSet[], named: string | undefined, authorizedTo: string): EscrowSet | null {
  if (named !== undefined) return (isAddress(named, { strict: false }) && sets.find((s) => isAddressEqual(s.escrow, named))) || null;
  if (!isAddress(authorizedTo, { strict: false })) return null;
  return sets.find((s) => s.version === "v1.1" && isAddressEqual(s.eip3009Collector, authorizedTo)) ?? null;
}

/** A Permit2 payload, in this service's words: the local chain has no Permit2, so no deployment of this service takes one. */
export const PERMIT2_REFUSAL = "a Permit2 payload: this facilitator settles auth-capture with USDC's ERC-3009 authorization only (assetTransferMethod eip3009)";

/** Whether `address` could spend what it receives (checkRecipient's rule, as a yes or no). */
function spendable(deployment: LiveDeployment, address: Address): boolean {
  try {
    checkRecipient(deployment, address);
    return true;
  } catch {
    return false;
  }
}
