import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";

/**
 * The store: protocol information only (relayer transactions per subscription period, later link
 * records and webhook deliveries). Never a balance, an order or a customer.
 * Embedded default: PGlite (Postgres in-process, data in a local folder, or in memory for tests).
 */
export interface Database {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `work` in one transaction. */
  transaction<T>(work: (tx: Pick<Database, "query">) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Opens PGlite in `dataDir` (created if missing), or in memory when `dataDir` is null. */
export async function openDatabase(dataDir: string | null): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = dataDir ? await PGlite.create(dataDir) : await PGlite.create();
  const query = async <T>(sql: string, params: unknown[] = [], on: Pick<PGlite, "query"> = db) =>
    (await on.query<T>(sql, params as never[])).rows;
  return {
    query: (sql, params) => query(sql, params),
    transaction: (work) => db.transaction((tx) => work({ query: (sql, params) => query(sql, params, tx) })),
    close: () => db.close(),
  };
}
