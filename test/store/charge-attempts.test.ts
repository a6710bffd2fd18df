import { assert } from "chai";
import type { Hex } from "viem";
import { openDatabase, type Database } from "../../src/store/database.js";
import { migrate } from "../../src/store/migrate.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { resetStore } from "../helpers/service.js";

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
    attempts.recordWithNonce({ subscriptionId: id(sub), periodIndex: 0n, relayer: RELAYER, sentAt: 0 }, pending, fakeSign);

  it("hands out each nonce once, from the chain's pending count, concurrently too", async () => {
    const attempts = new ChargeAttempts(db);
    const signed = await Promise.all(Array.from({ length: 20 }, (_, i) => record(attempts, i, 7)));
    assert.deepEqual(
      signed.map((s) => s!.nonce).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => 7 + i),
    );
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

  it("reports a period once: of many concurrent callers (one or several instances on the store), one compare-and-set wins", async () => {
    const attempts = [new ChargeAttempts(db), new ChargeAttempts(db)];
    await record(attempts[0]!, 1, 0);
    const won = await Promise.all(Array.from({ length: 12 }, (_, i) => attempts[i % 2]!.markReported(id(1), 0n)));
    assert.equal(won.filter(Boolean).length, 1, "CHARGED answered once");
    assert.isFalse(await attempts[0]!.markReported(id(1), 0n), "and never again");
    assert.equal((await attempts[1]!.find(id(1), 0n))!.status, "reported");
  });
});
