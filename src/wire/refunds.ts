import { z } from "zod";
import { Address, Amount, AmountUnits, BlockNumber, Bytes32, CapabilityToken, ChainId, Count, Hash, Token, UnixSeconds } from "./primitives.js";

/** Refunds: POST /v1/refunds/prepare, /resolve, /verify. */

/** Rule 1 of refunds: `intent` or `subscription` (+ `period_index`) names the original settlement. */
const RefundIdentifier = {
  tx_hash: Bytes32,
  intent: Token.optional(),
  subscription: Token.optional(),
  period_index: Count.optional(),
  reference: Bytes32.optional().describe(
    "extension: with neither intent nor subscription, the payment's reference (an x402 receiver payment's nonce), as POST /v1/payments/list shows it: the one Paid (or ReceiverPaid) naming it in tx_hash, in the deployment's token, is the original; merchant, payer and ceiling are that event's",
  ),
  to: Address.optional().describe(
    "extension: the wallet to refund, where PAYER_UNKNOWN listed the payment address's senders: one of them. Send the same to with verify as with prepare. Where the chain names the payer, to may be omitted, and if sent must be that payer",
  ),
};

/** `amount` is an AmountUnits string; a malformed one is REFUND_AMOUNT_INVALID (checked by the domain). */
export const PrepareRefundRequest = z.strictObject({ ...RefundIdentifier, amount: z.string().max(64) });
export type PrepareRefundRequest = z.infer<typeof PrepareRefundRequest>;

export const RefundTokenRequest = z.strictObject({ refund_token: Token });

export const VerifyRefundRequest = z.strictObject({ ...RefundIdentifier, refund_amount: z.string().max(64), refund_tx_hash: Bytes32 });
export type VerifyRefundRequest = z.infer<typeof VerifyRefundRequest>;

/** Who refunds whom, in which token on which chain: what prepare and resolve both show. */
const RefundParties = {
  chain_id: ChainId,
  token: Address,
  merchant: Address,
  payer: Address,
  payer_from_deposit: z
    .literal(true)
    .optional()
    .describe(
      "extension: the payment was a plain transfer to its payment address, and payer is the address that sent it. For an exchange withdrawal that is the exchange's wallet, which may not credit the buyer: confirm with the buyer before refunding.",
    ),
};

export const PrepareRefundResponse = z.strictObject({
  refund_token: CapabilityToken,
  ...RefundParties,
  original_amount: Amount,
  original_amount_units: AmountUnits,
  refund_amount: Amount,
  refund_amount_units: AmountUnits,
  expires_at: UnixSeconds,
});
export type PrepareRefundResponse = z.infer<typeof PrepareRefundResponse>;

export const ResolveRefundResponse = z.strictObject({
  ...RefundParties,
  amount: Amount,
  amount_units: AmountUnits,
  expires_at: UnixSeconds,
});
export type ResolveRefundResponse = z.infer<typeof ResolveRefundResponse>;

export const VerifyRefundResponse = z.strictObject({
  status: z.literal("REFUNDED"),
  refund_tx_hash: Hash,
  refund_amount: AmountUnits,
  original_amount: AmountUnits,
  payer: Address,
  merchant: Address,
  block_number: BlockNumber,
});
export type VerifyRefundResponse = z.infer<typeof VerifyRefundResponse>;
