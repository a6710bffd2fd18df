import { z } from "zod";
import {
  Address,
  Amount,
  AmountInput,
  AmountUnits,
  BlockNumber,
  Bytes32,
  CapabilityToken,
  ChainId,
  Hash,
  LinkId,
  NotifyIncluded,
  NotifyUrl,
  ReturnUrl,
  Token,
  UnixSeconds,
} from "./primitives.js";

/** One-time payments: POST /v1/payments, /resolve, /verify, /recover. */

export const CreatePaymentRequest = z.strictObject({
  recipient: Address,
  amount: AmountInput,
  notify_url: NotifyUrl.optional(),
  notify_included: NotifyIncluded.optional(),
  return_url: ReturnUrl.optional(),
});
export type CreatePaymentRequest = z.infer<typeof CreatePaymentRequest>;

export const IntentRequest = z.strictObject({ intent: Token });
export type IntentRequest = z.infer<typeof IntentRequest>;

export const VerifyPaymentRequest = z.strictObject({ intent: Token, tx_hash: Bytes32 });
export type VerifyPaymentRequest = z.infer<typeof VerifyPaymentRequest>;

/** Extension: the payment's own address, where a plain transfer of `amount_units` of the token pays it. */
export const DepositAddress = Address.describe(
  "extension: the payment address. A plain transfer of exactly amount_units of token to it, from anywhere (an exchange withdrawal, any wallet), pays this intent; the service settles it through the Splitter (same fee split, same Paid event).",
);

export const CreatePaymentResponse = z.strictObject({
  intent: CapabilityToken,
  reference: Hash,
  amount: Amount,
  expires_at: UnixSeconds,
  pay: z.strictObject({
    chain_id: ChainId,
    splitter: Address,
    token: Address,
    recipient: Address,
    amount_units: AmountUnits,
    reference: Hash,
    deposit_address: DepositAddress,
  }),
  notify_url: z.string().optional(),
  notify_included: z.literal(true).optional().describe("extension: repeated when notify_url was accepted with it"),
});
export type CreatePaymentResponse = z.infer<typeof CreatePaymentResponse>;

/** The token's EIP-712 domain, what an EIP-3009 authorization or EIP-2612 permit for a payment is signed over. */
export const TokenDomain = z
  .strictObject({ name: z.string(), version: z.string(), chainId: ChainId, verifyingContract: Address })
  .describe("the token's EIP-712 domain, what an EIP-3009 authorization or EIP-2612 permit for this payment is signed over (with EIP712Domain in types)");

export const ResolvePaymentResponse = z.strictObject({
  recipient: Address,
  amount: Amount,
  amount_units: AmountUnits,
  token: Address,
  splitter: Address,
  chain_id: ChainId,
  reference: Hash,
  expires_at: UnixSeconds,
  token_domain: TokenDomain,
  deposit_address: DepositAddress,
  intent: CapabilityToken.optional().describe("only for a link token: the fresh intent"),
  link_id: LinkId.optional().describe("only for a link token"),
  return_url: z.string().optional().describe("extension: the merchant's return_url, when it gave one"),
});
export type ResolvePaymentResponse = z.infer<typeof ResolvePaymentResponse>;

/** Why a transaction is not (yet) the intent's payment. */
export const VerifyCode = z.enum(["PAYMENT_NOT_FOUND", "PAYMENT_CONFIRMING", "TRANSACTION_REVERTED", "PAYMENT_MISMATCH"]);
export type VerifyCode = z.infer<typeof VerifyCode>;

/** Extension: what the settlement moved out of the payment address when it held more than the amount. */
const MovedUnits = AmountUnits.describe(
  "extension: present when the payment address held more than amount_units when it settled: everything that left it, in micro-units (the payment and the excess). The fee was taken on all of it, floor(moved_units × fee_bps / 10,000), the recipient got the rest; amount stays the payment's own",
);

const Valid = {
  valid: z.literal(true),
  tx_hash: Hash,
  reference: Hash,
  amount: Amount,
  block_number: BlockNumber,
  block_hash: Hash,
  moved_units: MovedUnits.optional(),
};

export const VerifyPaymentResponse = z.union([
  z.strictObject(Valid),
  z.strictObject({
    valid: z.literal(false),
    code: VerifyCode,
  }),
]);
export type VerifyPaymentResponse = z.infer<typeof VerifyPaymentResponse>;

export const RecoverPaymentResponse = z.union([
  z.strictObject({ found: z.literal(true), ...Valid, as_of_block: BlockNumber }),
  z.strictObject({ found: z.literal(true), tx_hash: Hash, valid: z.literal(false), code: VerifyCode, as_of_block: BlockNumber }),
  z.strictObject({ found: z.literal(false), code: z.literal("PAYMENT_NOT_FOUND"), as_of_block: BlockNumber }),
]);
export type RecoverPaymentResponse = z.infer<typeof RecoverPaymentResponse>;
