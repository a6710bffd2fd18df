import { blocksIn } from "../block-time.js";
import { REFUND_TOKEN_TTL_SECONDS } from "../capabilities.js";
import { deployBlockOf, holdsEscrowSet } from "../deployments.js";
import { listHolds } from "../holds/hold-list.js";
import { RangeCap } from "../payments/log-ranges.js";
import { refundHold } from "../holds/hold-refunds.js";
import { Holds } from "../holds/holds.js";
import { HoldOperator } from "../holds/operator.js";
import { HoldRules } from "../holds/hold-rules.js";
import { HoldTransactionStore } from "../store/hold-transactions.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import type { HoldsApi } from "../holds/holds-api.js";
import { type BaseRoom, firstLine } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { RelayerRoom } from "./relayer.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";
import { X402Answers } from "../store/x402-answers.js";

/** How often the operator's recorded calls are followed (mined, lost, stuck). */
export const HOLD_FOLLOW_EVERY_MS = 2_000;

/** Holds: the service as the operator of Commerce Payments' escrow, and merchants' holds; null where the deployment names no escrow. */
export interface HoldsRoom {
  operator: HoldOperator | null;
  holds: HoldsApi | null;
}

export function holdsRoom(
  { config, now, logger, randomBytes, metrics }: BaseRoom,
  {
    chain: { client, deployment },
    store: { database, windowLimiter, relayerBudget },
    relayer: { relayer, retired, quoteFees },
    tokens: { tokens },
    webhooks,
  }: { chain: ChainRoom; store: StoreRoom; relayer: RelayerRoom; tokens: TokensRoom; webhooks: Webhooks },
): HoldsRoom {
  const escrow = holdsEscrowSet(deployment);
  if (!escrow) return { operator: null, holds: null };
  const holdStore = new HoldTransactionStore(database);
  const operator = new HoldOperator({
    client,
    chainId: deployment.chainId,
    sets: deployment.authCapture!,
    store: holdStore,
    sender: relayer,
    retiredSenders: retired,
    quoteFees,
    now,
    replaceAfterMs: config.relayer.replaceAfterSeconds * 1000,
    finality: config.finality,
    feeBps: deployment.parameters.feeBps,
    feeReceiver: deployment.parameters.feeCollector,
    payers: new X402Answers(database),
    rules: new HoldRules({
      client,
      store: holdStore,
      // One limit of authorizations a minute per caller, whichever door (the holds API, x402's settle).
      callerLimit: windowLimiter("hold-authorize", config.rateLimits.recoverPerMinute),
      budget: relayerBudget,
      unitsPerEth: config.recurring.unitsPerEth,
      signatureGasCap: config.recurring.signatureGasCap,
    }),
    signatureGasCap: config.recurring.signatureGasCap,
    ledger: metrics.relayerLedger,
    tokenEip712: deployment.token.eip712,
    onError: (hash, error) => logger.warn({ loop: "holds", tx_hash: hash, error: firstLine(error) }, "following an operator call failed"),
  });
  const holds = new Holds({
    client,
    finality: config.finality,
    deployment,
    escrow,
    operator,
    tokens,
    now,
    randomBytes,
    limits: config.payments,
    checkoutUrl: config.checkoutUrl,
    logRangeBlocks: blocksIn(config.follow.logRangeSeconds, deployment.chainId),
    webhooks,
  });
  const listCap = new RangeCap();
  return {
    operator,
    holds: {
      holds,
      refund: (token, amountUnits, refundTxHash) =>
        refundHold(
          {
            holds,
            client,
            finality: config.finality,
            chainId: deployment.chainId,
            token: deployment.token.address,
            escrow: escrow.escrow,
            tokens,
            now,
            ttlSeconds: REFUND_TOKEN_TTL_SECONDS,
            events: { refunded: (holdId, refund) => webhooks.holdRefunded(holdId, refund) },
          },
          token,
          amountUnits,
          refundTxHash,
        ),
      list: (recipient, beforeBlock) =>
        listHolds(
          {
            cap: listCap,
            maxSpan: blocksIn(config.follow.logRangeSeconds, deployment.chainId),
            voided: (hashes) => operator.voidedAmong(hashes),
            client,
            chainId: deployment.chainId,
            escrow: escrow.escrow,
            operator: () => {
              const address = relayer.address;
              if (!address) throw new Error("no relayer key");
              return address;
            },
            deployBlock: deployBlockOf(deployment),
            now,
          },
          { recipient, ...(beforeBlock !== undefined ? { beforeBlock } : {}) },
        ),
    },
  };
}
