import { assert } from "chai";
import { mkdtempSync, readdirSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getAddress, type Address, type Hex } from "viem";
import { openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { X402_ANSWER_KEEP_MS, X402Answers } from "../../src/store/x402-answers.js";
import { X402ReceiverStore } from "../../src/store/x402-receivers.js";
import { takeRelayerNonce } from "../../src/store/relayer-nonces.js";
import { resetStore } from "../helpers/service.js";

const PAYER = "0x00000000000000000000000000000000000000bb" as Address;
const RELAYER = "0x00000000000000000000000000000000000000aa" as Hex;
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "../../src/store/migrations");

/** x402's own room in the store (migration 014): answers and payer holds, receivers, relayer transactions. */
describe("x402's store: answers, payer holds, receivers", () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(null);
    await migrate(db);
  });
  beforeEach(() => resetStore(db));
  after(() => db.close());

  it("one success per subject: a reservation blocks others until released or stale; a claim without one goes to the first asker", async () => {
    const answers = new X402Answers(db);
    const subject = `${PAYER}:0x${"11".repeat(32)}`;
    assert.isTrue(await answers.reserve(subject, "a", 60_000));
    assert.isFalse(await answers.reserve(subject, "b", 60_000), "held by a");
    assert.isFalse(await answers.claim(subject, null, 60_000), "a request that sent nothing cannot take a held answer");
    await answers.release(subject, "b"); // not b's: nothing happens
    assert.isFalse(await answers.reserve(subject, "b", 60_000));
    await answers.release(subject, "a");
    assert.isTrue(await answers.reserve(subject, "b", 60_000), "free again");
    assert.isTrue(await answers.claim(subject, "b", 60_000));
    assert.isFalse(await answers.claim(subject, null, 60_000), "answered once");
    assert.isFalse(await answers.reserve(subject, "c", 0), "an answer given is never reserved again, stale or not");
    // A reservation older than the stale limit belongs to a request that never finished.
    const other = `${PAYER}:0x${"22".repeat(32)}`;
    assert.isTrue(await answers.reserve(other, "x", 60_000));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.isTrue(await answers.claim(other, null, 1), "stale: the first asker gets it");
  });

  it("payer holds and refusals, and pruning: old answers and lapsed refusals go", async () => {
    const answers = new X402Answers(db);
    assert.isTrue(await answers.holdPayer(PAYER, 60_000));
    assert.isFalse(await answers.holdPayer(PAYER, 60_000));
    await answers.releasePayer(PAYER);
    assert.isTrue(await answers.holdPayer(PAYER, 60_000));
    await answers.refusePayer(PAYER, 2_000);
    assert.isTrue(await answers.isPayerRefused(PAYER, 1_000));
    assert.isFalse(await answers.isPayerRefused(PAYER, 2_000));
    assert.isTrue(await answers.claim("0x00000000000000000000000000000000000000cc", null, 60_000));
    await answers.prune(Date.now() + X402_ANSWER_KEEP_MS + 60_000);
    assert.deepEqual(await db.query("SELECT * FROM x402_answers"), []);
    assert.deepEqual(await db.query("SELECT * FROM x402_reverted_payers"), []);
  });

  it("a receiver is one row however often it is written; a recorded transaction holds its nonce until it is done", async () => {
    const store = new X402ReceiverStore(db);
    const r = { receiver: getAddress("0x00000000000000000000000000000000000000d1"), recipient: getAddress(PAYER), token: getAddress(RELAYER) };
    const places = { caller: "203.0.113.1", max: 10, idleMs: 3_000 };
    for (let i = 0; i < 3; i++) await store.add(r, 1_000 + i, places);
    assert.lengthOf(await db.query("SELECT * FROM x402_receivers"), 1);
    assert.deepEqual(await store.find(r.receiver), r);
    assert.deepEqual(await store.page(null, 10), [], "never funded: the backstop does not walk it");
    // Funded, it is walked and never forgotten; a receiver never funded is forgotten once idle.
    await store.markFunded([r.receiver], 2_000);
    assert.deepEqual(await store.page(null, 10), [r]);
    const idle = { ...r, receiver: getAddress("0x00000000000000000000000000000000000000d2") };
    await store.add(idle, 1_000, places);
    assert.equal(await store.dropIdle(1_000, 10), 0, "not idle before its time");
    assert.equal(await store.dropIdle(5_000, 10), 1);
    assert.isNull(await store.find(idle.receiver));
    assert.deepEqual(await store.find(r.receiver), r);
    const sent = await store.record(RELAYER, 4, 0, async (nonce) => ({ hash: `0x${String(nonce).padStart(64, "0")}` as Hex, raw: "0x01" }));
    assert.equal(sent.nonce, 4);
    // The chain says 4 is pending again (the transaction is not mined): 4 is held, not a hole.
    assert.equal(await db.transaction((tx) => takeRelayerNonce(tx, RELAYER, 4)), 5);
    await store.markDone(sent.hash, "dropped");
    assert.deepEqual(await store.sent(10), []);
    assert.equal(await db.transaction((tx) => takeRelayerNonce(tx, RELAYER, 4)), 4, "done: its nonce is a hole to reuse");
  });

  it("a caller holds a bounded number of receivers nobody funded: past it a new one is refused until its oldest idles out, a known one is kept, a funded one frees its place, another caller is not held back", async () => {
    const store = new X402ReceiverStore(db);
    const receiver = (n: number) => ({
      receiver: getAddress(`0x${n.toString(16).padStart(40, "0")}`),
      recipient: getAddress(PAYER),
      token: getAddress(RELAYER),
    });
    const stranger = { caller: "203.0.113.7", max: 3, idleMs: 10_000 };
    for (let n = 1; n <= 3; n++) assert.deepEqual(await store.add(receiver(n), 1_000 * n, stranger), { added: true });
    assert.deepEqual(await store.add(receiver(4), 4_000, stranger), { added: false, freeAtMs: 11_000 }, "full until the oldest (seen at 1 s) idles out");
    assert.isNull(await store.find(receiver(4).receiver), "no row for the refused one");
    assert.deepEqual(await store.add(receiver(2), 4_000, stranger), { added: true }, "asking again for a known receiver is never refused");
    assert.deepEqual(await store.add(receiver(4), 4_000, { ...stranger, caller: "198.51.100.9" }), { added: true }, "another caller has its own places");
    assert.deepEqual(await store.add(receiver(1), 5_000, { ...stranger, caller: "198.51.100.9" }), { added: true });
    assert.deepEqual(
      await store.add(receiver(5), 5_000, stranger),
      { added: false, freeAtMs: 11_000 },
      "another caller's renewal takes no place of the first's, and gives none back",
    );
    // Funded, a receiver no longer takes its caller's place.
    await store.markFunded([receiver(3).receiver], 5_000);
    assert.deepEqual(await store.add(receiver(5), 5_000, stranger), { added: true });
    // Past the idle time a place counts no more, even before the backstop drops its row.
    assert.deepEqual(await store.add(receiver(6), 6_000, stranger), { added: false, freeAtMs: 11_000 });
    assert.deepEqual(await store.add(receiver(6), 11_001, stranger), { added: true });
    assert.lengthOf(await db.query("SELECT * FROM x402_receivers"), 6);
  });

  it("migration 014 moves the per-intent answers out of deposit_watches", async () => {
    const dir = mkdtempSync(join(tmpdir(), "migrations-"));
    for (const f of readdirSync(MIGRATIONS).filter((f) => f < "014")) copyFileSync(join(MIGRATIONS, f), join(dir, f));
    const old = await openDatabase(null);
    try {
      await migrate(old, dir);
      await old.query(
        "INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until, next_check_at, x402_answer) VALUES ('0xabc', '0x1', 1, '0x2', 0, 0, 'answered')",
      );
      copyFileSync(join(MIGRATIONS, "014_x402_room.sql"), join(dir, "014_x402_room.sql"));
      assert.deepEqual(await migrate(old, dir), ["014_x402_room.sql"]);
      assert.isFalse(await new X402Answers(old).claim("0xabc", null, 60_000), "answered before the move, answered after");
      assert.isTrue(await new X402Answers(old).claim("0xdef", null, 60_000));
      const columns = await old.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_name = 'deposit_watches'");
      assert.notInclude(
        columns.map((c) => c.column_name),
        "x402_answer",
      );
    } finally {
      await old.close();
    }
  });
});
