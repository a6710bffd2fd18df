import { assert } from "chai";
import { pad, toHex, type Address, type Hex } from "viem";
import { openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { ADD_IN_FLIGHT, DepositWatches } from "../../src/store/deposit-watches.js";

/** The watch insert of every create: grouped into few statements, each caller answered only once its row is stored. */
describe("deposit watches in the store: grouped inserts", () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(null);
    await migrate(db);
  });
  after(() => db.close());
  beforeEach(() => db.query("TRUNCATE deposit_watches"));

  const watch = (i: number) => ({
    depositAddress: pad(toHex(i), { size: 20 }) as Address,
    recipient: "0x00000000000000000000000000000000000000aa" as Address,
    amountUnits: 1_000_000n,
    reference: pad(toHex(i), { size: 32 }) as Hex,
    watchUntil: 2 ** 40,
  });

  /** The store, counting the statements sent to it. */
  function counting(failNext = { on: false }) {
    const counted = { inserts: 0 };
    const watches = new DepositWatches({
      query: (sql, params) => db.query(sql, params),
      exec: async (sql) => {
        if (sql.includes("INSERT INTO deposit_watches")) {
          counted.inserts++;
          if (failNext.on) {
            failNext.on = false;
            throw new Error("the store went away");
          }
        }
        return db.exec(sql);
      },
      transaction: (work) => db.transaction(work),
    });
    return { watches, counted };
  }

  it("200 concurrent adds: every row stored before its caller is answered, in a few INSERTs, not 200", async () => {
    const { watches, counted } = counting();
    const answered = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        await watches.add(watch(i));
        // Answered: the row is there.
        return (await watches.find(watch(i).depositAddress)) !== null;
      }),
    );
    assert.isTrue(answered.every(Boolean));
    // A few small groups go at once (the store writes one while the next gathers), the rest together.
    assert.isAtMost(counted.inserts, ADD_IN_FLIGHT + 1, "a few multi-row INSERTs for the 200 that arrived together");
    const [{ n }] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposit_watches");
    assert.equal(n, 200);
    const stored = (await watches.find(watch(7).depositAddress))!;
    assert.deepInclude(stored, { status: "open", amountUnits: 1_000_000n, reference: watch(7).reference });
    const [row] = await db.query<{ next_check_at: string | null }>("SELECT next_check_at FROM deposit_watches WHERE deposit_address = $1", [
      watch(7).depositAddress.toLowerCase(),
    ]);
    assert.deepEqual(row, { next_check_at: null }, "no retry owed: not in the retry index");
  });

  it("a failed INSERT fails every caller in it (none is told its watch exists); the next adds go through; a repeat is one row", async () => {
    const fail = { on: false };
    const { watches } = counting(fail);
    await watches.add(watch(1));
    fail.on = true;
    const results = await Promise.allSettled([watches.add(watch(2)), watches.add(watch(3))]);
    assert.equal(results[0]!.status, "rejected");
    await Promise.all([watches.add(watch(4)), watches.add(watch(4)), watches.add(watch(1))]);
    const rows = await db.query<{ deposit_address: string }>("SELECT deposit_address FROM deposit_watches ORDER BY deposit_address");
    assert.deepEqual(
      rows.map((r) => r.deposit_address),
      [watch(1), ...(results[1]!.status === "fulfilled" ? [watch(3)] : []), watch(4)].map((w) => w.depositAddress.toLowerCase()),
    );
  });

  it("a value that is not exactly a watch's shape never reaches the statement: that add fails, the others in its group are stored", async () => {
    const { watches } = counting();
    const hostile = [
      { ...watch(5), reference: `0x${"00".repeat(31)}'); DROP TABLE deposit_watches; --` as Hex },
      { ...watch(6), recipient: "0x00000000000000000000000000000000000000a'" as Address },
      { ...watch(8), depositAddress: "0x0000000000000000000000000000000000000008 " as Address },
      { ...watch(9), amountUnits: -1n },
      { ...watch(10), watchUntil: 1.5 },
    ];
    const results = await Promise.allSettled([watches.add(watch(1)), ...hostile.map((w) => watches.add(w)), watches.add(watch(2))]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "rejected", "rejected", "rejected", "rejected", "rejected", "fulfilled"],
    );
    const rows = await db.query<{ deposit_address: string }>("SELECT deposit_address FROM deposit_watches ORDER BY deposit_address");
    assert.deepEqual(
      rows.map((r) => r.deposit_address),
      [watch(1), watch(2)].map((w) => w.depositAddress.toLowerCase()),
    );
  });

  it("settle ends the open watches of the given payment addresses, not a sent one (its settlement is followed) nor another", async () => {
    const { watches } = counting();
    await Promise.all([1, 2, 3].map((i) => watches.add(watch(i))));
    await db.query("UPDATE deposit_watches SET status = 'sent' WHERE deposit_address = $1", [watch(2).depositAddress.toLowerCase()]);
    assert.equal(await watches.settle([watch(1).depositAddress, watch(2).depositAddress]), 1);
    const status = async (i: number) => (await watches.find(watch(i).depositAddress))!.status;
    assert.deepEqual([await status(1), await status(2), await status(3)], ["settled", "sent", "open"]);
  });
});
