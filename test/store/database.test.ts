import { assert } from "chai";
import { openDatabase, type Database } from "../../src/store/database.js";

/** The embedded store on its own thread (pglite-worker.ts): what callers rely on of a database. */
describe("the embedded store (PGlite on a worker thread)", () => {
  let db: Database;
  before(async () => {
    db = await openDatabase(null);
    await db.query("CREATE TABLE t (id INT PRIMARY KEY, note TEXT)");
    await db.query("CREATE TABLE d (id INT, CONSTRAINT d_once UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)");
  });
  after(() => db.close());
  beforeEach(async () => {
    await db.query("TRUNCATE t");
    await db.query("TRUNCATE d");
  });
  const ids = async () => (await db.query<{ id: number }>("SELECT id FROM t ORDER BY id")).map((r) => r.id);

  it("answers rows with their types, and parameters of each kind", async () => {
    await db.query("INSERT INTO t (id, note) VALUES ($1, $2), ($3, $4)", [1, "one", 2, null]);
    assert.deepEqual(await db.query("SELECT id, note FROM t ORDER BY id"), [
      { id: 1, note: "one" },
      { id: 2, note: null },
    ]);
    const [row] = await db.query<{ n: string; a: string[] }>("SELECT $1::numeric AS n, $2::text[] AS a", ["12345678901234567890", ["x", "y"]]);
    assert.deepEqual(row, { n: "12345678901234567890", a: ["x", "y"] });
  });

  it("a transaction commits together, and rolls back when its work throws (the error reaches the caller)", async () => {
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES (1)");
      await tx.query("INSERT INTO t (id) VALUES (2)");
    });
    const failed = await db
      .transaction(async (tx) => {
        await tx.query("INSERT INTO t (id) VALUES (3)");
        throw new Error("changed my mind");
      })
      .catch((error: Error) => error.message);
    assert.equal(failed, "changed my mind");
    assert.deepEqual(await ids(), [1, 2]);
  });

  it("a statement from outside never lands in another caller's open transaction (exec and query alike)", async () => {
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const tx = db
      .transaction(async (t) => {
        await t.query("INSERT INTO t (id) VALUES (1)");
        inside();
        await held;
        throw new Error("roll back");
      })
      .catch(() => {});
    await entered;
    const outside = Promise.all([db.exec("INSERT INTO t (id) VALUES (2)"), db.query("INSERT INTO t (id) VALUES (3)")]);
    release();
    await Promise.all([tx, outside]);
    assert.deepEqual(await ids(), [2, 3], "the rolled-back row is gone, the others stayed");
  });

  it("PostgreSQL's errors reach the caller with their code, from a query, an exec and a failed COMMIT", async () => {
    await db.query("INSERT INTO t (id) VALUES (1)");
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => "no error",
        (error: { code?: string; constraint?: string }) => `${error.code} ${error.constraint}`,
      );
    assert.equal(await codeOf(db.query("INSERT INTO t (id) VALUES (1)")), "23505 t_pkey");
    assert.equal(await codeOf(db.exec("INSERT INTO t (id) VALUES (1)")), "23505 t_pkey");
    assert.equal(await codeOf(db.exec("INSERT INTO nowhere VALUES (1)")), "42P01 undefined");
    // A deferred unique constraint is checked at COMMIT: the commit itself fails, nothing is kept.
    const deferred = db.transaction(async (tx) => {
      await tx.query("INSERT INTO d (id) VALUES (7)");
      await tx.query("INSERT INTO d (id) VALUES (7)");
    });
    assert.equal(await codeOf(deferred), "23505 d_once");
    assert.deepEqual(await db.query("SELECT id FROM d"), []);
    assert.deepEqual(await ids(), [1], "the store goes on after each error");
  });

  it("a closed store refuses further work with a reason, not a hang", async () => {
    const other = await openDatabase(null);
    await other.query("SELECT 1");
    await other.close();
    const refused = await other.query("SELECT 1").then(
      () => "answered",
      (error: Error) => error.message,
    );
    assert.match(refused, /stopped/);
  });
});
