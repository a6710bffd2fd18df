import type { Address } from "viem";
import type { Config } from "./config.js";
import type { LiveDeployment } from "./deployments.js";
import { formatAmount } from "./money.js";
import { amountFloor } from "./recurring/subscriptions.js";

/** Refund tokens live about 15 minutes (spec). */
export const REFUND_TOKEN_TTL_SECONDS = 900;

export const API_VERSION = "1.0.0";

export interface Capabilities {
  environment: "test" | "production";
  chain_id: number;
  api_version: string;
  contracts: { splitter: Address; recurring_charges: Address };
  token: { address: Address; symbol: string; decimals: number };
  fee_bps: number;
  network_fee: string;
  network_fee_units: string;
  payment_amount: { min: string; max: string };
  subscription_amount: { min: string; max: string };
  min_period: number;
  max_gas_reimbursement: string;
  token_lifetimes: { intent: number; setup_token: number; cancel_token: number; approve_token: number; refund_token: number };
  finality: { rule: "safe" } | { rule: "confirmations"; confirmations: number };
  webhooks_enabled: boolean;
  checkout_url: string;
  /** Extension: a development chain (the checkout shows no explorer link; http return_url allowed). */
  local_chain: boolean;
}

/** What a client needs to know about this deployment, and nothing secret. */
export function describeCapabilities(config: Config, deployment: LiveDeployment): Capabilities {
  const networkFeeUnits = BigInt(deployment.parameters.networkFeeUnits);
  return {
    environment: deployment.environment,
    chain_id: deployment.chainId,
    api_version: API_VERSION,
    contracts: { splitter: deployment.contracts.Splitter.address, recurring_charges: deployment.contracts.RecurringCharges.address },
    token: { address: deployment.token.address, symbol: deployment.token.symbol, decimals: deployment.token.decimals },
    fee_bps: deployment.parameters.feeBps,
    network_fee: formatAmount(networkFeeUnits),
    network_fee_units: networkFeeUnits.toString(),
    payment_amount: { min: formatAmount(config.payments.minUnits), max: formatAmount(config.payments.maxUnits) },
    subscription_amount: { min: formatAmount(amountFloor(deployment.parameters.feeBps, networkFeeUnits)), max: formatAmount(config.payments.maxUnits) },
    min_period: config.recurring.minPeriodSeconds,
    max_gas_reimbursement: config.recurring.maxGasReimbursementUnits.toString(),
    token_lifetimes: {
      intent: config.payments.intentTtlSeconds,
      setup_token: config.recurring.setupTtlSeconds,
      cancel_token: config.recurring.cancelTtlSeconds,
      approve_token: config.recurring.approveTtlSeconds,
      refund_token: REFUND_TOKEN_TTL_SECONDS,
    },
    finality: config.finality.kind === "safe" ? { rule: "safe" } : { rule: "confirmations", confirmations: config.finality.confirmations },
    webhooks_enabled: config.webhooksEnabled,
    checkout_url: config.checkoutUrl,
    local_chain: config.localChain,
  };
}
