import { assert } from "chai";
import { zeroAddress, type Address } from "viem";
import { DomainError } from "../../src/errors.js";
import { callerOf } from "../../src/limits/caller.js";
import { RELAYER_BUDGET_WINDOW_MS, RelayerBudget } from "../../src/limits/relayer-budget.js";
import { connectPostgres, openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { resetStore } from "../helpers/service.js";

const PAYER = "0x00000000000000000000000000000000000000a1" as Address;
const RECIPIENT = "0x00000000000000000000000000000000000000b2" as Address;
const LIMITS = { totalWei: 1_000n, perCallerWei: 300n, perPayerWei: 500n, perRecipientWei: 800n };

/** The code a budget check refuses with, or null when it admits. */
async function refusal(budget: RelayerBudget, parties: { payer: Address; recipient: Address; caller?: string }): Promise<DomainError | null> {
  try {
    await budget.check(parties);
    return null;
  } catch (error) {
    assert.instanceOf(error, DomainError);
    return error as DomainError;
  }
}

describe("the relayer's budget (src/limits/relayer-budget.ts)", () => {
  it("counts an IPv6 caller by its /48 (a site's allocation), an IPv4 one by its address", () => {
    assert.equal(callerOf("2001:db8:1:2::1", 3), "2001:db8:1::/48");
    assert.equal(callerOf("2001:db8:1:ffff:1:2:3:4", 3), callerOf("2001:db8:1::9", 3), "one /48, one caller");
    assert.notEqual(callerOf("2001:db8:1::1", 3), callerOf("2001:db8:2::1", 3));
    assert.equal(callerOf(callerOf("2001:db8:1:2::1"), 3), "2001:db8:1::/48", "the HTTP layer's /64 read as its address");
    assert.equal(callerOf("198.51.100.7", 3), "198.51.100.7");
  });

  describe("in PGlite", () => {
    let db: Database;
    before(async () => {
      db = await openDatabase(null);
      await migrate(db);
    });
    beforeEach(() => resetStore(db));
    after(() => db.close());

    it("refuses past each limit until the hour turns, with the window's end as Retry-After; each party counted apart", async () => {
      let now = 5 * RELAYER_BUDGET_WINDOW_MS + 10 * 60_000;
      const budget = new RelayerBudget(db, LIMITS, () => now);
      const parties = { payer: PAYER, recipient: RECIPIENT, caller: "2001:db8:1::1" };
      assert.isNull(await refusal(budget, parties));
      await budget.spend(parties, 300n);
      const byCaller = await refusal(budget, { ...parties, caller: "2001:db8:1:5::7" });
      assert.equal(byCaller?.code, "RELAYER_BUDGET_EXCEEDED", "the same /48");
      assert.equal(byCaller?.retryAfter, 50 * 60, "until the hour turns");
      assert.isNull(await refusal(budget, { ...parties, caller: "2001:db8:2::1" }), "another caller");
      await budget.spend({ ...parties, caller: "2001:db8:2::1" }, 200n);
      assert.equal((await refusal(budget, { payer: PAYER, recipient: zeroAddress }))?.code, "RELAYER_BUDGET_EXCEEDED", "the payer's 500");
      assert.isNull(await refusal(budget, { payer: zeroAddress, recipient: RECIPIENT }), "the recipient has 300 left");
      now += 50 * 60_000;
      assert.isNull(await refusal(budget, parties), "a new hour");
    });
  });

  describe("on one PostgreSQL shared by two instances", () => {
    let postgres: Awaited<ReturnType<typeof startTestPostgres>> | undefined;
    let pools: Database[];
    before(async function () {
      this.timeout(60_000);
      postgres = await startTestPostgres();
      pools = [await connectPostgres(postgres.url), await connectPostgres(postgres.url)];
      await migrate(pools[0]!);
    });
    beforeEach(() => resetStore(pools[0]!));
    after(async () => {
      for (const p of pools ?? []) await p.close();
      postgres?.stop();
    });

    it("what one instance spent, the other refuses on: the total is one across instances", async () => {
      const now = () => 7 * RELAYER_BUDGET_WINDOW_MS;
      const [a, b] = pools.map((db) => new RelayerBudget(db, LIMITS, now)) as [RelayerBudget, RelayerBudget];
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? a : b).spend({ payer: `0x${(i + 1).toString(16).padStart(40, "0")}` as Address, recipient: RECIPIENT }, 100n),
        ),
      );
      assert.equal(
        (await refusal(b, { payer: PAYER, recipient: zeroAddress }))?.code,
        "RELAYER_BUDGET_EXCEEDED",
        "1000 of 1000 in total, half of it spent by each",
      );
    });
  });
});
