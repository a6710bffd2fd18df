import type { Address } from "viem";
import type { RelayerBudgetLimits } from "../config-budget.js";
import { DomainError } from "../errors.js";
import type { Database } from "../store/database.js";
import { callerOf } from "./caller.js";

/** The budget's window: the limits are per hour. */
export const RELAYER_BUDGET_WINDOW_MS = 60 * 60_000;

/** Whether work earns its gas: its fee (token micro-units) covers its cost (wei) at the service's price of ETH (GAS_PRICE_USDC_PER_ETH, micro-units per ETH). */
export function earnsItsGas(feeUnits: bigint, costWei: bigint, unitsPerEth: bigint): boolean {
  return feeUnits * 10n ** 18n >= costWei * unitsPerEth;
}

/** Who opened a piece of work that earns nothing: each is counted, and each has its own limit. */
export interface BudgetParties {
  payer: Address;
  recipient: Address;
  /** The caller's address as the HTTP layer has it (an IPv6 address is counted by its /48); absent where no request opened the work. */
  caller?: string;
}

/**
 * The relayer's gas budget for work whose fee does not cover its gas (an authorization not captured
 * yet, a void, a charge whose fee is below its gas): spent wei counted per payer, recipient, caller
 * and in total, in fixed hourly windows kept in the store's `relayer_budget` (shared by every
 * instance on one PostgreSQL, as the shared rate limits are). Past a limit, new work of that kind is
 * refused with RELAYER_BUDGET_EXCEEDED until the window turns; work that earns never reaches here, so
 * it costs no store write. Checked before a send and counted after it: instances racing may pass a
 * limit by the calls in flight between the two, never by more.
 */
export class RelayerBudget {
  #pruned = 0;

  constructor(
    private readonly db: Pick<Database, "query">,
    private readonly limits: RelayerBudgetLimits,
    private readonly now: () => number,
  ) {}

  /** Throws RELAYER_BUDGET_EXCEEDED (its Retry-After the window's end) when any of the parties' windows, or the total, is spent. */
  async check(parties: BudgetParties): Promise<void> {
    const keys = this.#keys(parties);
    const start = this.#windowStart();
    const rows = await this.db.query<{ key: string; spent_wei: string | number }>(
      "SELECT key, spent_wei::text AS spent_wei FROM relayer_budget WHERE key = ANY($1::text[]) AND window_start = $2",
      [keys.map((k) => k.key), start],
    );
    const spent = new Map(rows.map((r) => [r.key, BigInt(r.spent_wei)]));
    const over = keys.find((k) => (spent.get(k.key) ?? 0n) >= k.limit);
    if (!over) return;
    const retryAfter = Math.max(1, Math.ceil((start + RELAYER_BUDGET_WINDOW_MS - this.now()) / 1000));
    throw new DomainError("RELAYER_BUDGET_EXCEEDED", { detail: `the relayer's hourly budget ${over.scope} is spent`, retryAfter });
  }

  /** Counts `wei` against each party's window and the total, in one statement. */
  async spend(parties: BudgetParties, wei: bigint): Promise<void> {
    if (wei <= 0n) return;
    const keys = this.#keys(parties).map((k) => k.key);
    const start = this.#windowStart();
    await this.db.query(
      `INSERT INTO relayer_budget (key, window_start, spent_wei) SELECT k, $2, $3::numeric FROM unnest($1::text[]) AS k
       ON CONFLICT (key) DO UPDATE SET
         spent_wei = CASE WHEN relayer_budget.window_start = EXCLUDED.window_start THEN relayer_budget.spent_wei + EXCLUDED.spent_wei ELSE EXCLUDED.spent_wei END,
         window_start = EXCLUDED.window_start`,
      [keys, start, wei.toString()],
    );
    // Windows long over go in bounded batches, at most once a window per instance.
    if (this.#pruned === start) return;
    this.#pruned = start;
    await this.db.query("DELETE FROM relayer_budget WHERE key IN (SELECT key FROM relayer_budget WHERE window_start < $1 LIMIT 1000)", [start]);
  }

  #windowStart(): number {
    const now = this.now();
    return now - (now % RELAYER_BUDGET_WINDOW_MS);
  }

  #keys(parties: BudgetParties): Array<{ key: string; scope: string; limit: bigint }> {
    const { limits } = this;
    const keys = [
      { key: "relayer-budget|total", scope: "in total", limit: limits.totalWei },
      { key: `relayer-budget|payer|${parties.payer.toLowerCase()}`, scope: "for this payer", limit: limits.perPayerWei },
      { key: `relayer-budget|recipient|${parties.recipient.toLowerCase()}`, scope: "for this recipient", limit: limits.perRecipientWei },
    ];
    if (parties.caller !== undefined)
      keys.push({ key: `relayer-budget|caller|${callerOf(parties.caller, 3)}`, scope: "for this caller", limit: limits.perCallerWei });
    return keys;
  }
}
