import type { PublicClient } from "viem";
import { readReceipt } from "../chain/transactions.js";
import type { ChargeAttempts } from "../store/charge-attempts.js";
import { quoteFees, type GasPricing } from "./gas-quote.js";
import type { Relayer } from "./relayer.js";
import { everyRound } from "../rounds.js";

export interface StuckChargesDeps {
  client: PublicClient;
  attempts: ChargeAttempts;
  relayer: Relayer;
  pricing: GasPricing;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * The stuck-transaction sweeper: a charge transaction still unmined a while after it was sent is
 * replaced at the same nonce with a higher fee, never above the relayer's fee ceiling.
 */
export class StuckCharges {
  #stop: (() => void) | null = null;

  constructor(private readonly deps: StuckChargesDeps) {}

  /** Runs {@link replaceStuck} every `everyMs` until stopped (npm start). */
  start(afterSeconds: number, everyMs: number, onFailure: (error: unknown) => void): void {
    this.#stop ??= everyRound(everyMs, () => this.replaceStuck(afterSeconds), onFailure);
  }

  stop(): void {
    this.#stop?.();
    this.#stop = null;
  }

  /**
   * Replaces recorded transactions still unmined `afterSeconds` after they were sent: the same
   * call with the same nonce at a higher fee, recorded (its hash added to the attempt's) before it
   * is sent. Returns how many were replaced. Run on a timer; several instances may run it (a
   * replacement is recorded only if the attempt has not moved on).
   */
  async replaceStuck(afterSeconds: number, limit = 100): Promise<number> {
    const { client, attempts, relayer } = this.deps;
    if (!relayer.address) return 0;
    const before = this.deps.now() - afterSeconds * 1000;
    // Nothing sent long enough ago (the usual case): no read of the chain at all.
    if ((await attempts.unminedSentBefore(relayer.address, 0, before, 1)).length === 0) return 0;
    // Only nonces the chain has not used can be stuck: the relayer's mined count first (one read),
    // then its attempts from there, lowest nonce first (the one every later nonce waits behind).
    const mined = await client.getTransactionCount({ address: relayer.address, blockTag: "latest" });
    const mine = await attempts.unminedSentBefore(relayer.address, mined, before, limit);
    // One replacement per transaction: a batch's periods share theirs.
    const stale = [...new Map(mine.map((a) => [a.txHash, a])).values()];
    if (stale.length === 0) return 0;
    const [fees, minedNow] = await Promise.all([
      quoteFees(client, this.deps.pricing),
      Promise.all(stale.map((a) => Promise.all(a.txHashes.map((h) => readReceipt(client, h))).then((rs) => rs.some((r) => r !== null)))),
    ]);
    let replaced = 0;
    for (const [i, attempt] of stale.entries()) {
      if (minedNow[i]) continue; // mined since the count was read: a status read reports it
      // Over the fee ceiling: it waits at its bid (reported by the relayer), never a higher one.
      const next = await relayer.signReplacement(attempt.rawTx, fees, "charge");
      if (!next || !(await attempts.replace(attempt.txHash, next, this.deps.now()))) continue;
      try {
        await relayer.broadcast(next.raw);
        replaced++;
      } catch {
        // Refused (its nonce was used meanwhile, or the node is down): a status read sorts it out.
      }
    }
    return replaced;
  }
}
