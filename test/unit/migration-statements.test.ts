import { assert } from "chai";
import { statementsOf } from "../../src/store/migrate.js";

describe("migration files split into statements", () => {
  it("splits where a line ends with ';', but keeps a dollar-quoted function body whole", () => {
    const sql = [
      "-- a comment",
      "CREATE TABLE t (a INT);",
      "CREATE FUNCTION f() RETURNS VOID LANGUAGE plpgsql AS $$",
      "BEGIN",
      "  INSERT INTO t VALUES (1);",
      "  RETURN;",
      "END",
      "$$;",
      "DROP TABLE u",
      "",
    ].join("\n");
    const statements = statementsOf(sql);
    assert.lengthOf(statements, 3);
    assert.match(statements[0]!, /CREATE TABLE t \(a INT\)$/);
    assert.match(statements[1]!, /^CREATE FUNCTION f\(\)[\s\S]*INSERT INTO t VALUES \(1\);[\s\S]*RETURN;[\s\S]*\$\$$/);
    assert.equal(statements[2], "DROP TABLE u");
  });

  it("drops what is only comments or blank", () => {
    assert.deepEqual(statementsOf("-- nothing here\n\n-- still nothing\n"), []);
  });
});
