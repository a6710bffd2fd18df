import { FixedWindowLimiter, SharedWindowLimiter, type RateLimiter } from "../limits/rate-limiter.js";
import { RelayerBudget } from "../limits/relayer-budget.js";
import { openStore, type Database } from "../store/database.js";
import { migrate } from "../store/migrate.js";
import type { BaseRoom } from "./base.js";

export interface StoreRoom {
  database: Database;
  /** Whether the service opened the store (then it closes it), or the caller passed one in. */
  ownsDatabase: boolean;
  /** A per-minute limiter named `name`: shared through PostgreSQL when several instances can share it, else per instance. */
  windowLimiter(name: string, perMinute: number): RateLimiter;
  /** The relayer's hourly budget for work that earns no fee (RELAYER_BUDGET_WEI_PER_*), kept in the store: one across instances. */
  relayerBudget: RelayerBudget;
}

/** Opens the store (or takes the caller's) and applies the migrations. */
export async function storeRoom({ config, deps, now, logger }: BaseRoom): Promise<StoreRoom> {
  const database = deps.database ?? (await openStore(config));
  await migrate(database);
  return {
    database,
    ownsDatabase: !deps.database,
    relayerBudget: new RelayerBudget(database, config.relayer.budget, now),
    windowLimiter: (name, perMinute) =>
      config.databaseUrl
        ? new SharedWindowLimiter(database, name, perMinute, 60_000, now, (error) =>
            logger.warn({ limiter: name, error: (error as Error).message }, "shared rate limit unavailable: allowed"),
          )
        : new FixedWindowLimiter(perMinute, 60_000, now),
  };
}
