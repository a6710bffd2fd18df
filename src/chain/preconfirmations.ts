import type { Hex, PublicClient, TransactionReceipt } from "viem";
import { readReceipt } from "./transactions.js";
import { rpc } from "./rpc-errors.js";

/** How long an answer waits, at most, for its transaction's preconfirmation: one of Base's 2 s blocks (a busy node may take more than a few Flashblocks). */
export const PRECONFIRMATION_WAIT_MS = 2_000;
/** Waits that came to nothing in a row after which the node counts as not preconfirming... */
const MISSES_BEFORE_PAUSE = 3;
/** ...and answers stop waiting for this long (then one wait tries again). */
const PAUSE_AFTER_MISSES_MS = 30_000;

/**
 * Whether a receipt the node served is a preconfirmation: its block (the one it will be sealed in)
 * is above `latest`, the latest sealed block. A preconfirmation is never final: finality is counted
 * in sealed blocks only (chain/finality.ts), and the block may still drop it.
 */
export function isPreconfirmedIn(receipt: Pick<TransactionReceipt, "blockNumber">, latest: bigint): boolean {
  return receipt.blockNumber > latest;
}

/** {@link isPreconfirmedIn} against the latest sealed block, read now (one call). */
export async function isPreconfirmed(client: PublicClient, receipt: Pick<TransactionReceipt, "blockNumber">): Promise<boolean> {
  return isPreconfirmedIn(receipt, await rpc(() => client.getBlockNumber({ cacheTime: 0 })));
}

/**
 * Waits for transactions to be preconfirmed (a Flashblocks node serves their receipt about 200 ms
 * after they reach it), so an answer can say "on chain" a moment later instead of "sent": its
 * receipt polled every `everyMs`, at most {@link PRECONFIRMATION_WAIT_MS}. A node that does not
 * preconfirm (no Flashblocks, or Base's fallback to 2 s blocks) would make every answer wait that
 * long for nothing: after {@link MISSES_BEFORE_PAUSE} waits in a row that saw no receipt, none waits
 * for {@link PAUSE_AFTER_MISSES_MS}, then one tries again.
 */
export class PreconfirmationWaiter {
  #misses = 0;
  #pausedUntil = 0;

  constructor(
    private readonly client: PublicClient,
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The transaction's receipt once served (preconfirmed, or already sealed); null when the wait ended without one. */
  async wait(hash: Hex): Promise<TransactionReceipt | null> {
    if (this.now() < this.#pausedUntil) return null;
    const until = this.now() + PRECONFIRMATION_WAIT_MS;
    for (;;) {
      const receipt = await readReceipt(this.client, hash).catch(() => null);
      if (receipt) {
        this.#misses = 0;
        return receipt;
      }
      if (this.now() + this.everyMs > until) break;
      await new Promise((resolve) => setTimeout(resolve, this.everyMs));
    }
    if (++this.#misses >= MISSES_BEFORE_PAUSE) {
      this.#misses = 0;
      this.#pausedUntil = this.now() + PAUSE_AFTER_MISSES_MS;
    }
    return null;
  }
}

/**
 * Where preconfirmations are read (`settings` set): a function that waits for a sent transaction's
 * preconfirmation and says whether its receipt came as one; null otherwise (nothing waits).
 */
export function preconfirmationOf(
  client: PublicClient,
  settings: { everyMs: number } | null | undefined,
): ((hash: Hex) => Promise<{ preconfirmed: boolean } | null>) | null {
  if (!settings) return null;
  const waiter = new PreconfirmationWaiter(client, settings.everyMs);
  return async (hash) => {
    const receipt = await waiter.wait(hash);
    if (!receipt) return null;
    return { preconfirmed: await isPreconfirmed(client, receipt).catch(() => false) };
  };
}

/**
 * A transaction's receipt once its block is sealed; null while the node has none or serves only its
 * preconfirmation (a Flashblocks node serves a receipt before its block exists, and the block may
 * still leave it out). For answers that stood on a mined transaction before preconfirmations.
 */
export async function readSealedReceipt(client: PublicClient, hash: Hex): Promise<TransactionReceipt | null> {
  const receipt = await readReceipt(client, hash);
  if (!receipt) return null;
  return (await isPreconfirmed(client, receipt)) ? null : receipt;
}
