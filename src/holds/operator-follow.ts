import type { Hex, PublicClient } from "viem";
import { agreeOnReceipt } from "../chain/agreement.js";
import { rpc } from "../chain/rpc-errors.js";
import { isKnownTransaction, readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import type { SettlementSender } from "../payments/relayer-call.js";
import type { HoldTransaction, HoldTransactionStore } from "../store/hold-transactions.js";

/** A sent operator call the node does not know after this long is broadcast again. */
export const HOLD_RESEND_AFTER_MS = 30_000;

export interface HoldFollowDeps {
  client: PublicClient;
  store: HoldTransactionStore;
  sender: SettlementSender;
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  now: () => number;
  replaceAfterMs: number;
  finality: Finality;
  onError?: (hash: Hex, error: unknown) => void;
}

/**
 * One round over the operator's recorded transactions, the relayer's rule for every transaction it
 * sends: mined (on a majority of the nodes' word, final) or its nonce used by another transaction
 * ends one, and frees its hold for the next call; a lost one is broadcast again and a stuck one
 * replaced within the fee ceiling, by the instance holding the key that signed it. One
 * transaction's error never stops the round. Returns how many ended.
 */
export async function followHoldTransactions(deps: HoldFollowDeps, limit: number): Promise<number> {
  let done = 0;
  for (const t of await deps.store.sent(limit)) {
    try {
      if (await followOne(deps, t)) done++;
    } catch (error) {
      deps.onError?.(t.hash, error);
    }
  }
  return done;
}

async function followOne(deps: HoldFollowDeps, t: HoldTransaction): Promise<boolean> {
  const { client, sender, store } = deps;
  const receipt = await readReceipt(client, t.hash);
  if (receipt) {
    if (!(await agreeOnReceipt("watch_end", client, deps.finality, receipt))) return false;
    await store.markDone(t.hash, "mined");
    return true;
  }
  const used = await rpc(() => client.getTransactionCount({ address: t.relayer, blockTag: "latest" }));
  if (used > t.nonce) {
    await store.markDone(t.hash, "dropped"); // another transaction (or a replacement) took its nonce
    return true;
  }
  if (sender.address !== t.relayer) return false;
  const age = deps.now() - t.sentAt;
  if (!(await isKnownTransaction(client, t.hash))) {
    if (age > HOLD_RESEND_AFTER_MS) await sender.broadcast(t.raw).catch(() => {});
  } else if (age > deps.replaceAfterMs) {
    const next = await sender.signReplacement(t.raw, await deps.quoteFees(), "settlement");
    if (next && (await store.replace(t.hash, next, deps.now()))) await sender.broadcast(next.raw).catch(() => {});
  }
  return false;
}
