import { assert } from "chai";
import { toHex, type Address, type Hex } from "viem";
import { connectPostgres, openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { LinkSubscribers } from "../../src/links/subscribers.js";
import { LINK_PENDING_SUBSCRIBERS } from "../../src/links/subscribe.js";
import { resetStore } from "../helpers/service.js";
import { startTestPostgres } from "../helpers/postgres.js";

const LINK = "0x000000000000000000000000000000aa" as Hex;
/** Sealing stands in: what is kept is not the question here. */
const tokens = { seal: (_p: string, _c: string, plain: string) => plain, open: (_p: string, _c: string, sealed: string) => sealed };

async function addLink(db: Database): Promise<void> {
  await db.query(
    "INSERT INTO links (link_id, recipient, amount_units, notify_url, caller, expires_at, period, subscription_end) VALUES ($1, $2, '1000000', NULL, 'merchant', 9999999999, 3600, 0)",
    [LINK, "0x00000000000000000000000000000000000000Cc"],
  );
}

/** Twelve payers subscribe to one link at once, each through a store of its own (instances sharing the database, or one). */
async function twelveAtOnce(stores: LinkSubscribers[]): Promise<string[]> {
  return Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      stores[i % stores.length]!.addPending(
        {
          linkId: LINK,
          subscriptionId: toHex(i + 1, { size: 32 }),
          payer: toHex(i + 1, { size: 20 }) as Address,
          subscription: `sc.${i}`,
          createdAt: 1,
          pendingUntil: 601,
        },
        LINK_PENDING_SUBSCRIBERS,
      ),
    ),
  );
}

const pendingCount = async (db: Database) =>
  Number((await db.query<{ n: string | number }>("SELECT count(*) AS n FROM link_subscriptions WHERE state = 'pending'"))[0]!.n);

describe("a link's pending places (store): the bound holds under concurrent subscribes", function () {
  this.timeout(60_000);

  describe("on PGlite", () => {
    let db: Database;
    before(async () => {
      db = await openDatabase(null);
      await migrate(db);
    });
    beforeEach(async () => {
      await resetStore(db);
      await addLink(db);
    });
    after(() => db.close());

    it("12 concurrent subscribes on one link: 10 pending, 2 refused as full", async () => {
      const answers = await twelveAtOnce([new LinkSubscribers(db, tokens), new LinkSubscribers(db, tokens)]);
      assert.equal(answers.filter((a) => a === "added").length, LINK_PENDING_SUBSCRIBERS, answers.join(","));
      assert.equal(answers.filter((a) => a === "full").length, 2);
      assert.equal(await pendingCount(db), LINK_PENDING_SUBSCRIBERS);
    });

    it("a payer's second pending subscription and the same subscription again take no place", async () => {
      const store = new LinkSubscribers(db, tokens);
      const row = {
        linkId: LINK,
        subscriptionId: toHex(1, { size: 32 }),
        payer: toHex(1, { size: 20 }) as Address,
        subscription: "sc.1",
        createdAt: 1,
        pendingUntil: 601,
      };
      assert.equal(await store.addPending(row, 10), "added");
      assert.equal(await store.addPending(row, 10), "kept");
      assert.equal(await store.addPending({ ...row, subscriptionId: toHex(2, { size: 32 }) }, 10), "payer-pending");
      assert.equal(await pendingCount(db), 1);
      assert.deepEqual(
        (await store.pendingOf([toHex(1, { size: 32 }), toHex(9, { size: 32 })])).map((p) => [p.linkId, p.subscriptionId]),
        [[LINK, toHex(1, { size: 32 })]],
        "found by subscription id, whatever the link",
      );
    });
  });

  describe("on PostgreSQL shared by two instances", () => {
    let postgres: { url: string; stop(): void };
    let pools: Database[];
    before(async () => {
      postgres = await startTestPostgres();
      pools = [await connectPostgres(postgres.url), await connectPostgres(postgres.url)];
      await migrate(pools[0]!);
    });
    beforeEach(async () => {
      await resetStore(pools[0]!);
      await addLink(pools[0]!);
    });
    after(async () => {
      for (const p of pools ?? []) await p.close();
      postgres?.stop();
    });

    it("12 concurrent subscribes on one link from two instances: at most 10 pending", async () => {
      const answers = await twelveAtOnce(pools.map((p) => new LinkSubscribers(p, tokens)));
      assert.equal(answers.filter((a) => a === "added").length, LINK_PENDING_SUBSCRIBERS, answers.join(","));
      assert.equal(await pendingCount(pools[0]!), LINK_PENDING_SUBSCRIBERS);
    });
  });
});
