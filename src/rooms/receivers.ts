import { quoteL1Fee } from "../chain/l1-fee.js";
import { transactionCostUnits } from "../recurring/gas-quote.js";
import { X402Answers } from "../store/x402-answers.js";
import { X402ReceiverStore } from "../store/x402-receivers.js";
import { ReceiverSender } from "../x402/receiver-sender.js";
import { ReceiverSplitter } from "../x402/receiver-splitter.js";
import { type BaseRoom, firstLine } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { RelayerRoom } from "./relayer.js";
import type { StoreRoom } from "./store.js";

/** Merchants' x402 receivers (their static payTo): the rows, the relayer's transactions to X402Receivers, and the split of what reaches them. */
export interface ReceiversRoom {
  answers: X402Answers;
  store: X402ReceiverStore;
  sender: ReceiverSender;
  /** Splits what reaches a receiver outside a settlement (started by listen). */
  splitter: ReceiverSplitter;
}

export function receiversRoom(
  { config, now, logger, metrics }: BaseRoom,
  {
    chain: { client, deployment },
    store: { database },
    relayer: { relayer, pricing, quoteFees },
  }: { chain: ChainRoom; store: StoreRoom; relayer: RelayerRoom },
): ReceiversRoom {
  const answers = new X402Answers(database);
  const store = new X402ReceiverStore(database);
  const sender = new ReceiverSender({
    client,
    to: deployment.contracts.X402Receivers.address,
    token: deployment.token.address,
    store,
    sender: relayer,
    quoteFees,
    now,
    replaceAfterMs: config.relayer.replaceAfterSeconds * 1000,
    finality: config.finality,
    ledger: metrics.relayerLedger,
    onError: (hash, error) => logger.warn({ loop: "x402-receivers", tx_hash: hash, error: firstLine(error) }, "following a receiver transaction failed"),
  });
  const splitter = new ReceiverSplitter({
    client,
    token: deployment.token.address,
    store,
    answers,
    sender,
    now,
    feeBps: deployment.parameters.feeBps,
    idleMs: config.x402.receiverIdleSeconds * 1000,
    costUnits: async (data) => {
      const [priced, l1Fee, fees] = await Promise.all([
        sender.price(data),
        quoteL1Fee(client, { to: deployment.contracts.X402Receivers.address, data }),
        quoteFees(),
      ]);
      return priced ? transactionCostUnits(priced.gas, fees.expectedPerGas, l1Fee, pricing) : null;
    },
  });
  return { answers, store, sender, splitter };
}
