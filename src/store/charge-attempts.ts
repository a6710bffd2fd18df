import type { Hex } from "viem";
import type { Database } from "./database.js";
import { takeRelayerNonce } from "./relayer-nonces.js";
import { SharedReads } from "./shared-reads.js";

/**
 * A relayer charge transaction recorded for one subscription period. The transaction's signed bytes
 * are kept once for all the periods it carries (charge_transactions), joined in when an attempt is read.
 */
export interface ChargeAttempt {
  subscriptionId: Hex;
  periodIndex: bigint;
  /** The latest transaction sent for this attempt (after a fee replacement, the replacement). */
  txHash: Hex;
  rawTx: Hex;
  /** Every hash sent for this attempt, oldest first (same nonce, same call, rising fees). */
  txHashes: Hex[];
  relayer: Hex;
  nonce: number;
  status: "sent" | "reported";
  /** Unix milliseconds of the latest (re)send. */
  sentAt: number;
}

interface Row {
  subscription_id: string;
  period_index: string | number | bigint;
  tx_hash: string;
  raw_tx: string;
  tx_hashes: string[] | null;
  relayer: string;
  nonce: string | number | bigint;
  status: "sent" | "reported";
  sent_at: string | number;
}

const fromRow = (r: Row): ChargeAttempt => ({
  subscriptionId: r.subscription_id as Hex,
  periodIndex: BigInt(r.period_index),
  txHash: r.tx_hash as Hex,
  rawTx: r.raw_tx as Hex,
  txHashes: (r.tx_hashes?.length ? r.tx_hashes : [r.tx_hash]) as Hex[],
  relayer: r.relayer as Hex,
  nonce: Number(r.nonce),
  status: r.status,
  sentAt: Number(r.sent_at),
});

/** A transaction signed with a nonce the store handed out. */
export interface SignedTransaction {
  hash: Hex;
  raw: Hex;
  nonce: number;
}

/** An attempt's columns with its transaction's bytes (`c`: charge_attempts, `t`: charge_transactions). */
const ATTEMPT = "c.*, t.raw_tx";
const WITH_RAW = "LEFT JOIN charge_transactions t ON t.tx_hash = c.tx_hash";

const DECLINED = new Error("another caller recorded this period first");

const periodKey = (subscriptionId: string, periodIndex: string | number | bigint) => `${subscriptionId}:${periodIndex}`;

export class ChargeAttempts {
  /** The finds of one turn of the event loop (a wave's charges look theirs up together): one query. */
  readonly #finds: SharedReads<{ subscriptionId: Hex; periodIndex: bigint }, ChargeAttempt>;

  constructor(private readonly db: Pick<Database, "query" | "transaction">) {
    this.#finds = new SharedReads(
      (k) => periodKey(k.subscriptionId, k.periodIndex),
      async (keys) => {
        const rows = await this.db.query<Row>(
          `SELECT ${ATTEMPT} FROM charge_attempts c JOIN unnest($1::text[], $2::bigint[]) AS k(s, p) ON c.subscription_id = k.s AND c.period_index = k.p ${WITH_RAW}`,
          [keys.map((k) => k.subscriptionId), keys.map((k) => k.periodIndex.toString())],
        );
        return new Map(rows.map((r) => [periodKey(r.subscription_id, r.period_index), fromRow(r)]));
      },
    );
  }

  /** The attempt recorded for this period, or null. Finds asked in the same turn share one query. */
  async find(subscriptionId: Hex, periodIndex: bigint): Promise<ChargeAttempt | null> {
    return (await this.#finds.read({ subscriptionId, periodIndex })) ?? null;
  }

  /** Whether any charge of this subscription is recorded (sent, and not yet known refused or reverted). */
  async anyFor(subscriptionId: Hex): Promise<boolean> {
    const rows = await this.db.query("SELECT 1 FROM charge_attempts WHERE subscription_id = $1 LIMIT 1", [subscriptionId]);
    return rows.length > 0;
  }

  /**
   * Takes the relayer's next nonce, signs one transaction with it and records it for every period it
   * carries, in one store transaction (the rows are locked for that time only: no chain call happens
   * inside). Each period is claimed first: a period another caller recorded is left out, and `sign`
   * gets the periods won. The nonce is the store's next one, or the chain's pending count when that is
   * higher, or a hole below it (a nonce the chain has not used and no recorded attempt holds: an
   * attempt dropped for good). Null, with nothing taken, when no period was won.
   */
  async recordWithNonce(
    items: Array<{ subscriptionId: Hex; periodIndex: bigint }>,
    a: { relayer: Hex; sentAt: number },
    chainPending: number,
    sign: (won: boolean[], nonce: number) => Promise<{ hash: Hex; raw: Hex }>,
  ): Promise<(SignedTransaction & { won: boolean[] }) | null> {
    return this.db
      .transaction(async (tx) => {
        // One statement claims every period (a claim with an empty transaction, filled in below within
        // this store transaction): another caller's claim of the same period waits for it, then finds it
        // taken. Every caller claims in one order (subscription, then period) and only then locks the
        // relayer's nonce, so two callers always wait for each other in the same order: never a deadlock.
        const ids = items.map((i) => i.subscriptionId);
        const periods = items.map((i) => i.periodIndex.toString());
        const claimed = await tx.query<{ subscription_id: string; period_index: string | number }>(
          "INSERT INTO charge_attempts (subscription_id, period_index, tx_hash, tx_hashes, relayer, nonce, status, sent_at) SELECT s, p, '', '{}', $3, -1, 'sent', $4 FROM unnest($1::text[], $2::bigint[]) AS t(s, p) ORDER BY s, p ON CONFLICT (subscription_id, period_index) DO NOTHING RETURNING subscription_id, period_index",
          [ids, periods, a.relayer, a.sentAt],
        );
        const key = (id: string, period: string | number | bigint) => `${id}:${period}`;
        const claims = new Set(claimed.map((r) => key(r.subscription_id, r.period_index)));
        const won = items.map((i) => claims.has(key(i.subscriptionId, i.periodIndex)));
        if (!won.some(Boolean)) throw DECLINED;
        const nonce = await takeRelayerNonce(tx, a.relayer, chainPending);
        const signed = await sign(won, nonce);
        // The transaction's bytes once, every period it carries naming it.
        await tx.query(
          "WITH kept AS (INSERT INTO charge_transactions (tx_hash, raw_tx) VALUES ($1, $2) ON CONFLICT (tx_hash) DO NOTHING) UPDATE charge_attempts SET tx_hash = $1, tx_hashes = ARRAY[$1], nonce = $3 FROM unnest($4::text[], $5::bigint[]) AS t(s, p) WHERE subscription_id = t.s AND period_index = t.p",
          [signed.hash, signed.raw, nonce, ids.filter((_, i) => won[i]), periods.filter((_, i) => won[i])],
        );
        return { ...signed, nonce, won };
      })
      .catch((error) => {
        if (error === DECLINED) return null;
        throw error;
      });
  }

  /**
   * Records a replacement of `previousHash` (same nonce, same call, a higher fee) before it is sent,
   * for every period that transaction carries. False when it moved on meanwhile (replaced by another
   * instance, or gone).
   */
  async replace(previousHash: Hex, next: { hash: Hex; raw: Hex }, sentAt: number): Promise<boolean> {
    // Every period the transaction carries (a batch carries several) moves to the replacement together,
    // its rows locked in the claims' order (subscription, then period), as every writer locks them. The
    // replacement's bytes are kept once; the replaced one's go (no period names it any more: only the
    // latest is ever sent again or replaced).
    const [row] = await this.db.query<{ moved: string | number }>(
      `WITH moved AS (UPDATE charge_attempts SET tx_hash = $2, tx_hashes = array_append(tx_hashes, $2::text), sent_at = $4 WHERE (subscription_id, period_index) IN (SELECT subscription_id, period_index FROM charge_attempts WHERE tx_hash = $1 ORDER BY subscription_id, period_index FOR UPDATE) AND tx_hash = $1 RETURNING tx_hash),
        kept AS (INSERT INTO charge_transactions (tx_hash, raw_tx) SELECT $2, $3 WHERE EXISTS (SELECT 1 FROM moved) ON CONFLICT (tx_hash) DO NOTHING),
        dropped AS (DELETE FROM charge_transactions WHERE tx_hash = $1 AND EXISTS (SELECT 1 FROM moved))
      SELECT count(*) AS moved FROM moved`,
      [previousHash, next.hash, next.raw, sentAt],
    );
    return Number(row?.moved ?? 0) > 0;
  }

  /**
   * `relayer`'s attempts not yet reported whose nonce the chain has not used yet (at or above
   * `minedNonce`, the relayer's latest transaction count) and whose latest send is older than
   * `beforeMs`, lowest nonce first. A nonce below the chain's count is spent: its attempt was mined
   * (or lost its nonce to another transaction) and can never be replaced, however long its merchant
   * leaves it unasked, so it is not read again.
   */
  async unminedSentBefore(relayer: Hex, minedNonce: number, beforeMs: number, limit: number): Promise<ChargeAttempt[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${ATTEMPT} FROM charge_attempts c ${WITH_RAW} WHERE c.relayer = $1 AND c.nonce >= $2 AND c.status = 'sent' AND c.sent_at < $3 ORDER BY c.nonce, c.subscription_id, c.period_index LIMIT $4`,
      [relayer, minedNonce, beforeMs, limit],
    );
    return rows.map(fromRow);
  }

  /**
   * Marks the period reported (CHARGED answered), as a compare-and-set: true for the one caller, of
   * every instance on this store, whose update moved it from 'sent'; false for every other, which
   * must answer ALREADY_CHARGED. CHARGED is answered once per period.
   */
  async markReported(subscriptionId: Hex, periodIndex: bigint): Promise<boolean> {
    const rows = await this.db.query(
      "UPDATE charge_attempts SET status = 'reported' WHERE subscription_id = $1 AND period_index = $2 AND status = 'sent' RETURNING status",
      [subscriptionId, periodIndex.toString()],
    );
    return rows.length === 1;
  }

  /**
   * Forgets an attempt whose transaction is gone from the chain (reorged out and dropped) or failed,
   * and the transaction's bytes once no period names it.
   */
  async remove(subscriptionId: Hex, periodIndex: bigint, txHash: Hex): Promise<void> {
    await this.db.query("DELETE FROM charge_attempts WHERE subscription_id = $1 AND period_index = $2 AND tx_hash = $3", [
      subscriptionId,
      periodIndex.toString(),
      txHash,
    ]);
    // A statement of its own: it must see the delete above (a statement's parts share one snapshot).
    await this.db.query("DELETE FROM charge_transactions t WHERE t.tx_hash = $1 AND NOT EXISTS (SELECT 1 FROM charge_attempts c WHERE c.tx_hash = $1)", [
      txHash,
    ]);
  }
}
