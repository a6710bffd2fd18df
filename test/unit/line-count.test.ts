import { assert } from "chai";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

/** Runs `npm run lint`'s line count (scripts/check-lines.ts) on a tree; its exit code and what it printed. */
async function checkLines(cwd: string): Promise<{ code: number; out: string }> {
  try {
    const { stderr } = await run(join(root, "node_modules/.bin/tsx"), [join(root, "scripts/check-lines.ts")], { cwd });
    return { code: 0, out: stderr };
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, out: e.stderr };
  }
}

/** A tree with `files` (path → number of lines). */
function tree(files: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), "check-lines-"));
  for (const [path, lines] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), Array.from({ length: lines }, (_, i) => `export const line${i} = ${i};\n`).join(""));
  }
  return dir;
}

describe("the line count (npm run lint)", function () {
  this.timeout(60_000);

  it("passes files of 400 lines in src/, dev/ and scripts/, and a generated file of any length", async () => {
    const { code, out } = await checkLines(tree({ "src/a.ts": 400, "dev/localchain/b.ts": 400, "scripts/c.ts": 400, "src/generated/contracts.ts": 5000 }));
    assert.equal(code, 0, out);
  });

  it("fails on a file of 401 lines in src/, dev/ or scripts/, naming each", async () => {
    const { code, out } = await checkLines(tree({ "src/a.ts": 401, "src/ok.ts": 400, "dev/localchain/b.ts": 401, "scripts/lib/c.ts": 401 }));
    assert.equal(code, 1);
    assert.match(out, /src\/a\.ts: 401 lines/);
    assert.match(out, /dev\/localchain\/b\.ts: 401 lines/);
    assert.match(out, /scripts\/lib\/c\.ts: 401 lines/);
    assert.notMatch(out, /ok\.ts/);
  });

  it("counts a last line without a newline", async () => {
    const dir = tree({});
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src/a.ts"), `${"x\n".repeat(400)}x`);
    const { code, out } = await checkLines(dir);
    assert.equal(code, 1);
    assert.match(out, /src\/a\.ts: 401 lines/);
  });

  it("passes on src/, dev/ and scripts/ as they are", async () => {
    const { code, out } = await checkLines(root);
    assert.equal(code, 0, out);
  });
});
