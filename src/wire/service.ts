import { z } from "zod";
import { Action, Address, Amount, AmountUnits } from "./primitives.js";

/** The service's own answers: health, capabilities, and the one error body. */

/** `{}` or no body at all. */
export const EmptyRequest = z.strictObject({});

export const HealthResponse = z.strictObject({ ok: z.literal(true) });
export type HealthResponse = z.infer<typeof HealthResponse>;

/** One deployment of Commerce Payments' escrow the service calls, as deployments/<chain id>.json lists it. */
export const AuthCaptureDeployment = z.strictObject({
  version: z.enum(["v1.1"]).describe("The Commerce Payments release whose interface the escrow speaks"),
  escrow: Address,
  eip3009_collector: Address.describe("The escrow's EIP-3009 token collector: the `to` a buyer's ReceiveWithAuthorization names"),
});
export type AuthCaptureDeployment = z.infer<typeof AuthCaptureDeployment>;

export const CapabilitiesResponse = z.strictObject({
  environment: z.enum(["test", "production"]),
  chain_id: z.number().int(),
  api_version: z.literal("1.0.0"),
  contracts: z.strictObject({
    splitter: Address,
    recurring_charges: Address,
    x402_receivers: Address.describe("X402Receivers: the factory and settler of merchants' x402 receivers (receiverOf, settle, split)"),
    auth_capture_escrow: Address.describe(
      "Commerce Payments' AuthCaptureEscrow that holds (POST /v1/holds) and x402 auth-capture run on, the service its operator; on the local chain the project's stand-in at the canonical address. Absent where the deployment names none",
    ).optional(),
    auth_capture_collector: Address.describe(
      "The escrow's EIP-3009 token collector: the `to` a buyer's ReceiveWithAuthorization names. Absent with the escrow",
    ).optional(),
  }),
  auth_capture_deployments: z
    .array(AuthCaptureDeployment)
    .describe(
      "Every Commerce Payments escrow set the service calls: the first is the holds' (contracts.auth_capture_escrow), and an x402 auth-capture payment may name any of them. Absent where the deployment names none",
    )
    .optional(),
  token: z.strictObject({ address: Address, symbol: z.string(), decimals: z.number().int() }),
  fee_bps: z.number().int(),
  network_fee: Amount,
  network_fee_units: AmountUnits,
  payment_amount: z.strictObject({ min: Amount, max: Amount }),
  subscription_amount: z.strictObject({ min: Amount, max: Amount }),
  min_period: z.number().int(),
  max_gas_reimbursement: AmountUnits,
  token_lifetimes: z.strictObject({
    intent: z.number().int(),
    setup_token: z.number().int(),
    cancel_token: z.number().int(),
    approve_token: z.number().int(),
    refund_token: z.number().int(),
  }),
  finality: z.union([
    z.strictObject({ rule: z.literal("safe") }),
    z.strictObject({
      rule: z.literal("confirmations"),
      confirmations: z.number().int(),
      seconds: z.number().optional().describe("the depth as the duration FINALITY gave (confirmations at the chain's block time: 0.2 s on Base since Denim)"),
    }),
  ]),
  webhooks_enabled: z.boolean(),
  checkout_url: z.string(),
  local_chain: z.boolean().describe("extension: a development chain (no block explorer; http return_url allowed)"),
  chain_rpc_url: z
    .string()
    .optional()
    .describe(
      "extension, only when local_chain: the chain's JSON-RPC URL, for a wallet to add as its own network (it has a public chain's id: a wallet that knows that chain would pay there)",
    ),
  payment_addresses: z
    .strictObject({
      settled_by: z
        .enum(["service", "anyone"])
        .describe(
          "service: this service settles a payment address soon after the amount arrives (its relayer pays the gas); anyone: no relayer key here, so the payer, the merchant or anyone calls Splitter.settleDeposit",
        ),
      settlement_fee: Amount.describe("what settling adds to the payment's fee: nothing, the gas is the service's, covered by fee_bps"),
      settlement_fee_units: AmountUnits,
      watched_after_expiry: z.number().int().describe("seconds after an intent expires during which the service still settles a deposit to its address"),
    })
    .describe("extension: how payments to a payment address (pay.deposit_address) are settled"),
});
export type CapabilitiesResponse = z.infer<typeof CapabilitiesResponse>;

/** PAYER_UNKNOWN's list (DESIGN v7): each wallet that sent into the payment address, with what it sent. */
export const PaymentSender = z.strictObject({ address: Address, amount_units: AmountUnits });

/** Every error body: `{ error, action?, retry_after? }`, and `senders` on PAYER_UNKNOWN only. */
export const ErrorBody = z.strictObject({
  error: z.string(),
  action: Action.optional(),
  retry_after: z.number().int().optional(),
  senders: z.array(PaymentSender).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
