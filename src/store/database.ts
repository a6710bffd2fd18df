import { mkdirSync } from "node:fs";
import { Worker } from "node:worker_threads";
import pg from "pg";

/**
 * The store: protocol information only (relayer transactions per subscription period, later link
 * records and webhook deliveries). Never a balance, an order or a customer.
 * Embedded default: PGlite (Postgres in WebAssembly, data in a local folder, or in memory for tests),
 * on a worker thread of its own (pglite-worker.ts), so its work runs beside the API's requests, not
 * inside them;
 * with DATABASE_URL a real PostgreSQL, which several service instances can share.
 */
export interface Database {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * Runs one statement that takes no parameters and answers nothing (PostgreSQL's simple protocol:
   * in PGlite about a third of a parameterized query's cost). Only for values the caller has checked
   * to be nothing but digits and hex (deposit-watches.ts).
   */
  exec(sql: string): Promise<void>;
  /** Runs `work` in one transaction. */
  transaction<T>(work: (tx: Pick<Database, "query">) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Opens PGlite in `dataDir` (created if missing), or in memory when `dataDir` is null, on its own thread. */
export async function openDatabase(dataDir: string | null): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const store = new WorkerStore(new Worker(new URL("./pglite-worker.ts", import.meta.url), { workerData: { dataDir } }));
  await store.ready;
  return store;
}

type WorkerRequest =
  | { op: "query"; sql: string; params: unknown[]; tx?: number }
  | { op: "exec"; sql: string }
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "close" };

/** A PostgreSQL error as the worker reports it: the message, and the code, constraint… to act on. */
function databaseError(fields: { message: string } & Record<string, unknown>): Error {
  return Object.assign(new Error(fields.message), { name: "DatabaseError" }, fields);
}

/**
 * The API thread's side of pglite-worker.ts: each call one message, answered by id. The worker keeps
 * the process alive only while an answer is awaited, so a store nobody closed never holds the
 * process open, and nobody waiting on it is left behind. If the worker dies, every call waiting and
 * every later one fails with why.
 */
class WorkerStore implements Database {
  readonly ready: Promise<void>;
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #nextId = 1;
  #failure: Error | null = null;

  constructor(worker: Worker) {
    this.#worker = worker;
    this.ready = new Promise((resolve, reject) => {
      worker.on("message", (message: { ready?: true; id?: number; result?: unknown; error?: { message: string } }) => {
        if (message.ready) return resolve();
        const waiting = this.#pending.get(message.id!);
        if (!waiting) return;
        this.#pending.delete(message.id!);
        if (this.#pending.size === 0) worker.unref();
        if (message.error) waiting.reject(databaseError(message.error));
        else waiting.resolve(message.result);
      });
      const fail = (error: Error) => {
        this.#failure ??= error;
        reject(error);
        for (const waiting of this.#pending.values()) waiting.reject(error);
        this.#pending.clear();
      };
      worker.on("error", (error) => fail(new Error(`the store's worker failed: ${error.message}`, { cause: error })));
      worker.on("exit", (code) => fail(new Error(`the store's worker stopped (exit code ${code})`)));
    });
  }

  /** Sends one request; its id names a transaction when the request is a begin. */
  #send<T>(request: WorkerRequest): { id: number; answer: Promise<T> } {
    const id = this.#nextId++;
    if (this.#failure) return { id, answer: Promise.reject(this.#failure) };
    const answer = new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.ref();
      this.#worker.postMessage({ id, ...request });
    });
    return { id, answer };
  }

  #request<T>(request: WorkerRequest): Promise<T> {
    return this.#send<T>(request).answer;
  }

  query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#request<T[]>({ op: "query", sql, params });
  }

  async exec(sql: string): Promise<void> {
    await this.#request({ op: "exec", sql });
  }

  async transaction<T>(work: (tx: Pick<Database, "query">) => Promise<T>): Promise<T> {
    const { id: tx, answer: begun } = this.#send({ op: "begin" });
    await begun;
    let result: T;
    try {
      result = await work({ query: <R>(sql: string, params: unknown[] = []) => this.#request<R[]>({ op: "query", sql, params, tx }) });
    } catch (error) {
      await this.#request({ op: "end", tx, commit: false }).catch(() => {});
      throw error;
    }
    await this.#request({ op: "end", tx, commit: true });
    return result;
  }

  async close(): Promise<void> {
    if (!this.#failure) await this.#request({ op: "close" });
    await this.#worker.terminate();
  }
}

/** Connects to a real PostgreSQL (a pool; `transaction` holds one connection from BEGIN to COMMIT). */
export async function connectPostgres(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query("SELECT 1");
  return {
    query: async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[],
    exec: async (sql) => {
      await pool.query(sql);
    },
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
