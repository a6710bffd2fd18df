import type { Address } from "viem";
import type { Database } from "./database.js";

/** The database's clock in unix milliseconds: one clock for every instance sharing the store. */
const DB_NOW_MS = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint";

/** An answer nobody holds: never reserved, or reserved longer ago than the parameter `$n` (ms) by a request that never finished. */
const answerFree = (n: number) =>
  `(x402_answers.answer IS NULL OR (x402_answers.answer LIKE 'reserved:%' AND x402_answers.reserved_at < ${DB_NOW_MS} - $${n}))`;

/**
 * How long an answer is kept: far beyond any x402 authorization's window (x402 routes give minutes)
 * and the proof's lookback, so a replay of an answered payment finds its row.
 */
export const X402_ANSWER_KEEP_MS = 8 * 24 * 60 * 60_000;

/**
 * x402's facts, for both kinds of `payTo`: which settle request is answered success for a payment
 * (one per subject: a payment address, or `payer:nonce` for an authorization paid to a receiver), and
 * the contract payers held (one settlement at a time each) or refused (one of theirs reverted on chain).
 * A row is written only by a settle request, never by an unpaid 402.
 */
export class X402Answers {
  constructor(private readonly db: Pick<Database, "query">) {}

  /**
   * One success per subject, first half: a settle request about to send the settlement reserves the
   * answer with its own token. False when another request holds it (a reservation younger than
   * `staleAfterMs`, by the database's clock, the same for every instance) or it was given.
   */
  async reserve(subject: string, token: string, staleAfterMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO x402_answers (subject, answer, reserved_at) VALUES ($1, $2, ${DB_NOW_MS})
       ON CONFLICT (subject) DO UPDATE SET answer = EXCLUDED.answer, reserved_at = EXCLUDED.reserved_at WHERE ${answerFree(3)} RETURNING subject`,
      [subject.toLowerCase(), `reserved:${token}`, staleAfterMs],
    );
    return rows.length === 1;
  }

  /**
   * Second half: gives the answer, to the request holding the reservation `token`, or (`token` null:
   * a request that sent nothing, the payment settled by someone else's transaction) when nobody holds
   * one or the reservation is stale. True for the one request told it paid.
   */
  async claim(subject: string, token: string | null, staleAfterMs: number): Promise<boolean> {
    const rows =
      token === null
        ? await this.db.query(
            `INSERT INTO x402_answers (subject, answer) VALUES ($1, 'answered')
             ON CONFLICT (subject) DO UPDATE SET answer = 'answered' WHERE ${answerFree(2)} RETURNING subject`,
            [subject.toLowerCase(), staleAfterMs],
          )
        : await this.db.query("UPDATE x402_answers SET answer = 'answered' WHERE subject = $1 AND answer = $2 RETURNING subject", [
            subject.toLowerCase(),
            `reserved:${token}`,
          ]);
    return rows.length === 1;
  }

  /** A reservation whose request did not pay (its settlement could not be sent, or did not settle): free again. */
  async release(subject: string, token: string): Promise<void> {
    await this.db.query("UPDATE x402_answers SET answer = NULL, reserved_at = NULL WHERE subject = $1 AND answer = $2", [
      subject.toLowerCase(),
      `reserved:${token}`,
    ]);
  }

  /**
   * One x402 settlement at a time per contract payer: true when this caller now holds `payer` (free,
   * or held longer than `staleAfterMs` by a request that never let go).
   */
  async holdPayer(payer: Address, staleAfterMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO x402_payers_in_flight (payer, since) VALUES ($1, ${DB_NOW_MS}) ON CONFLICT (payer) DO UPDATE SET since = EXCLUDED.since WHERE x402_payers_in_flight.since < ${DB_NOW_MS} - $2 RETURNING payer`,
      [payer.toLowerCase(), staleAfterMs],
    );
    return rows.length === 1;
  }

  async releasePayer(payer: Address): Promise<void> {
    await this.db.query("DELETE FROM x402_payers_in_flight WHERE payer = $1", [payer.toLowerCase()]);
  }

  /** An x402 settlement of `payer`'s reverted on chain: none of theirs is sent before `untilMs`. */
  async refusePayer(payer: Address, untilMs: number): Promise<void> {
    await this.db.query(
      "INSERT INTO x402_reverted_payers (payer, refused_until) VALUES ($1, $2) ON CONFLICT (payer) DO UPDATE SET refused_until = GREATEST(x402_reverted_payers.refused_until, EXCLUDED.refused_until)",
      [payer.toLowerCase(), untilMs],
    );
  }

  /** Whether `payer`'s x402 settlements are refused at `nowMs` (one of theirs reverted on chain lately). */
  async isPayerRefused(payer: Address, nowMs: number): Promise<boolean> {
    const rows = await this.db.query("SELECT 1 FROM x402_reverted_payers WHERE payer = $1 AND refused_until > $2", [payer.toLowerCase(), nowMs]);
    return rows.length === 1;
  }

  /** Forgets answers older than {@link X402_ANSWER_KEEP_MS} and payers no longer refused. */
  async prune(nowMs: number): Promise<void> {
    await this.db.query("DELETE FROM x402_answers WHERE created_at < $1", [nowMs - X402_ANSWER_KEEP_MS]);
    await this.db.query("DELETE FROM x402_reverted_payers WHERE refused_until <= $1", [nowMs]);
  }
}
