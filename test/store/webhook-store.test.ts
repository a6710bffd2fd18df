import { assert } from "chai";
import { connectPostgres, openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { DeliveryWorker } from "../../src/webhooks/delivery.js";
import { Deliveries } from "../../src/webhooks/deliveries.js";
import { Watches, type Watch } from "../../src/webhooks/watches.js";
import { resetStore } from "../helpers/service.js";
import { startTestPostgres } from "../helpers/postgres.js";

const watch = (key: string, caller: string, extra: Partial<Watch> = {}): Watch => ({
  kind: "payment",
  key,
  notifyUrl: "https://a.example/hook",
  caller,
  linkId: null,
  data: {},
  watchUntil: 1_000,
  ...extra,
});

/** Lets pending promise callbacks and I/O run (no timer): until `done` holds, or fails after many turns. */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 10_000; i++) {
    if (await done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`never: ${what}`);
}

for (const store of ["pglite", "postgres"] as const) {
  describe(`webhook store at scale (${store})`, function () {
    this.timeout(60_000);
    let db: Database;
    let postgres: { url: string; stop(): void } | undefined;
    before(async () => {
      if (store === "postgres") {
        postgres = await startTestPostgres();
        db = await connectPostgres(postgres.url);
      } else {
        db = await openDatabase(null);
      }
      await migrate(db);
    });
    beforeEach(() => resetStore(db));
    after(async () => {
      await db?.close();
      postgres?.stop();
    });

    describe("watch caps (counters, not a scan)", () => {
      const caps = { perCaller: 2, total: 3 };

      it("admits up to the per-caller and total caps, concurrently too, and counts a renewed watch once", async () => {
        const watches = new Watches(db);
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => watches.add(watch(`r${i}`, "ip-a"), caps)));
        assert.equal(results.filter(Boolean).length, 2, "per caller");
        // Which two of the concurrent adds won is up to the store (PostgreSQL runs them in parallel).
        const admitted = results.findIndex(Boolean);
        assert.isTrue(await watches.add(watch(`r${admitted}`, "ip-a", { watchUntil: 2_000 }), caps), "renewing an existing watch takes no new place");
        assert.isTrue(await watches.add(watch("s0", "ip-b"), caps));
        assert.isFalse(await watches.add(watch("s1", "ip-c"), caps), "total");
        assert.deepEqual(await watches.activeCounts("ip-a"), { caller: 2, total: 3 });
        assert.lengthOf(await db.query("SELECT 1 FROM watches"), 3, "a refused watch writes nothing");
      });

      it("does not count payments minted through a link; closing the link gives its place back", async () => {
        const watches = new Watches(db);
        assert.isTrue(await watches.add(watch("L1", "ip-a", { kind: "link", linkId: "L1" }), caps));
        for (let i = 0; i < 5; i++) assert.isTrue(await watches.add(watch(`p${i}`, "ip-a", { linkId: "L1" }), caps));
        assert.deepEqual(await watches.activeCounts("ip-a"), { caller: 1, total: 1 });
        await watches.endForLink("L1");
        assert.deepEqual(await watches.activeCounts("ip-a"), { caller: 0, total: 0 });
        assert.lengthOf(await db.query("SELECT 1 FROM watches"), 0);
      });

      it("reads two counter rows whatever the number of watches (no count(*) in the plan)", async () => {
        await db.query(
          "INSERT INTO watches (kind, key, notify_url, caller, link_id, data, watch_until) SELECT 'payment', 'k' || g, 'https://a.example/', 'ip-' || (g % 50), NULL, '{}', 10 FROM generate_series(1, 5000) g",
        );
        const plan = (await db.query<Record<string, string>>("EXPLAIN SELECT scope, active FROM watch_counts WHERE scope = ANY(ARRAY['caller:ip-1', 'total'])"))
          .map((r) => Object.values(r)[0])
          .join("\n");
        assert.notMatch(plan, /watches/);
      });
    });

    describe("pruning", () => {
      it("deletes ended watches in bounded batches and releases their places", async () => {
        const watches = new Watches(db);
        for (let i = 0; i < 5; i++) await watches.add(watch(`old${i}`, "ip-a", { watchUntil: 100 + i }), null);
        await watches.add(watch("live", "ip-a", { watchUntil: 10_000 }), null);
        assert.equal(await watches.pruneEnded(103, 2), 2, "bounded by the batch");
        assert.equal(await watches.pruneEnded(103, 2), 1, "only those that ended before 103");
        assert.equal(await watches.pruneEnded(103, 2), 0);
        assert.deepEqual(await watches.activeCounts("ip-a"), { caller: 3, total: 3 });
        assert.deepEqual(
          (await db.query<{ key: string }>("SELECT key FROM watches ORDER BY key")).map((r) => r.key),
          ["live", "old3", "old4"],
        );
      });

      it("deletes delivered and dropped events after the retention, never a pending one", async () => {
        const deliveries = new Deliveries(db);
        for (const id of ["a", "b", "c", "d"])
          await deliveries.enqueue({ eventId: id, eventType: "payment.settled", notifyUrl: "https://a.example/", payload: {}, dueAt: 1_000 });
        await deliveries.markDelivered("a", 1_000);
        await deliveries.markFailed("b", "HTTP 500", null);
        await deliveries.markDelivered("c", 5_000);
        assert.equal(await deliveries.pruneFinished(2_000, 100), 2);
        assert.deepEqual(
          (await deliveries.all()).map((d) => [d.eventId, d.status]),
          [
            ["c", "delivered"],
            ["d", "pending"],
          ],
        );
      });
    });

    describe("delivery concurrency", () => {
      it("a slow receiver holds only its own slots: every other target is served meanwhile, then it is too", async () => {
        const deliveries = new Deliveries(db);
        const held: Array<() => void> = [];
        const posted = { slow: 0, fast: 0 };
        const post = (url: string) => {
          if (url.startsWith("https://slow.example")) {
            posted.slow++;
            return new Promise<number>((resolve) => held.push(() => resolve(200)));
          }
          posted.fast++;
          return Promise.resolve(200);
        };
        let now = 1_000;
        for (let i = 0; i < 6; i++)
          await deliveries.enqueue({ eventId: `slow${i}`, eventType: "t", notifyUrl: "https://slow.example/h", payload: {}, dueAt: now++ });
        for (let i = 0; i < 20; i++)
          await deliveries.enqueue({ eventId: `fast${i}`, eventType: "t", notifyUrl: `https://fast${i % 3}.example/h`, payload: {}, dueAt: now++ });
        const failures: unknown[] = [];
        const worker = new DeliveryWorker({ db, post, now: () => now, concurrency: 8, perTarget: 2, sign: () => ({}) });
        worker.start(3_600_000, (e) => failures.push(e));
        try {
          await worker.pump();
          const status = async () =>
            Object.fromEntries(
              (await db.query<{ status: string; n: string | number }>("SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status")).map((r) => [
                r.status,
                Number(r.n),
              ]),
            );
          await until(async () => (await status()).delivered === 20, "every fast delivery done");
          assert.equal(posted.slow, 2, "the slow target got only its two slots");
          assert.equal(posted.fast, 20);
          const slowRows = await db.query<{ lease_until: string | number }>(
            "SELECT lease_until FROM webhook_deliveries WHERE target = 'slow.example' AND status = 'pending'",
          );
          assert.equal(slowRows.filter((r) => Number(r.lease_until) > 0).length, 4, "two in its slots, two waiting for them; the rest left to others");
          while (posted.slow < 6 || held.length) {
            held.shift()?.();
            await until(() => held.length > 0 || posted.slow === 6, "the next slow attempt starts");
            if (posted.slow === 6) for (const answer of held.splice(0)) answer();
          }
          await until(async () => (await status()).delivered === 26, "every slow delivery done");
          assert.deepEqual(failures, []);
        } finally {
          worker.stop();
        }
      });

      it("a fast receiver's rows are leased in batches that fit the lease: each sent once, never more than its slots at once, a lease per batch", async () => {
        const deliveries = new Deliveries(db);
        let now = 1_000;
        for (let i = 0; i < 300; i++)
          await deliveries.enqueue({ eventId: `e${i}`, eventType: "t", notifyUrl: "https://fast.example/h", payload: { i }, dueAt: now++ });
        const leases = { count: 0, givenBack: 0 };
        const counted: Pick<typeof db, "query"> = {
          query: (sql: string, params?: unknown[]) => {
            if (sql.includes("SET lease_until = $1")) leases.count++;
            if (sql.includes("SET lease_until = 0 WHERE event_id = ANY")) leases.givenBack += (params![0] as string[]).length;
            return db.query(sql, params as never);
          },
        } as never;
        const posted = new Map<string, number>();
        let inFlight = 0;
        let most = 0;
        const post = async (_url: string, headers: Record<string, string>) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((resolve) => setImmediate(resolve));
          posted.set(headers["svc-event-id"]!, (posted.get(headers["svc-event-id"]!) ?? 0) + 1);
          inFlight--;
          return 200;
        };
        const failures: unknown[] = [];
        const worker = new DeliveryWorker({
          db: counted,
          post,
          now: () => now,
          perTarget: 8,
          attemptTimeoutMs: 10_000,
          leaseMs: 60_000,
          sign: (id, type) => ({ "svc-event-id": id, "svc-event-type": type }),
        });
        worker.start(3_600_000, (e) => failures.push(e));
        try {
          const delivered = async () =>
            Number((await db.query<{ n: string | number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'"))[0]!.n);
          await until(async () => (await delivered()) === 300, "every delivery recorded");
          assert.equal(posted.size, 300);
          assert.deepEqual([...new Set(posted.values())], [1], "each sent once");
          assert.equal(most, 8, "never more than the target's slots");
          // 8 slots and 32 waiting places (60 s lease, 10 s attempts: four rounds, the row's own, one to spare):
          // leased in batches of about 20 to 48, not one lease per attempt or per slot.
          assert.isAtMost(leases.count, 30, `leases: ${leases.count}`);
          // One target's rows are leased by its refill alone while one is on its way: none leased only to be given back.
          assert.equal(leases.givenBack, 0, "rows given back");
          assert.deepEqual(failures, []);
        } finally {
          worker.stop();
        }
      });
    });
  });
}
