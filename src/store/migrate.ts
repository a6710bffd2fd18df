import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Database } from "./database.js";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");

/** Applies every `migrations/NNN_name.sql` not applied yet, in order, in one transaction. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  // One migrator at a time across instances sharing a PostgreSQL: a transaction-scoped advisory lock.
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(727274)");
    await tx.query("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
    const applied = new Set((await tx.query<{ name: string }>("SELECT name FROM schema_migrations")).map((r) => r.name));
    const pending = files.filter((f) => !applied.has(f));
    for (const name of pending) {
      const sql = readFileSync(join(dir, name), "utf8");
      for (const statement of statementsOf(sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (name) VALUES ($1)", [name]);
    }
    return pending;
  });
}

/**
 * A migration's statements: split where a line ends with `;`, except inside a dollar-quoted body
 * (a function's `$$ … $$`, whose own lines end with `;`).
 */
export function statementsOf(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let quoted = false;
  for (const line of sql.split("\n")) {
    current.push(line);
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      statements.push(current.join("\n").replace(/;\s*$/, "").trim());
      current = [];
    }
  }
  statements.push(current.join("\n").trim());
  return statements.filter((s) => s.replace(/^\s*--.*$/gm, "").trim() !== "");
}
