import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/**
 * The store: protocol information only (relayer transactions per subscription period, later link
 * records and webhook deliveries). Never a balance, an order or a customer.
 * Embedded default: PGlite (Postgres in-process, data in a local folder, or in memory for tests);
 * with DATABASE_URL a real PostgreSQL, which several service instances can share.
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
  const query = async <T>(sql: string, params: unknown[] = [], on: Pick<PGlite, "query"> = db) => (await on.query<T>(sql, params as never[])).rows;
  return {
    query: (sql, params) => query(sql, params),
    transaction: (work) => db.transaction((tx) => work({ query: (sql, params) => query(sql, params, tx) })),
    close: () => db.close(),
  };
}

/** Connects to a real PostgreSQL (a pool; `transaction` holds one connection from BEGIN to COMMIT). */
export async function connectPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query("SELECT 1");
  return {
    query: async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[],
    transaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const result = await work({ query: async <T>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as T[] });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/** The store the configuration names: PostgreSQL with a URL, otherwise PGlite. */
export function openStore(options: { databaseUrl: string | null; dataDir: string | null }): Promise<Database> {
  return options.databaseUrl ? connectPostgres(options.databaseUrl) : openDatabase(options.dataDir);
}
