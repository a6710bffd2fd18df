import { blocksIn } from "../block-time.js";
import { ConcurrencyGate } from "../limits/rate-limiter.js";
import { FairGate } from "../limits/fair-gate.js";
import { LinkStatus } from "../links/link-status.js";
import { LinkRecords } from "../links/records.js";
import { DepositSettler } from "../payments/deposit-settler.js";
import { Payments } from "../payments/payments.js";
import { PaymentsList } from "../payments/payments-list.js";
import { DepositWatches } from "../store/deposit-watches.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import { type BaseRoom, firstLine } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { ReceiversRoom } from "./receivers.js";
import type { RelayerRoom } from "./relayer.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";

/** Payments-list pages one caller may have waiting for a turn; its next ones answer RPC_BUSY. */
const LIST_PAGES_WAITING_PER_CALLER = 8;

/** One-time payments: intents, their payment addresses, and the settler that settles what reaches those addresses. */
export interface PaymentsRoom {
  payments: Payments;
  depositWatches: DepositWatches;
  /** Settles payments paid to their payment address (in each round of the chain follower). */
  depositSettler: DepositSettler;
  /** The payments to a recipient, read from the chain a bounded page at a time. */
  paymentsList: PaymentsList;
}

export function paymentsRoom(
  { config, now, randomBytes, logger, metrics }: BaseRoom,
  needs: { chain: ChainRoom; store: StoreRoom; tokens: TokensRoom; relayer: RelayerRoom; webhooks: Webhooks; receivers: ReceiversRoom },
): PaymentsRoom {
  const { chain, store, relayer, receivers } = needs;
  const depositWatches = new DepositWatches(store.database);
  const payments = new Payments({
    chain: chain.chain,
    depositWatches,
    tokens: needs.tokens.tokens,
    limits: config.payments,
    now,
    randomBytes,
    recoverPerIntent: store.windowLimiter("recover-intent", config.rateLimits.recoverPerIntentPerMinute),
    recoverGate: new ConcurrencyGate(config.rateLimits.recoverConcurrency, 32),
    webhooks: needs.webhooks,
    // An intent minted through a link pays only while the link is open (the link table's rule; links are built later).
    linkStatus: new LinkStatus(new LinkRecords(store.database), now),
    localChain: config.localChain,
  });
  const depositSettler = new DepositSettler({
    ...chain.chain,
    watches: depositWatches,
    depositAddresses: payments.depositAddresses,
    sender: relayer.relayer,
    quoteFees: relayer.quoteFees,
    now,
    replaceAfterMs: config.relayer.replaceAfterSeconds * 1000,
    ranges: {
      transferBlocks: blocksIn(config.follow.transferRangeSeconds, config.chainId),
      paidBlocks: blocksIn(config.follow.logRangeSeconds, config.chainId),
    },
    ledger: metrics.relayerLedger,
    onWatchError: (depositAddress, error) =>
      logger.warn({ loop: "deposits", deposit_address: depositAddress, error: firstLine(error) }, "following a payment address's settlement failed"),
    // One read of the token's transfers serves the payment addresses and the merchants' x402 receivers.
    // A receiver fault is logged, not the round's: payment addresses are settled all the same, and the
    // next rounds read the same blocks again (the overlap), the backstop after that.
    onTransfersTo: async (transfers) => {
      await receivers.splitter
        .onTransfers(transfers)
        .catch((error: unknown) => logger.warn({ loop: "x402-receivers", error: firstLine(error) }, "splitting receivers that received funds failed"));
    },
  });
  const paymentsList = new PaymentsList({
    ...chain.chain,
    depositAddresses: payments.depositAddresses,
    // Each caller's pages wait in a queue of their own, served in turn (issue 44).
    gate: new FairGate(config.rateLimits.recoverConcurrency, LIST_PAGES_WAITING_PER_CALLER),
  });
  return { payments, depositWatches, depositSettler, paymentsList };
}
