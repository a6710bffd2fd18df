import { assert } from "chai";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { resetStore } from "../helpers/service.js";

const RELAYER = "0x00000000000000000000000000000000000000aa" as Hex;
const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
/** A signed transaction's stand-in: its bytes are what the store must give back, whole. */
const raw = (n: number) => `0x02${n.toString(16).padStart(4, "0")}${"ab".repeat(20_000)}` as Hex;
const periods = (...subs: number[]) => subs.map((sub) => ({ subscriptionId: id(sub), periodIndex: 1n }));

/** The transactions whose bytes the store keeps, by hash. */
async function kept(db: Database): Promise<Map<string, string>> {
  const rows = await db.query<{ tx_hash: string; raw_tx: string }>("SELECT tx_hash, raw_tx FROM charge_transactions");
  return new Map(rows.map((r) => [r.tx_hash, r.raw_tx]));
}

describe("a charge transaction's bytes in the store: once per transaction, whatever the periods it carries", () => {
  let db: Database;
  let attempts: ChargeAttempts;
  before(async () => {
    db = await openDatabase(null);
    await migrate(db);
  });
  beforeEach(async () => {
    await resetStore(db);
    attempts = new ChargeAttempts(db);
  });
  after(() => db.close());
  const recordBatch = (subs: number[], n: number) =>
    attempts.recordWithNonce(periods(...subs), { relayer: RELAYER, sentAt: 0 }, 0, async () => ({ hash: id(1000 + n), raw: raw(n) }));

  it("a batch of three periods keeps its transaction once, and each period reads it back whole", async () => {
    const sent = await recordBatch([1, 2, 3], 1);
    assert.deepEqual([...(await kept(db))], [[id(1001), raw(1)]]);
    for (const sub of [1, 2, 3]) {
      const attempt = await attempts.find(id(sub), 1n);
      assert.equal(attempt?.txHash, sent!.hash);
      assert.equal(attempt?.rawTx, raw(1), "the bytes that were signed, whole");
    }
    const unmined = await attempts.unminedSentBefore(RELAYER, 0, 1, 10);
    assert.deepEqual(
      unmined.map((a) => a.rawTx),
      [raw(1), raw(1), raw(1)],
    );
  });

  it("a replacement moves every period to its bytes, and the replaced bytes go; a second replacement of the old hash changes nothing", async () => {
    await recordBatch([1, 2], 1);
    assert.isTrue(await attempts.replace(id(1001), { hash: id(2001), raw: raw(2) }, 5));
    assert.deepEqual([...(await kept(db))], [[id(2001), raw(2)]]);
    for (const sub of [1, 2]) {
      const attempt = (await attempts.find(id(sub), 1n))!;
      assert.equal(attempt.rawTx, raw(2));
      assert.deepEqual(attempt.txHashes, [id(1001), id(2001)]);
    }
    assert.isFalse(await attempts.replace(id(1001), { hash: id(3001), raw: raw(3) }, 6), "moved on already");
    assert.deepEqual([...(await kept(db)).keys()], [id(2001)], "no bytes kept for a replacement that replaced nothing");
  });

  it("the bytes stay while a period names them, and go with the last", async () => {
    await recordBatch([1, 2], 1);
    await attempts.remove(id(1), 1n, id(1001));
    assert.equal((await attempts.find(id(2), 1n))?.rawTx, raw(1), "the other period still reads them");
    await attempts.remove(id(2), 1n, id(1001));
    assert.equal((await kept(db)).size, 0);
  });

  it("migrating a store whose periods each held the transaction keeps each transaction's bytes once, and every period still reads them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "migrations-"));
    const old = await openDatabase(null);
    try {
      const source = new URL("../../src/store/migrations/", import.meta.url).pathname;
      for (const file of readdirSync(source).filter((f) => f < "026")) cpSync(join(source, file), join(dir, file));
      await migrate(old, dir);
      await old.query(
        "INSERT INTO charge_attempts (subscription_id, period_index, tx_hash, raw_tx, tx_hashes, relayer, nonce, status, sent_at) SELECT s, 1, $2, $3, ARRAY[$2], $4, 0, 'sent', 0 FROM unnest($1::text[]) AS t(s)",
        [[id(1), id(2)], id(1001), raw(1), RELAYER],
      );
      assert.deepEqual(await migrate(old), ["026_charge_transactions.sql"]);
      assert.deepEqual([...(await kept(old))], [[id(1001), raw(1)]]);
      const reader = new ChargeAttempts(old);
      for (const sub of [1, 2]) assert.equal((await reader.find(id(sub), 1n))?.rawTx, raw(1));
    } finally {
      await old.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
