import { z } from "zod";
import { Address } from "./schemas.js";

/**
 * Response schemas: one per wire type, named like the type. They describe what the domain returns
 * (tests parse real answers with them) and feed the OpenAPI document.
 */
const Bytes32 = z.string().regex(/^0x[0-9a-f]{64}$/);
const Amount = z
  .string()
  .regex(/^(0|[1-9][0-9]*)\.[0-9]{6}$/)
  .describe("Amount: decimal string, six fractional digits");
const Units = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .describe("AmountUnits: integer string of micro-units");
const BlockNumber = z
  .string()
  .regex(/^[0-9]+$/)
  .describe("decimal string");
const Token = z.string().describe("Token: kind.key.payload.signature");
const Seconds = z.number().int().describe("unix seconds");
const Action = z.enum(["SUCCESS", "WAIT", "RETRY", "FIX_REQUEST", "ASK_PAYER", "STOP"]);
/** The shared pieces, exported so the OpenAPI document names them (components) instead of repeating them. */
export { Action, Address, Bytes32 as Hash, Amount, Units as AmountUnits, BlockNumber, Token as CapabilityToken, Seconds as UnixSeconds };

export const ErrorBody = z.strictObject({ error: z.string(), action: Action.optional(), retry_after: z.number().int().optional() });

export const HealthResponse = z.strictObject({ ok: z.literal(true) });

export const CapabilitiesResponse = z.strictObject({
  environment: z.enum(["test", "production"]),
  chain_id: z.number().int(),
  api_version: z.literal("1.0.0"),
  contracts: z.strictObject({ splitter: Address, recurring_charges: Address }),
  token: z.strictObject({ address: Address, symbol: z.string(), decimals: z.number().int() }),
  fee_bps: z.number().int(),
  network_fee: Amount,
  network_fee_units: Units,
  payment_amount: z.strictObject({ min: Amount, max: Amount }),
  subscription_amount: z.strictObject({ min: Amount, max: Amount }),
  min_period: z.number().int(),
  max_gas_reimbursement: Units,
  token_lifetimes: z.strictObject({
    intent: z.number().int(),
    setup_token: z.number().int(),
    cancel_token: z.number().int(),
    approve_token: z.number().int(),
    refund_token: z.number().int(),
  }),
  finality: z.union([z.strictObject({ rule: z.literal("safe") }), z.strictObject({ rule: z.literal("confirmations"), confirmations: z.number().int() })]),
  webhooks_enabled: z.boolean(),
  checkout_url: z.string(),
  local_chain: z.boolean().describe("extension: a development chain (no block explorer; http return_url allowed)"),
});

export const CreatePaymentResponse = z.strictObject({
  intent: Token,
  reference: Bytes32,
  amount: Amount,
  expires_at: Seconds,
  pay: z.strictObject({ chain_id: z.number().int(), splitter: Address, token: Address, recipient: Address, amount_units: Units, reference: Bytes32 }),
  notify_url: z.string().optional(),
});

export const ResolvePaymentResponse = z.strictObject({
  recipient: Address,
  amount: Amount,
  amount_units: Units,
  token: Address,
  splitter: Address,
  chain_id: z.number().int(),
  reference: Bytes32,
  expires_at: Seconds,
  token_domain: z
    .strictObject({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: Address })
    .describe("the token's EIP-712 domain, what an EIP-3009 authorization or EIP-2612 permit for this payment is signed over (with EIP712Domain in types)"),
  intent: Token.optional().describe("only for a link token: the fresh intent"),
  link_id: z
    .string()
    .regex(/^0x[0-9a-f]{32}$/)
    .optional()
    .describe("only for a link token"),
  return_url: z.string().optional().describe("extension: the merchant's return_url, when it gave one"),
});

const VerifyCode = z.enum(["PAYMENT_NOT_FOUND", "PAYMENT_CONFIRMING", "TRANSACTION_REVERTED", "PAYMENT_MISMATCH"]);
const Valid = { valid: z.literal(true), tx_hash: Bytes32, reference: Bytes32, amount: Amount, block_number: BlockNumber, block_hash: Bytes32 };

export const VerifyPaymentResponse = z.union([z.strictObject(Valid), z.strictObject({ valid: z.literal(false), code: VerifyCode })]);

export const RecoverPaymentResponse = z.union([
  z.strictObject({ found: z.literal(true), ...Valid, as_of_block: BlockNumber }),
  z.strictObject({ found: z.literal(true), tx_hash: Bytes32, valid: z.literal(false), code: VerifyCode, as_of_block: BlockNumber }),
  z.strictObject({ found: z.literal(false), code: z.literal("PAYMENT_NOT_FOUND"), as_of_block: BlockNumber }),
]);

export const CreateLinkResponse = z.strictObject({
  link_id: z.string().regex(/^0x[0-9a-f]{32}$/),
  link: Token,
  url: z.string(),
  manage_token: Token,
  expires_at: Seconds,
  amount: Amount,
  recipient: Address,
  notify_url: z.string().optional(),
});

export const CloseLinkResponse = z.strictObject({ link_id: z.string().regex(/^0x[0-9a-f]{32}$/), closed: z.literal(true) });

export const CreateSubscriptionResponse = z.strictObject({
  setup_token: Token,
  expires_at: Seconds,
  chain_id: z.number().int(),
  contract: Address,
  amount: Amount,
  salt: Bytes32,
  notify_url: z.string().optional(),
});

const EchoedTerms = {
  recipient: Address,
  amount: Amount,
  amount_units: Units,
  period: z.number().int(),
  start: Seconds,
  end: z.number().int().describe("unix seconds, exclusive; 0 = no end"),
  token: Address,
  chain_id: z.number().int(),
  contract: Address,
  salt: Bytes32,
  max_gas_reimbursement: Units,
  fee_bps: z.number().int(),
  network_fee: Amount,
  network_fee_units: Units,
};

export const ResolveSubscriptionResponse = z.strictObject({
  ...EchoedTerms,
  network_fee_estimate: Amount.nullable(),
  expires_at: Seconds,
  return_url: z.string().optional(),
  typed_data: z.strictObject({
    domain: z.strictObject({ name: z.literal("RecurringCharges"), version: z.literal("1"), chainId: z.number().int(), verifyingContract: Address }),
    types: z.record(z.string(), z.array(z.strictObject({ name: z.string(), type: z.string() }))),
    primaryType: z.literal("Terms"),
    message: z.record(z.string(), z.union([z.string(), z.number()])).describe("every field but payer, which the signing wallet fills"),
  }),
});

export const FinalizeSubscriptionResponse = z.strictObject({
  subscription: Token,
  subscription_id: Bytes32,
  amount: Amount,
  period: z.number().int(),
  end: z.number().int(),
});

export const SubscriptionStateResponse = z.strictObject({
  ...EchoedTerms,
  payer: Address,
  subscription_id: Bytes32,
  state: z.enum(["PENDING", "ACTIVE", "REVOKED", "ENDED"]),
  lastPeriod: z.number().int().nullable(),
  paid_count: z.number().int(),
  period_index: z.number().int().nullable(),
  next_period_at: Seconds.nullable(),
  as_of_block: BlockNumber,
});

export const ChargeResponse = z.strictObject({
  status: z.enum(["CHARGED", "ALREADY_CHARGED", "CONFIRMING"]),
  ok: z.boolean(),
  already_paid: z.boolean(),
  action: Action,
  subscription_id: Bytes32,
  period_index: z.number().int(),
  period_start: Seconds,
  period_end: Seconds,
  next_period_at: Seconds.nullable(),
  tx_hash: Bytes32.optional(),
  amount: Amount.optional(),
});

export const ChargeRecoverResponse = z.union([
  z.strictObject({
    found: z.literal(true),
    subscription_id: Bytes32,
    period_index: z.number().int(),
    tx_hash: Bytes32,
    block_number: BlockNumber,
    payer: Address,
    recipient: Address,
    net_units: Units,
    fee_units: Units,
    network_fee_units: Units,
    amount_units: Units,
  }),
  z.strictObject({ found: z.literal(false), code: z.literal("PAYMENT_NOT_FOUND"), as_of_block: BlockNumber }),
]);

export const ApproveSessionResponse = z.strictObject({ approve_token: Token, expires_at: Seconds, payer: Address, subscription_id: Bytes32 });
export const ApproveResolveResponse = z.strictObject({
  chain_id: z.number().int(),
  token: Address,
  spender: Address,
  payer: Address,
  subscription_id: Bytes32,
  required_units: Units,
  expires_at: Seconds,
});
export const RevokeSessionResponse = z.strictObject({ cancel_token: Token, expires_at: Seconds, subscription_id: Bytes32, payer: Address });
export const RevokePrepareResponse = z.strictObject({
  chain_id: z.number().int(),
  payer: Address,
  to: Address,
  data: z.string().regex(/^0x[0-9a-f]*$/),
  subscription_id: Bytes32,
  description: z.string(),
});
export const AllowanceRevokePrepareResponse = z.strictObject({
  chain_id: z.number().int(),
  to: Address,
  data: z.string().regex(/^0x[0-9a-f]*$/),
  description: z.string(),
});

export const PrepareRefundResponse = z.strictObject({
  refund_token: Token,
  chain_id: z.number().int(),
  token: Address,
  merchant: Address,
  payer: Address,
  original_amount: Amount,
  original_amount_units: Units,
  refund_amount: Amount,
  refund_amount_units: Units,
  expires_at: Seconds,
});
export const ResolveRefundResponse = z.strictObject({
  chain_id: z.number().int(),
  token: Address,
  merchant: Address,
  payer: Address,
  amount: Amount,
  amount_units: Units,
  expires_at: Seconds,
});
export const VerifyRefundResponse = z.strictObject({
  status: z.literal("REFUNDED"),
  refund_tx_hash: Bytes32,
  refund_amount: Units,
  original_amount: Units,
  payer: Address,
  merchant: Address,
  block_number: BlockNumber,
});
