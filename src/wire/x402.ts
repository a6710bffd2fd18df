import { z } from "zod";

/**
 * The x402 v2 facilitator wire (x402-foundation/x402, specs/x402-specification-v2.md, sections 5 and
 * 7): GET /x402/supported, POST /x402/verify, POST /x402/settle. These are x402's shapes, not this
 * API's: camelCase, unknown fields kept (x402 objects grow: `extensions`, `resource`), refusals as
 * `isValid: false` / `success: false` with x402's reason strings. Requests are read loosely here and
 * judged by the facilitator (src/x402), which answers every refusal in x402's shape.
 */

const MAX_FIELD = 512;
const text = z.string().max(MAX_FIELD);

/** What a resource server asks for one payment option (x402 `PaymentRequirements`, v2). */
export const X402PaymentRequirements = z.looseObject({
  scheme: text,
  network: text,
  amount: text,
  asset: text,
  payTo: text,
  maxTimeoutSeconds: z.number().int().nonnegative(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type X402PaymentRequirements = z.infer<typeof X402PaymentRequirements>;

/** The resource a payment is for (x402 `ResourceInfo`): informational. */
export const X402ResourceInfo = z.looseObject({ url: z.string().max(2048), description: z.string().max(2048).optional(), mimeType: text.optional() });

/**
 * A signed payment (x402 `PaymentPayload`, v2): `payload` is the scheme's (for `exact` on EVM, an
 * EIP-3009 authorization and its signature; for `auth-capture`, the client's authorization and salt,
 * or a resource server's lifecycle payload naming its `type`: `capture`, `void`, `refund`).
 */
export const X402PaymentPayload = z.looseObject({
  x402Version: z.number().int(),
  resource: X402ResourceInfo.optional(),
  accepted: X402PaymentRequirements,
  payload: z.record(z.string(), z.unknown()),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
export type X402PaymentPayload = z.infer<typeof X402PaymentPayload>;

/** The body of POST /x402/verify and POST /x402/settle. */
export const X402FacilitatorRequest = z.looseObject({
  x402Version: z.number().int(),
  paymentPayload: X402PaymentPayload,
  paymentRequirements: X402PaymentRequirements,
});
export type X402FacilitatorRequest = z.infer<typeof X402FacilitatorRequest>;

/** POST /x402/verify's answer: valid, or `isValid: false` with x402's reason (e.g. `invalid_exact_evm_nonce_already_used`). */
export const X402VerifyResponse = z.object({
  isValid: z.boolean(),
  invalidReason: z.string().optional(),
  invalidMessage: z.string().optional(),
  payer: z.string().optional(),
});
export type X402VerifyResponse = z.infer<typeof X402VerifyResponse>;

/**
 * The hold an `auth-capture` settle authorized on a collect-only route (no receiver authorizer, so no
 * relayed capture or void): the escrow's name for the payment, and what the resource server needs to
 * capture or void it out of band through /v1/holds. The resource server's scheme (client package)
 * takes it out of the answer before the answer reaches the buyer.
 */
export const X402SettledHold = z.object({
  /** The escrow's `getHash` of the payment's terms (its events name it). */
  payment_hash: z.string(),
  /** The hold's id in /v1/holds and its events: the payer-agnostic hash the agent signed as its nonce. */
  hold_id: z.string(),
  /** Kind `ho`: the merchant's capability for /v1/holds/capture, /void, /refund and /state; keep it secret. */
  hold: z.string(),
  /** Unix seconds: capture strictly before it; past it the agent may reclaim what is left. */
  capture_before: z.number().int(),
  refund_before: z.number().int(),
});
export type X402SettledHold = z.infer<typeof X402SettledHold>;

/**
 * POST /x402/settle's answer: `success: true` with the settlement transaction (the one whose `Paid`
 * split the payment, or for `auth-capture` the escrow's charge or authorization), or `success: false`
 * with x402's reason and an empty `transaction`.
 */
export const X402SettleResponse = z.object({
  success: z.boolean(),
  errorReason: z.string().optional(),
  errorMessage: z.string().optional(),
  payer: z.string().optional(),
  transaction: z.string(),
  network: z.string(),
  /** `auth-capture`: the amount settled (micro-units): authorized, charged or captured; "0" for a void. */
  amount: z.string().optional(),
  /** `auth-capture` on a collect-only route: the hold (x402's settle answer carries scheme data in `extra`). */
  extra: z.object({ hold: X402SettledHold }).optional(),
});
export type X402SettleResponse = z.infer<typeof X402SettleResponse>;

/** One scheme and network this facilitator settles. */
export const X402SupportedKind = z.object({
  x402Version: z.literal(2),
  scheme: z.enum(["exact", "auth-capture"]),
  network: z.string(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type X402SupportedKind = z.infer<typeof X402SupportedKind>;

/**
 * GET /x402/supported's answer: the kinds (`exact`; `auth-capture` with its `extra`: the escrow, the
 * `"delegated"` operator as `captureAuthorizer`, the fee collector and the fee bounds), the extensions
 * (none) and the addresses that submit settlements.
 */
export const X402SupportedResponse = z.object({
  kinds: z.array(X402SupportedKind),
  extensions: z.array(z.string()),
  signers: z.record(z.string(), z.array(z.string())),
});
export type X402SupportedResponse = z.infer<typeof X402SupportedResponse>;
