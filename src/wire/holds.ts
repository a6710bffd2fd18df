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
  NotifyUrl,
  Token,
  UnixSeconds,
} from "./primitives.js";

/** Holds (DESIGN v7): authorize now, capture later, through Commerce Payments' escrow with this service as its operator. */

const HoldId = Hash.describe("the hold's name at the escrow: its PaymentInfo hash (covers the chain and the escrow)");
const Hex = z.string().regex(/^0x([0-9a-fA-F]{2}){1,10000}$/);
const Decimal = z.string().regex(/^[0-9]+$/);

export const CreateHoldRequest = z.strictObject({
  recipient: Address,
  amount: AmountInput.describe("the most that may be captured: what the buyer authorizes"),
  capture_before: UnixSeconds.describe("captures only strictly before it; from it on the buyer may reclaim what is left"),
  refund_before: UnixSeconds.describe("refunds only strictly before it; at or after capture_before"),
  notify_url: NotifyUrl.optional(),
});
export type CreateHoldRequest = z.infer<typeof CreateHoldRequest>;

/** The hold's terms, as both capabilities carry them and every answer repeats them. */
const HoldTerms = {
  hold_id: HoldId,
  chain_id: ChainId,
  token: Address,
  recipient: Address,
  amount: Amount,
  amount_units: AmountUnits,
  authorize_before: UnixSeconds.describe("the buyer authorizes strictly before it (the escrow's preApprovalExpiry)"),
  capture_before: UnixSeconds,
  refund_before: UnixSeconds,
  fee_bps: z.number().int().describe("the hold's fee on every capture (the deployment's when it was made), signed by the buyer as both bounds"),
  escrow: Address,
  operator: Address.describe("the relayer account the hold was made with: the only account that may authorize, capture and void it"),
};

export const CreateHoldResponse = z.strictObject({
  hold: CapabilityToken.describe("kind ho: the merchant's capability (capture, void, refund, state, events); keep it secret"),
  checkout_token: CapabilityToken.describe("kind hc: the buyer's (resolve, authorize, state, reclaim), never capture or void; in checkout_url"),
  checkout_url: z.string().nullable().describe("the hosted checkout's page for the buyer; null where CHECKOUT_URL is not set"),
  ...HoldTerms,
  notify_url: z.string().optional(),
});
export type CreateHoldResponse = z.infer<typeof CreateHoldResponse>;

export const HoldRequest = z.strictObject({ hold: Token });
export type HoldRequest = z.infer<typeof HoldRequest>;

export const ResolveHoldRequest = z.strictObject({ hold: Token, payer: Address.describe("the buyer's wallet: the `from` of what it signs") });
export type ResolveHoldRequest = z.infer<typeof ResolveHoldRequest>;

/** The escrow's PaymentInfo, numbers as decimal strings. */
export const PaymentInfoWire = z.strictObject({
  operator: Address,
  payer: Address,
  receiver: Address,
  token: Address,
  maxAmount: AmountUnits,
  preApprovalExpiry: UnixSeconds,
  authorizationExpiry: UnixSeconds,
  refundExpiry: UnixSeconds,
  minFeeBps: z.number().int(),
  maxFeeBps: z.number().int(),
  feeReceiver: Address,
  salt: Decimal,
});

export const ResolveHoldResponse = z.strictObject({
  ...HoldTerms,
  collector: Address.describe("the escrow's EIP-3009 token collector: the `to` the buyer signs"),
  payment_info: PaymentInfoWire,
  typed_data: z
    .strictObject({
      domain: z.strictObject({ name: z.string(), version: z.string(), chainId: ChainId, verifyingContract: Address }),
      types: z.record(z.string(), z.array(z.strictObject({ name: z.string(), type: z.string() }))),
      primaryType: z.literal("ReceiveWithAuthorization"),
      message: z.strictObject({ from: Address, to: Address, value: AmountUnits, validAfter: Decimal, validBefore: Decimal, nonce: Bytes32 }),
    })
    .describe(
      "USDC's ERC-3009 ReceiveWithAuthorization the buyer signs as it is (eth_signTypedData_v4; EIP712Domain in types), its nonce the payer-agnostic PaymentInfo hash",
    ),
});
export type ResolveHoldResponse = z.infer<typeof ResolveHoldResponse>;

export const AuthorizeHoldRequest = z.strictObject({ hold: Token, payer: Address, signature: Hex });
export type AuthorizeHoldRequest = z.infer<typeof AuthorizeHoldRequest>;

export const CaptureHoldRequest = z.strictObject({ hold: Token, amount: AmountInput.describe("at most what is still authorized; repeatable") });
export type CaptureHoldRequest = z.infer<typeof CaptureHoldRequest>;

/** An operator call sent: recorded, then broadcast; its outcome arrives as an event and in /v1/holds/state. */
export const HoldSentResponse = z.strictObject({
  hold_id: HoldId,
  operation: z.enum(["authorize", "capture", "void"]),
  tx_hash: Hash.describe("the call's transaction as first sent (a stuck one is replaced by another with the same nonce)"),
  status: z.literal("SENT"),
});
export type HoldSentResponse = z.infer<typeof HoldSentResponse>;

export const RefundHoldRequest = z.strictObject({
  hold: Token,
  amount: AmountInput.describe("at most what was captured and not yet refunded through here"),
  refund_tx_hash: Bytes32.optional().describe("the merchant's refund transaction: with it, the refund is verified instead of prepared"),
});
export type RefundHoldRequest = z.infer<typeof RefundHoldRequest>;

export const RefundHoldResponse = z.union([
  z.strictObject({
    status: z.literal("PREPARED"),
    hold_id: HoldId,
    refund_token: CapabilityToken.describe("the existing refund page's token: {checkout_url}#/refund/<refund_token>"),
    merchant: Address,
    payer: Address,
    token: Address,
    refund_amount: Amount,
    refund_amount_units: AmountUnits,
    call: z.strictObject({ to: Address, data: Hex }).describe("the token transfer the merchant's wallet sends (from the recipient)"),
    expires_at: UnixSeconds,
  }),
  z.strictObject({ status: z.literal("REFUNDED"), hold_id: HoldId, refund_tx_hash: Hash, refund_amount_units: AmountUnits, block_number: BlockNumber }),
]);
export type RefundHoldResponse = z.infer<typeof RefundHoldResponse>;

export const HoldStateName = z.enum(["AWAITING_AUTHORIZATION", "AUTHORIZATION_EXPIRED", "AUTHORIZED", "EXPIRED", "CAPTURED", "VOIDED", "RECLAIMED"]);
export type HoldStateName = z.infer<typeof HoldStateName>;

export const HoldStep = z.strictObject({
  step: z.enum(["authorized", "captured", "voided", "reclaimed", "refunded"]),
  amount_units: AmountUnits,
  fee_units: AmountUnits.optional().describe("a capture's fee, to the fee collector"),
  tx_hash: Hash,
  block_number: BlockNumber,
  final: z.boolean().describe("false: mined, not final on a majority of the nodes yet"),
});

export const HoldStateResponse = z.strictObject({
  ...HoldTerms,
  state: HoldStateName.describe("from the final steps only"),
  payer: Address.nullable(),
  authorized_units: AmountUnits,
  captured_units: AmountUnits,
  fee_units: AmountUnits,
  capturable_units: AmountUnits,
  voided_units: AmountUnits,
  reclaimed_units: AmountUnits,
  steps: z.array(HoldStep),
  in_flight: z.strictObject({ operation: z.enum(["authorize", "capture", "charge", "void"]), tx_hash: Hash }).nullable(),
  reclaim: z
    .strictObject({ from: Address, to: Address, data: Hex })
    .nullable()
    .describe("once the hold is EXPIRED with funds left: the buyer's own transaction to the escrow's reclaim"),
  as_of_block: BlockNumber,
});
export type HoldStateResponse = z.infer<typeof HoldStateResponse>;

export const ListHoldsRequest = z.strictObject({
  recipient: Address,
  before_block: z
    .string()
    .regex(/^[1-9][0-9]{0,19}$/)
    .optional()
    .describe("the previous page's next_before_block: only holds authorized in blocks below it. Omitted: from the latest block"),
});
export type ListHoldsRequest = z.infer<typeof ListHoldsRequest>;

export const ListHoldsResponse = z.strictObject({
  holds: z.array(
    z.strictObject({
      hold_id: HoldId,
      payer: Address,
      amount_units: AmountUnits,
      state: HoldStateName,
      captured_units: AmountUnits,
      capturable_units: AmountUnits,
      capture_before: UnixSeconds,
      authorized_tx_hash: Hash,
      block_number: BlockNumber,
    }),
  ),
  from_block: BlockNumber.describe("the oldest block this page read: holds authorized below it are on the next page, or older than the list reaches"),
  next_before_block: BlockNumber.nullable().describe(
    "where the next page starts (its before_block): the page read as many log ranges as one page may, or listed as many holds; null once the list reached its oldest block (31 days back)",
  ),
  as_of_block: BlockNumber,
});
export type ListHoldsResponse = z.infer<typeof ListHoldsResponse>;
