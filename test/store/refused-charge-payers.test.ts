import { assert } from "chai";
import { openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { RefusedChargePayers } from "../../src/store/refused-charge-payers.js";
import { resetStore } from "../helpers/service.js";

const PAYER = "0x00000000000000000000000000000000000000Aa" as const;
const OTHER = "0x00000000000000000000000000000000000000bb" as const;

describe("payers refused after a charge failed on chain (store)", () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(null);
    await migrate(db);
  });
  beforeEach(() => resetStore(db));
  after(() => db.close());

  it("refuses a payer until its time, case-blind, keeps the later end, and forgets refusals that are over", async () => {
    const payers = new RefusedChargePayers(db);
    assert.isNull(await payers.refusedUntil(PAYER, 0));
    await payers.refuse(PAYER, 5_000, 1_000);
    assert.equal(await payers.refusedUntil(PAYER.toLowerCase() as typeof PAYER, 4_999), 5_000);
    assert.isNull(await payers.refusedUntil(PAYER, 5_000), "over at its end");
    assert.isNull(await payers.refusedUntil(OTHER, 1_000), "another payer is not concerned");
    await payers.refuse(PAYER, 3_000, 1_000);
    assert.equal(await payers.refusedUntil(PAYER, 2_000), 5_000, "an earlier end never shortens a refusal");
    await payers.refuse(OTHER, 9_000, 6_000);
    const rows = await db.query<{ payer: string }>("SELECT payer FROM refused_charge_payers");
    assert.deepEqual(
      rows.map((r) => r.payer),
      [OTHER],
      "the refusal over at 6,000 is gone",
    );
  });

  it("reads every payer asked in one turn in one query, each answer at its own time", async () => {
    await new RefusedChargePayers(db).refuse(PAYER, 5_000, 1_000);
    let queries = 0;
    const payers = new RefusedChargePayers({
      query: (sql, params) => {
        queries++;
        return db.query(sql, params);
      },
    });
    const answers = await Promise.all([payers.refusedUntil(PAYER, 4_999), payers.refusedUntil(PAYER, 5_000), payers.refusedUntil(OTHER, 0)]);
    assert.deepEqual(answers, [5_000, null, null]);
    assert.equal(queries, 1);
  });
});
