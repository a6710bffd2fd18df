import type { Address } from "viem";
import type { Database } from "./database.js";
import { SharedReads } from "./shared-reads.js";

/**
 * Payers whose charges the relayer does not send for a while: one of theirs passed its simulation
 * and failed on chain (recurring/charge-follow.ts decides which failures count). One row per payer,
 * the latest refusal's end kept.
 */
export class RefusedChargePayers {
  /** Each payer's refusal, if any, read for every payer asked in the same turn in one query. */
  readonly #refusals: SharedReads<string, number>;

  constructor(private readonly db: Pick<Database, "query">) {
    this.#refusals = new SharedReads(
      (payer) => payer,
      async (payers) => {
        const rows = await this.db.query<{ payer: string; refused_until: string | number }>(
          "SELECT payer, refused_until FROM refused_charge_payers WHERE payer = ANY($1::text[])",
          [payers],
        );
        return new Map(rows.map((r) => [r.payer, Number(r.refused_until)]));
      },
    );
  }

  /** None of `payer`'s charges is sent before `untilMs`. Forgets refusals already over (they are few). */
  async refuse(payer: Address, untilMs: number, nowMs: number): Promise<void> {
    await this.db.query("DELETE FROM refused_charge_payers WHERE refused_until <= $1", [nowMs]);
    await this.db.query(
      "INSERT INTO refused_charge_payers (payer, refused_until) VALUES ($1, $2) ON CONFLICT (payer) DO UPDATE SET refused_until = GREATEST(refused_charge_payers.refused_until, EXCLUDED.refused_until)",
      [payer.toLowerCase(), untilMs],
    );
  }

  /** When `payer`'s refusal ends (unix milliseconds), or null when its charges may be sent at `nowMs`. */
  async refusedUntil(payer: Address, nowMs: number): Promise<number | null> {
    const until = await this.#refusals.read(payer.toLowerCase());
    return until !== undefined && until > nowMs ? until : null;
  }
}
