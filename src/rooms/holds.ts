import { HoldOperator } from "../holds/operator.js";
import { HoldTransactionStore } from "../store/hold-transactions.js";
import { type BaseRoom, firstLine } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { RelayerRoom } from "./relayer.js";
import type { StoreRoom } from "./store.js";

/** How often the operator's recorded calls are followed (mined, lost, stuck). */
export const HOLD_FOLLOW_EVERY_MS = 2_000;

/** Holds: the service as the operator of Commerce Payments' escrow; null where the deployment names no escrow. */
export interface HoldsRoom {
  operator: HoldOperator | null;
}

export function holdsRoom(
  { config, now, logger }: BaseRoom,
  { chain: { client, deployment }, store: { database }, relayer: { relayer, quoteFees } }: { chain: ChainRoom; store: StoreRoom; relayer: RelayerRoom },
): HoldsRoom {
  const escrow = deployment.authCapture;
  if (!escrow) return { operator: null };
  const operator = new HoldOperator({
    client,
    chainId: deployment.chainId,
    escrow: escrow.escrow,
    collector: escrow.eip3009Collector,
    store: new HoldTransactionStore(database),
    sender: relayer,
    quoteFees,
    now,
    replaceAfterMs: config.relayer.replaceAfterSeconds * 1000,
    finality: config.finality,
    feeBps: deployment.parameters.feeBps,
    feeReceiver: deployment.parameters.feeCollector,
    onError: (hash, error) => logger.warn({ loop: "holds", tx_hash: hash, error: firstLine(error) }, "following an operator call failed"),
  });
  return { operator };
}
