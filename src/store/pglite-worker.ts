// PGlite on its own thread (database.ts starts it): the embedded PostgreSQL runs beside the API's
// event loop, as a database server would, instead of inside it. Self-contained (no relative imports)
// so Node loads it with or without a TypeScript loader.
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { parentPort, workerData } from "node:worker_threads";

/** What the API thread asks (database.ts sends the same shapes). */
type Request =
  | { id: number; op: "query"; sql: string; params: unknown[]; tx?: number }
  | { id: number; op: "exec"; sql: string }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "close" };

const port = parentPort!;
const { dataDir } = workerData as { dataDir: string | null };
const db = dataDir ? await PGlite.create(dataDir) : await PGlite.create();

interface OpenTransaction {
  tx: Transaction;
  /** Settles PGlite's transaction callback: it commits on success, rolls back on failure. */
  end: (commit: boolean) => void;
  /** PGlite's transaction: done once COMMIT (or ROLLBACK) has run; rejects if COMMIT fails. */
  done: Promise<void>;
}

/** Open transactions by the id of their `begin`. */
const open = new Map<number, OpenTransaction>();

/** What the API thread needs of a PostgreSQL error to act on it and to report it. */
function errorFields(error: unknown) {
  const e = error as Record<string, unknown>;
  const fields: Record<string, unknown> = { message: error instanceof Error ? error.message : String(error) };
  for (const key of ["code", "detail", "hint", "constraint", "table", "column", "schema", "severity"]) if (typeof e[key] === "string") fields[key] = e[key];
  return fields;
}

const ROLLBACK = Symbol("rollback");

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** A simple-protocol Query message (type 'Q', length, the statement, NUL). */
function queryMessage(sql: string): Uint8Array {
  const text = utf8.encode(`${sql}\0`);
  const message = new Uint8Array(5 + text.length);
  message[0] = 0x51;
  new DataView(message.buffer).setInt32(1, 4 + text.length);
  message.set(text, 5);
  return message;
}

/** The fields of the first ErrorResponse ('E') among the backend's messages, or null when none. */
function errorResponse(messages: Uint8Array): Record<string, string> | null {
  const view = new DataView(messages.buffer, messages.byteOffset, messages.byteLength);
  for (let at = 0; at + 5 <= messages.length; at += 1 + view.getInt32(at + 1)) {
    if (messages[at] !== 0x45) continue;
    const names: Record<string, string> = {
      M: "message",
      C: "code",
      D: "detail",
      H: "hint",
      n: "constraint",
      t: "table",
      c: "column",
      s: "schema",
      S: "severity",
    };
    const fields: Record<string, string> = {};
    const end = at + 1 + view.getInt32(at + 1);
    for (let i = at + 5; i < end && messages[i] !== 0; ) {
      const name = String.fromCharCode(messages[i]!);
      const close = messages.indexOf(0, i + 1);
      const key = names[name];
      if (key) fields[key] = utf8Decoder.decode(messages.subarray(i + 1, close));
      i = close + 1;
    }
    return fields;
  }
  return null;
}

/**
 * One statement by the simple protocol, straight to PGlite's wire (as its own exec does, less its
 * result parsing, which an INSERT needs none of): about half of exec's cost per statement. Takes the
 * same two locks exec takes, so it never runs inside another caller's transaction.
 */
function execRaw(sql: string): Promise<void> {
  const internal = db as unknown as {
    _runExclusiveTransaction<T>(work: () => Promise<T>): Promise<T>;
    _runExclusiveQuery<T>(work: () => Promise<T>): Promise<T>;
  };
  return internal._runExclusiveTransaction(() =>
    internal._runExclusiveQuery(async () => {
      const error = errorResponse(await db.execProtocolRaw(queryMessage(sql)));
      if (error) throw Object.assign(new Error(error.message ?? "the statement failed"), error);
    }),
  );
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case "query": {
      const on = request.tx === undefined ? db : open.get(request.tx)?.tx;
      if (!on) throw new Error("the transaction has ended");
      return (await on.query(request.sql, request.params as never[])).rows;
    }
    case "exec":
      await execRaw(request.sql);
      return null;
    case "begin": {
      const { id } = request;
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const entry = {} as OpenTransaction;
      entry.done = db
        .transaction(
          (tx) =>
            new Promise<void>((commit, rollback) => {
              entry.tx = tx;
              entry.end = (ok) => (ok ? commit() : rollback(ROLLBACK));
              open.set(id, entry);
              entered();
            }),
        )
        .then(
          () => {},
          (error) => {
            if (error !== ROLLBACK) throw error;
          },
        )
        .finally(() => open.delete(id));
      entry.done.catch(() => {}); // awaited by "end"; a failed BEGIN is reported by the race below
      await Promise.race([inside, entry.done]);
      return null;
    }
    case "end": {
      const entry = open.get(request.tx);
      if (!entry) throw new Error("the transaction has ended");
      entry.end(request.commit);
      await entry.done;
      return null;
    }
    case "close":
      await db.close();
      return null;
  }
}

function dispatch(request: Request): void {
  handle(request).then(
    (result) => port.postMessage({ id: request.id, result }),
    (error) => port.postMessage({ id: request.id, error: errorFields(error) }),
  );
}

port.on("message", dispatch);
port.postMessage({ ready: true });
