import { assert } from "chai";
import type { Hex } from "viem";
import { connectPostgres, openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";
import { resetStore } from "../helpers/service.js";
import { startTestPostgres } from "../helpers/postgres.js";

const RELAYER = "0x00000000000000000000000000000000000000aa" as Hex;
const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;
const fakeSign = async (nonce: number) => ({ hash: id(1000 + nonce + Math.floor(Math.random() * 1e6) * 10_000), raw: "0x01" as Hex });

describe("relayer nonces in the store", () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(null);
    await migrate(db);
  });
  beforeEach(() => resetStore(db));
  after(() => db.close());
  const record = (attempts: ChargeAttempts, sub: number, pending: number) =>
    attempts.recordWithNonce([{ subscriptionId: id(sub), periodIndex: 0n }], { relayer: RELAYER, sentAt: 0 }, pending, (_, nonce) => fakeSign(nonce));

  it("hands out each nonce once, from the chain's pending count, concurrently too", async () => {
    const attempts = new ChargeAttempts(db);
    const signed = await Promise.all(Array.from({ length: 20 }, (_, i) => record(attempts, i, 7)));
    assert.deepEqual(
      signed.map((s) => s!.nonce).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => 7 + i),
    );
  });

  it("finds asked in one turn are answered by one query, each with its own attempt (a wave's renewals look theirs up together)", async () => {
    const attempts = new ChargeAttempts(db);
    for (const sub of [1, 2, 3]) await record(attempts, sub, 0);
    let queries = 0;
    const counted = new ChargeAttempts({
      query: (sql, params) => {
        queries++;
        return db.query(sql, params);
      },
      transaction: (work) => db.transaction(work),
    });
    const found = await Promise.all([1, 2, 3, 4, 2].map((sub) => counted.find(id(sub), 0n)));
    assert.equal(queries, 1);
    assert.deepEqual(
      found.map((a) => a?.subscriptionId ?? null),
      [id(1), id(2), id(3), null, id(2)],
    );
    assert.isNull(await counted.find(id(1), 1n), "another period of the same subscription is not its attempt");
    assert.equal(queries, 2);
  });

  it("takes nothing when the period is already recorded (the nonce stays free)", async () => {
    const attempts = new ChargeAttempts(db);
    assert.equal((await record(attempts, 1, 0))!.nonce, 0);
    assert.isNull(await record(attempts, 1, 0));
    assert.equal((await record(attempts, 2, 1))!.nonce, 1);
  });

  it("follows the chain when it is ahead (the key was used elsewhere), and reuses a hole a dropped attempt left", async () => {
    const attempts = new ChargeAttempts(db);
    assert.equal((await record(attempts, 1, 5))!.nonce, 5);
    assert.equal((await record(attempts, 2, 9))!.nonce, 9, "the chain is ahead");
    assert.equal((await record(attempts, 3, 10))!.nonce, 10);
    const dropped = (await attempts.find(id(3), 0n))!;
    await attempts.remove(id(3), 0n, dropped.txHash); // never mined: nonce 10 is a hole now
    assert.equal((await record(attempts, 4, 10))!.nonce, 10, "the hole is filled, or every later nonce would wait");
    assert.equal((await record(attempts, 5, 10))!.nonce, 11);
  });

  it("a settlement's nonce is never a hole for a charge (one relayer key, one allocator): recorded, not yet broadcast, it is held", async () => {
    const watches = new DepositWatches(db);
    const address = "0x00000000000000000000000000000000000000d1" as const;
    await watches.add({ depositAddress: address, recipient: RELAYER, amountUnits: 1n, reference: id(9), watchUntil: 2 ** 40 });
    const settlement = await watches.recordSettlement(address, { relayer: RELAYER, sentAt: 0 }, 5, fakeSign);
    assert.equal(settlement!.nonce, 5);
    // The chain still says 5 pending (the settlement has not reached it): 5 is taken, not a hole.
    assert.equal((await record(new ChargeAttempts(db), 1, 5))!.nonce, 6);
    assert.isNull(await watches.recordSettlement(address, { relayer: RELAYER, sentAt: 0 }, 5, fakeSign), "claimed once");
  });

  it("reports a period once: of many concurrent callers (one or several instances on the store), one compare-and-set wins", async () => {
    const attempts = [new ChargeAttempts(db), new ChargeAttempts(db)];
    await record(attempts[0]!, 1, 0);
    const won = await Promise.all(Array.from({ length: 12 }, (_, i) => attempts[i % 2]!.markReported(id(1), 0n)));
    assert.equal(won.filter(Boolean).length, 1, "CHARGED answered once");
    assert.isFalse(await attempts[0]!.markReported(id(1), 0n), "and never again");
    assert.equal((await attempts[1]!.find(id(1), 0n))!.status, "reported");
  });
});

/**
 * Two instances' store transactions on one PostgreSQL (each with its own pool): whatever mix of single
 * charges and batches they record at once, they wait for each other and never deadlock (a deadlock is
 * an aborted transaction: a 500 for the charge that lost it).
 */
describe("relayer nonces on one PostgreSQL shared by two instances", function () {
  this.timeout(60_000);
  let postgres: { url: string; stop(): void };
  let pools: Database[];
  before(async () => {
    postgres = await startTestPostgres();
    pools = [await connectPostgres(postgres.url), await connectPostgres(postgres.url)];
    await migrate(pools[0]!);
  });
  beforeEach(() => resetStore(pools[0]!));
  after(async () => {
    for (const p of pools ?? []) await p.close();
    postgres?.stop();
  });
  const items = (subs: number[]) => subs.map((s) => ({ subscriptionId: id(s), periodIndex: 0n }));
  const who = { relayer: RELAYER, sentAt: 0 };

  it("a single charge and a batch that share a period: one waits for the other, which wins it", async () => {
    const [a, b] = [new ChargeAttempts(pools[0]!), new ChargeAttempts(pools[1]!)];
    // The single charge is held inside its store transaction (while it signs) until the batch has
    // started and is waiting on a lock the single charge holds.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let signing!: () => void;
    const inside = new Promise<void>((resolve) => (signing = resolve));
    const single = a.recordWithNonce(items([2]), who, 0, async (_, nonce) => {
      signing();
      await held;
      return fakeSign(nonce);
    });
    await inside;
    const batch = b.recordWithNonce(items([1, 2, 3]), who, 0, async (_, nonce) => fakeSign(nonce));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the batch reaches its lock wait
    release();
    const [s, t] = await Promise.all([single, batch]);
    assert.equal(s!.nonce, 0);
    assert.deepEqual(t!.won, [true, false, true], "the shared period is the single charge's");
    assert.equal(t!.nonce, 1);
  });

  it("batches of the same periods in opposite orders, many at once: every call answers, each period is won once", async () => {
    const [a, b] = [new ChargeAttempts(pools[0]!), new ChargeAttempts(pools[1]!)];
    const subs = Array.from({ length: 40 }, (_, i) => i + 1);
    for (let round = 0; round < 10; round++) {
      const batch = (attempts: ChargeAttempts, order: number[]) =>
        attempts.recordWithNonce(
          order.map((s) => ({ subscriptionId: id(s + round * 100), periodIndex: 0n })),
          who,
          0,
          async (_, nonce) => fakeSign(nonce),
        );
      const reversed = [...subs].reverse();
      const orders = [subs, reversed, reversed, subs];
      const answers = await Promise.all(orders.map((order, k) => batch(k % 2 ? b : a, order)));
      const wins = subs.map((sub) => answers.filter((r, k) => r?.won[orders[k]!.indexOf(sub)]).length);
      assert.deepEqual(
        wins,
        subs.map(() => 1),
        `round ${round}`,
      );
    }
  });
});
