import { getAddress, toHex, zeroAddress, type Address, type Hex } from "viem";
import { z } from "zod";
import { DomainError } from "../errors.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import { TOKEN_KINDS } from "../tokens/capability.js";
import { payerAgnosticHash, type PaymentInfo } from "./payment-info.js";

/** The earliest `capture_before` a hold may name, from now: time for the buyer to authorize and the merchant to capture. */
export const HOLD_MIN_CAPTURE_SECONDS = 300;
/** The latest `capture_before` a hold may name, from now: the buyer's funds sit in escrow until then (or until a void). */
export const HOLD_MAX_CAPTURE_SECONDS = 30 * 86_400;
/** The latest `refund_before` a hold may name, from now. */
export const HOLD_MAX_REFUND_SECONDS = 365 * 86_400;
/** How long the buyer has to authorize, from creation (never past `capture_before`): the escrow's `preApprovalExpiry`. */
export const HOLD_AUTHORIZE_SECONDS = 86_400;

const addressField = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

/**
 * What both of a hold's capabilities carry (nothing of it is stored): the terms the escrow's
 * PaymentInfo is built from, less the payer (whoever authorizes), and the block it was made at, below
 * which none of its events can be. The operator (`o`), fee (`f`, basis points) and fee receiver
 * (`fr`) travel with it, so a relayer key rotation or a new `fee_bps` leaves open holds as signed;
 * a capability made before they travelled has none, and takes the service's own.
 */
const HoldPayload = z.strictObject({
  o: addressField.optional(),
  f: z.number().int().min(0).max(10_000).optional(),
  fr: addressField.optional(),
  r: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  a: z.string().regex(/^[1-9][0-9]{0,35}$/),
  pe: z.number().int().positive(),
  ae: z.number().int().positive(),
  re: z.number().int().positive(),
  s: z.string().regex(/^0x[0-9a-f]{64}$/),
  b: z.string().regex(/^[0-9]{1,20}$/),
});
type HoldPayload = z.infer<typeof HoldPayload>;

/** A hold's terms, as the service reads them from a capability. */
export interface HoldTerms {
  recipient: Address;
  amountUnits: bigint;
  authorizeBefore: number;
  captureBefore: number;
  refundBefore: number;
  salt: Hex;
  fromBlock: bigint;
  /** The escrow's operator, fee (basis points, both bounds) and fee receiver the hold was made with; absent on a capability older than them. */
  operator?: Address;
  feeBps?: number;
  feeReceiver?: Address;
}

/** Whose capability: the merchant's (`ho`: everything) or the buyer's from the checkout (`hc`: resolve, authorize, state, reclaim). */
export type HoldRole = "merchant" | "buyer";

/**
 * The hold's deadlines checked against now and each other, and the escrow's rule (authorize ≤ capture
 * ≤ refund): INVALID_HOLD with the rule broken. `authorizeBefore` is derived: a day from now, never
 * past `capture_before`.
 */
export function holdDeadlines(nowSeconds: number, captureBefore: number, refundBefore: number): { authorizeBefore: number } {
  if (captureBefore < nowSeconds + HOLD_MIN_CAPTURE_SECONDS) {
    throw new DomainError("INVALID_HOLD", { detail: `capture_before: at least ${HOLD_MIN_CAPTURE_SECONDS} s from now` });
  }
  if (captureBefore > nowSeconds + HOLD_MAX_CAPTURE_SECONDS) {
    throw new DomainError("INVALID_HOLD", { detail: `capture_before: at most ${HOLD_MAX_CAPTURE_SECONDS} s from now` });
  }
  if (refundBefore < captureBefore) throw new DomainError("INVALID_HOLD", { detail: "refund_before: at or after capture_before" });
  if (refundBefore > nowSeconds + HOLD_MAX_REFUND_SECONDS) {
    throw new DomainError("INVALID_HOLD", { detail: `refund_before: at most ${HOLD_MAX_REFUND_SECONDS} s from now` });
  }
  return { authorizeBefore: Math.min(captureBefore, nowSeconds + HOLD_AUTHORIZE_SECONDS) };
}

/** Mints the merchant's and the buyer's capabilities for one hold: the same terms, two kinds. */
export function mintHold(tokens: CapabilityTokens, terms: HoldTerms): { hold: string; checkout: string } {
  const payload: HoldPayload = {
    r: terms.recipient,
    a: terms.amountUnits.toString(),
    pe: terms.authorizeBefore,
    ae: terms.captureBefore,
    re: terms.refundBefore,
    s: terms.salt,
    b: terms.fromBlock.toString(),
    ...(terms.operator ? { o: terms.operator } : {}),
    // Stryker disable next-line ConditionalExpression: `{ f: undefined }` mints the same token (JSON leaves an undefined field out)
    ...(terms.feeBps !== undefined ? { f: terms.feeBps } : {}),
    ...(terms.feeReceiver ? { fr: terms.feeReceiver } : {}),
  };
  return { hold: tokens.mint(TOKEN_KINDS.hold, payload), checkout: tokens.mint(TOKEN_KINDS.holdCheckout, payload) };
}

/**
 * Reads a hold capability: the merchant's only where `merchantOnly`, else either; INVALID_HOLD_TOKEN
 * for anything else (another kind, a forged or foreign token). Only the token is read: no store, no chain.
 */
export function readHold(tokens: CapabilityTokens, token: string, merchantOnly: boolean): HoldTerms & { role: HoldRole } {
  const asMerchant = tokens.verify(TOKEN_KINDS.hold, token, HoldPayload);
  const data = asMerchant ?? (merchantOnly ? null : tokens.verify(TOKEN_KINDS.holdCheckout, token, HoldPayload));
  if (!data) throw new DomainError("INVALID_HOLD_TOKEN");
  return {
    role: asMerchant ? "merchant" : "buyer",
    recipient: getAddress(data.r),
    amountUnits: BigInt(data.a),
    authorizeBefore: data.pe,
    captureBefore: data.ae,
    refundBefore: data.re,
    salt: data.s as Hex,
    fromBlock: BigInt(data.b),
    ...(data.o ? { operator: getAddress(data.o) } : {}),
    ...(data.f !== undefined ? { feeBps: data.f } : {}),
    ...(data.fr ? { feeReceiver: getAddress(data.fr) } : {}),
  };
}

/**
 * The escrow's PaymentInfo of a hold, for `payer` (the zero address: the payer-agnostic terms the
 * buyer's nonce is formed from): the operator and fee the hold carries, else the service's.
 */
export function paymentInfoOf(
  terms: HoldTerms,
  payer: Address,
  service: { operator: Address; token: Address; feeBps: number; feeReceiver: Address },
): PaymentInfo {
  return {
    operator: terms.operator ?? service.operator,
    payer,
    receiver: terms.recipient,
    token: service.token,
    maxAmount: terms.amountUnits,
    preApprovalExpiry: terms.authorizeBefore,
    authorizationExpiry: terms.captureBefore,
    refundExpiry: terms.refundBefore,
    minFeeBps: terms.feeBps ?? service.feeBps,
    maxFeeBps: terms.feeBps ?? service.feeBps,
    feeReceiver: terms.feeReceiver ?? service.feeReceiver,
    salt: BigInt(terms.salt),
  };
}

/** A fresh salt: 32 random bytes, so equal terms make distinct holds. */
export function holdSalt(randomBytes: (size: number) => Uint8Array): Hex {
  return toHex(randomBytes(32));
}

/** What a hold's id is formed from besides its capability: the service's parts of the escrow's terms, and where. */
export interface HoldService {
  operator: Address;
  token: Address;
  feeBps: number;
  feeReceiver: Address;
  chainId: number;
  escrow: Address;
}

/** The id a merchant's hold capability names (POST /v1/events files a hold's events under it); INVALID_HOLD_TOKEN otherwise. */
export function holdIdFromToken(tokens: CapabilityTokens, token: string, service: HoldService): Hex {
  return payerAgnosticHash(paymentInfoOf(readHold(tokens, token, true), zeroAddress, service), service.chainId, service.escrow);
}
