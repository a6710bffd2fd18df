import { z } from "zod";
import { AMOUNT_PATTERN } from "../money.js";
import { MAX_TOKEN_LENGTH } from "../tokens/capability.js";
import { MAX_NOTIFY_URL_LENGTH } from "../webhooks/notify-url.js";

/**
 * Wire schemas: one per request type, named like the type it infers. Objects are strict (an
 * unknown field is refused) and every value has its exact string shape; a JSON number where a string
 * is expected is refused.
 */
export const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x and 40 hex digits");
export const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits");
export const Amount = z.string().regex(AMOUNT_PATTERN, "a decimal string with at most 6 fractional digits");
export const Token = z.string().min(1).max(MAX_TOKEN_LENGTH);

/**
 * Extension beyond the spec's request fields (docs/decisions.md): where the checkout offers to send
 * the buyer back after paying. Rules as notify_url (https, default port, public DNS name, no
 * credentials), plain http allowed on the local chain; at most 512 characters.
 */
export const ReturnUrl = z.string().max(512).describe("extension: where the checkout sends the buyer back after paying");

export const CreatePaymentRequest = z.strictObject({
  recipient: Address,
  amount: Amount,
  notify_url: z.string().max(MAX_NOTIFY_URL_LENGTH).optional(),
  return_url: ReturnUrl.optional(),
});
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequest>;

export const IntentRequest = z.strictObject({ intent: Token });
export type IntentRequest = z.infer<typeof IntentRequest>;

export const VerifyPaymentRequest = z.strictObject({ intent: Token, tx_hash: Bytes32 });
export type VerifyPaymentRequest = z.infer<typeof VerifyPaymentRequest>;

/** `{}` or no body at all. */
export const EmptyRequest = z.strictObject({});

export const CreateSubscriptionRequest = z.strictObject({
  recipient: Address,
  amount: Amount,
  period: z
    .number()
    .int()
    .positive()
    .max(10 * 365 * 24 * 3600),
  end: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 53 - 1)
    .optional(),
  notify_url: z.string().max(MAX_NOTIFY_URL_LENGTH).optional(),
  /** Where the checkout sends the payer after signing (payer and signature in the fragment). */
  return_url: z.string().max(512).optional(),
});
export type CreateSubscriptionRequest = z.infer<typeof CreateSubscriptionRequest>;

export const SetupTokenRequest = z.strictObject({ setup_token: Token });

/**
 * A payer's signature: 0x and an even number of hex digits, at most 2,048 bytes. An EOA's is 65 bytes
 * with a low `s`; a contract account's (ERC-1271) is whatever its `isValidSignature` accepts, including
 * `0x` (none) for an account that approved the terms on chain.
 */
export const Signature = z.string().regex(/^0x([0-9a-fA-F]{2}){0,2048}$/, "0x and hex bytes (0x alone for an account that approved on chain)");

export const FinalizeSubscriptionRequest = z.strictObject({ setup_token: Token, payer: Address, signature: Signature });

export const SubscriptionRequest = z.strictObject({ subscription: Token });

export const ChargeRecoverRequest = z.strictObject({
  subscription: Token,
  period_index: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 53 - 1),
});

export const ApproveTokenRequest = z.strictObject({ approve_token: Token });

/** Rule 1 of refunds: `intent` or `subscription` (+ `period_index`) names the original settlement. */
const RefundIdentifier = {
  tx_hash: Bytes32,
  intent: Token.optional(),
  subscription: Token.optional(),
  period_index: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 53 - 1)
    .optional(),
};

/** `amount` is an AmountUnits string; a malformed one is REFUND_AMOUNT_INVALID (checked by the domain). */
export const PrepareRefundRequest = z.strictObject({ ...RefundIdentifier, amount: z.string().max(64) });

export const RefundTokenRequest = z.strictObject({ refund_token: Token });

export const VerifyRefundRequest = z.strictObject({ ...RefundIdentifier, refund_amount: z.string().max(64), refund_tx_hash: Bytes32 });

export const CreateLinkRequest = z.strictObject({
  recipient: Address,
  amount: Amount,
  expires_at: z
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1)
    .optional(),
  notify_url: z.string().max(MAX_NOTIFY_URL_LENGTH).optional(),
  return_url: ReturnUrl.optional(),
});

export const CloseLinkRequest = z.strictObject({ manage_token: Token });
