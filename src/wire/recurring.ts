import { z } from "zod";
import {
  Action,
  Address,
  Amount,
  AmountInput,
  AmountUnits,
  BlockNumber,
  Calldata,
  CapabilityToken,
  ChainId,
  Count,
  Hash,
  LinkId,
  NotifyIncluded,
  NotifyUrl,
  ReturnUrl,
  Signature,
  Token,
  UnixSeconds,
} from "./primitives.js";

/** Subscriptions, charges, approval and cancellation. */

/** A billing period in seconds (at least the deployment's min_period). */
export const SubscriptionPeriod = z
  .number()
  .int()
  .positive()
  .max(10 * 365 * 24 * 3600);

export const CreateSubscriptionRequest = z.strictObject({
  recipient: Address,
  amount: AmountInput,
  period: SubscriptionPeriod,
  end: Count.optional(),
  notify_url: NotifyUrl.optional(),
  notify_included: NotifyIncluded.optional(),
  /** Where the checkout sends the payer after signing (payer and signature in the fragment). */
  return_url: ReturnUrl.optional(),
});
export type CreateSubscriptionRequest = z.infer<typeof CreateSubscriptionRequest>;

export const SetupTokenRequest = z.strictObject({ setup_token: Token });
export const FinalizeSubscriptionRequest = z.strictObject({ setup_token: Token, payer: Address, signature: Signature });
export const SubscriptionRequest = z.strictObject({ subscription: Token });
export const ChargeRecoverRequest = z.strictObject({ subscription: Token, period_index: Count });
export const ApproveTokenRequest = z.strictObject({ approve_token: Token });

export const SubscriptionStateName = z.enum(["PENDING", "ACTIVE", "REVOKED", "ENDED"]);
export type SubscriptionStateName = z.infer<typeof SubscriptionStateName>;

export const CreateSubscriptionResponse = z.strictObject({
  setup_token: CapabilityToken,
  expires_at: UnixSeconds,
  chain_id: ChainId,
  contract: Address,
  amount: Amount,
  salt: Hash,
  notify_url: z.string().optional(),
  notify_included: z.literal(true).optional().describe("extension: repeated when notify_url was accepted with it"),
});
export type CreateSubscriptionResponse = z.infer<typeof CreateSubscriptionResponse>;

/** The signed terms, echoed by resolve and state. */
const EchoedTerms = {
  recipient: Address,
  amount: Amount,
  amount_units: AmountUnits,
  period: z.number().int(),
  start: UnixSeconds,
  end: z.number().int().describe("unix seconds, exclusive; 0 = no end"),
  token: Address,
  chain_id: ChainId,
  contract: Address,
  salt: Hash,
  max_gas_reimbursement: AmountUnits,
  fee_bps: z.number().int(),
  network_fee: Amount,
  network_fee_units: AmountUnits,
};
export type EchoedTerms = z.infer<z.ZodObject<typeof EchoedTerms>>;

export const ResolveSubscriptionResponse = z.strictObject({
  ...EchoedTerms,
  network_fee_estimate: Amount.nullable(),
  expires_at: UnixSeconds,
  return_url: z.string().optional(),
  setup_token: CapabilityToken.optional().describe("for a subscription link's token: the fresh setup minted for this visitor"),
  link_id: LinkId.optional().describe("for a subscription link's token: the link; sign, then POST /v1/links/subscribe"),
  typed_data: z.strictObject({
    domain: z.strictObject({ name: z.literal("RecurringCharges"), version: z.literal("1"), chainId: ChainId, verifyingContract: Address }),
    types: z.record(z.string(), z.array(z.strictObject({ name: z.string(), type: z.string() }))),
    primaryType: z.literal("Terms"),
    message: z.record(z.string(), z.union([z.string(), z.number()])).describe("every field but payer, which the signing wallet fills"),
  }),
});
export type ResolveSubscriptionResponse = z.infer<typeof ResolveSubscriptionResponse>;

export const FinalizeSubscriptionResponse = z.strictObject({
  subscription: CapabilityToken,
  subscription_id: Hash,
  amount: Amount,
  period: z.number().int(),
  end: z.number().int(),
});
export type FinalizeSubscriptionResponse = z.infer<typeof FinalizeSubscriptionResponse>;

export const SubscriptionStateResponse = z.strictObject({
  ...EchoedTerms,
  payer: Address,
  subscription_id: Hash,
  state: SubscriptionStateName,
  lastPeriod: z.number().int().nullable(),
  paid_count: z.number().int(),
  period_index: z.number().int().nullable(),
  next_period_at: UnixSeconds.nullable(),
  as_of_block: BlockNumber,
});
export type SubscriptionStateResponse = z.infer<typeof SubscriptionStateResponse>;

export const ChargeStatus = z.enum(["CHARGED", "ALREADY_CHARGED", "CONFIRMING"]);
export type ChargeStatus = z.infer<typeof ChargeStatus>;

export const ChargeResponse = z.strictObject({
  status: ChargeStatus,
  ok: z.boolean(),
  already_paid: z.boolean(),
  action: Action,
  subscription_id: Hash,
  period_index: z.number().int(),
  period_start: UnixSeconds,
  period_end: UnixSeconds,
  next_period_at: UnixSeconds.nullable(),
  tx_hash: Hash.optional(),
  amount: Amount.optional(),
});
export type ChargeResponse = z.infer<typeof ChargeResponse>;

export const ChargeRecoverResponse = z.union([
  z.strictObject({
    found: z.literal(true),
    subscription_id: Hash,
    period_index: z.number().int(),
    tx_hash: Hash,
    block_number: BlockNumber,
    payer: Address,
    recipient: Address,
    net_units: AmountUnits,
    fee_units: AmountUnits,
    network_fee_units: AmountUnits,
    amount_units: AmountUnits,
  }),
  z.strictObject({ found: z.literal(false), code: z.literal("PAYMENT_NOT_FOUND"), as_of_block: BlockNumber }),
]);
export type ChargeRecoverResponse = z.infer<typeof ChargeRecoverResponse>;

export const ApproveSessionResponse = z.strictObject({ approve_token: CapabilityToken, expires_at: UnixSeconds, payer: Address, subscription_id: Hash });
export type ApproveSessionResponse = z.infer<typeof ApproveSessionResponse>;

/**
 * An extension on approve resolve and revoke prepare: the subscription a page acts on, as a person
 * reads it ("9.99 USDC every 30 days to 0x90F7…b906, next charge on 24 Dec").
 */
export const SubscriptionSummary = z
  .strictObject({
    recipient: Address,
    amount: Amount,
    amount_units: AmountUnits,
    period: z.number().int().describe("seconds"),
    start: UnixSeconds,
    end: z.number().int().describe("unix seconds, exclusive; 0 = no end"),
    next_charge_at: UnixSeconds.nullable().describe(
      "the start of the first period not yet charged; null when no further charge can be taken (revoked, or past the end)",
    ),
    next_charge_due: z.boolean().describe("true when that period has begun: the next charge can be taken now (by the chain's clock)"),
  })
  .describe("extension (docs/decisions.md): the subscription this page acts on, read from the token and the chain");
export type SubscriptionSummary = z.infer<typeof SubscriptionSummary>;

export const ApproveResolveResponse = z.strictObject({
  chain_id: ChainId,
  token: Address,
  spender: Address,
  payer: Address,
  subscription_id: Hash,
  required_units: AmountUnits,
  expires_at: UnixSeconds,
  terms: SubscriptionSummary,
});
export type ApproveResolveResponse = z.infer<typeof ApproveResolveResponse>;

export const RevokeSessionResponse = z.strictObject({ cancel_token: CapabilityToken, expires_at: UnixSeconds, subscription_id: Hash, payer: Address });
export type RevokeSessionResponse = z.infer<typeof RevokeSessionResponse>;

export const RevokePrepareResponse = z.strictObject({
  chain_id: ChainId,
  payer: Address,
  to: Address,
  data: Calldata,
  subscription_id: Hash,
  description: z.string(),
  terms: SubscriptionSummary,
});
export type RevokePrepareResponse = z.infer<typeof RevokePrepareResponse>;

export const AllowanceRevokePrepareResponse = z.strictObject({
  chain_id: ChainId,
  to: Address,
  data: Calldata,
  description: z.string(),
});
export type AllowanceRevokePrepareResponse = z.infer<typeof AllowanceRevokePrepareResponse>;
