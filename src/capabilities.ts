import type { CapabilitiesResponse } from "./wire/index.js";
import type { Config } from "./config.js";
import { holdsEscrowSet, type LiveDeployment } from "./deployments.js";
import { formatAmount } from "./money.js";
import { amountFloor } from "./recurring/subscriptions.js";
import { DEPOSIT_WATCH_AFTER_EXPIRY_SECONDS } from "./payments/payments.js";

/** Refund tokens live about 15 minutes (spec). */
export const REFUND_TOKEN_TTL_SECONDS = 900;

export const API_VERSION = "1.0.0" as const;

export type Capabilities = CapabilitiesResponse;

/**
 * The local chain's JSON-RPC URL, for a wallet: only on a local chain, and only a URL with nothing
 * secret in it (no user, password or query; a path is kept, as a node needs it).
 */
function localRpc(config: Config): { chain_rpc_url?: string } {
  if (!config.localChain || !config.rpcUrl) return {};
  const url = new URL(config.rpcUrl);
  if (url.username || url.password || url.search) return {};
  return { chain_rpc_url: url.href.replace(/\/$/, "") };
}

/** What a client needs to know about this deployment, and nothing secret. */
export function describeCapabilities(config: Config, deployment: LiveDeployment): Capabilities {
  const networkFeeUnits = BigInt(deployment.parameters.networkFeeUnits);
  const holds = holdsEscrowSet(deployment);
  return {
    environment: deployment.environment,
    chain_id: deployment.chainId,
    api_version: API_VERSION,
    contracts: {
      splitter: deployment.contracts.Splitter.address,
      recurring_charges: deployment.contracts.RecurringCharges.address,
      x402_receivers: deployment.contracts.X402Receivers.address,
      ...(holds ? { auth_capture_escrow: holds.escrow, auth_capture_collector: holds.eip3009Collector } : {}),
    },
    ...(deployment.authCapture
      ? {
          auth_capture_deployments: deployment.authCapture.map((set) => ({
            version: set.version,
            escrow: set.escrow,
            eip3009_collector: set.eip3009Collector,
          })),
        }
      : {}),
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
    finality:
      config.finality.kind === "safe"
        ? { rule: "safe" }
        : {
            rule: "confirmations",
            confirmations: config.finality.confirmations,
            ...(config.finality.seconds !== undefined ? { seconds: config.finality.seconds } : {}),
          },
    webhooks_enabled: config.webhooksEnabled,
    checkout_url: config.checkoutUrl,
    local_chain: config.localChain,
    ...localRpc(config),
    // The relayer pays the gas of settling a payment address, covered by the payment's fee: the payer
    // sends exactly the amount, the merchant receives it less the same fee as any payment.
    payment_addresses: {
      settled_by: config.relayer.privateKey ? "service" : "anyone",
      settlement_fee: formatAmount(0n),
      settlement_fee_units: "0",
      watched_after_expiry: DEPOSIT_WATCH_AFTER_EXPIRY_SECONDS,
    },
  };
}
