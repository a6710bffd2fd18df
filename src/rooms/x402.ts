import { AUTH_CAPTURE_GAS, AuthCaptureFacilitator } from "../x402/auth-capture.js";
import { x402Hold } from "../x402/auth-capture-hold.js";
import { X402_SETTLE_POLL_MS, X402_SETTLE_WAIT_MS, X402_SETTLEMENT_GAS, X402Facilitator } from "../x402/facilitator.js";
import { ReceiverDirectory } from "../x402/receivers.js";
import { settlementVerdict } from "../x402/verdict.js";
import type { X402Domains } from "../http/routes/x402.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { HoldsRoom } from "./holds.js";
import type { PaymentsRoom } from "./payments.js";
import type { ReceiversRoom } from "./receivers.js";
import type { RelayerRoom } from "./relayer.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";

/** The x402 facilitator (verify and settle, to a payment address or a merchant's receiver) and the merchant's x402 endpoints. */
export interface X402Room {
  facilitator: X402Facilitator;
  /** POST /v1/x402/receivers and /v1/x402/verdict. */
  domains: X402Domains;
}

export function x402Room(
  { config, now }: BaseRoom,
  {
    chain: { chain },
    relayer: { relayer, quoteFees },
    store: { relayerBudget },
    payments,
    receivers,
    holds,
    tokens,
  }: { chain: ChainRoom; relayer: RelayerRoom; store: StoreRoom; payments: PaymentsRoom; receivers: ReceiversRoom; holds: HoldsRoom; tokens: TokensRoom },
): X402Room {
  // auth-capture where the deployment has an escrow: the holds' operator sends its calls.
  const authCapture = holds.operator
    ? new AuthCaptureFacilitator(
        {
          chain,
          operator: holds.operator,
          answers: receivers.answers,
          minUnits: config.payments.minUnits,
          maxGas: AUTH_CAPTURE_GAS + config.recurring.signatureGasCap,
          holdAnswer: x402Hold(tokens.tokens, chain.deployment),
          settleWaitMs: X402_SETTLE_WAIT_MS,
          pollMs: X402_SETTLE_POLL_MS,
        },
        `eip155:${chain.deployment.chainId}`,
      )
    : undefined;
  const facilitator = new X402Facilitator({
    chain,
    watches: payments.depositWatches,
    answers: receivers.answers,
    receivers: receivers.store,
    settlements: payments.depositSettler,
    receiverSender: receivers.sender,
    receiverSplitter: receivers.splitter,
    submitter: () => relayer.address,
    maxSettlementGas: X402_SETTLEMENT_GAS + config.recurring.signatureGasCap,
    minReceiverUnits: config.payments.minUnits,
    settleWaitMs: X402_SETTLE_WAIT_MS,
    pollMs: X402_SETTLE_POLL_MS,
    ...(authCapture ? { authCapture } : {}),
    // A settlement counted at its gas without payer code (X402_SETTLEMENT_GAS) at the fee cap it would bid.
    budget: {
      budget: relayerBudget,
      costWei: async () => X402_SETTLEMENT_GAS * (await quoteFees()).maxFeePerGas,
      unitsPerEth: config.recurring.unitsPerEth,
      feeBps: chain.deployment.parameters.feeBps,
    },
  });
  return {
    facilitator,
    domains: {
      receivers: new ReceiverDirectory({
        chain,
        store: receivers.store,
        now,
        unfundedPerCaller: config.x402.unfundedReceiversPerCaller,
        idleMs: config.x402.receiverIdleSeconds * 1000,
      }),
      verdict: (q) => settlementVerdict(chain, q),
    },
  };
}
