import { assert } from "chai";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, renameSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);
const FOLDERS = ["src", "dev", "scripts"];

/** Runs the project's dependency check (the one `npm run lint` runs) on a tree; its exit code and output. */
async function depcruise(cwd: string): Promise<{ code: number; out: string }> {
  const folders = FOLDERS.filter((folder) => existsSync(join(cwd, folder)));
  try {
    const { stdout } = await run(join(root, "node_modules/.bin/depcruise"), [...folders, "--config", join(root, ".dependency-cruiser.cjs")], { cwd });
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

/** Drops the `.txt` that keeps fixture sources out of the project's own checks, in every folder below `dir`. */
function unwrap(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) unwrap(path);
    else renameSync(path, path.replace(/\.txt$/, ""));
  }
}

/** A throwaway project holding the fixture tree `name` (test/fixtures/dependency-rules/<name>). */
function fixture(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), "depcruise-"));
  cpSync(join(root, "test/fixtures/dependency-rules", name), dir, { recursive: true });
  unwrap(dir);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "node20", strict: true }, include: FOLDERS.map((folder) => `${folder}/**/*.ts`) }),
  );
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  return dir;
}

describe("the dependency check (npm run lint)", function () {
  this.timeout(60_000);

  it("passes on src/, dev/ and scripts/ as they are", async () => {
    const { code, out } = await depcruise(root);
    assert.equal(code, 0, out);
  });

  it("fails on a cycle between domain folders, on service code that imports hardhat, and on the x402 facilitator reaching past payments or into http", async () => {
    const { code, out } = await depcruise(fixture("service"));
    assert.notEqual(code, 0);
    assert.match(out, /no-cycles/);
    assert.match(out, /payments-know-no-other-domain/);
    assert.match(out, /no-dev-tooling-in-service: src\/http\/c\.ts/);
    assert.match(out, /x402-knows-payments-only: src\/x402\/d\.ts/);
    assert.match(out, /domains-never-speak-http: src\/x402\/d\.ts/);
  });

  it("fails on an import up the floors, across a floor, a circle inside one room of dev/, and a room on no floor; passes an import down", async () => {
    const { code, out } = await depcruise(fixture("floors"));
    assert.notEqual(code, 0);
    // config.ts (floor 2) reading the chain's block time (floor 3): a room cycle with no file cycle.
    assert.match(out, /no-import-up-the-floors: src\/config\.ts → src\/chain\/block-time\.ts/);
    assert.match(out, /no-import-up-the-floors: scripts\/lib\/stack\.ts → scripts\/report\.ts/);
    assert.match(out, /no-import-across-a-floor: src\/x402\/settle\.ts → src\/webhooks\/watch\.ts/);
    assert.match(out, /no-cycles: dev\/localchain\/(node|socket)\.ts/);
    assert.match(out, /every-room-on-a-floor: src\/newroom\/thing\.ts → src\/wire\/amount\.ts/);
    assert.notMatch(out, /src\/chain\/read\.ts/, "the chain reading the configuration is an import down the floors");
    assert.notMatch(out, /no-cycles: src\//, "the room cycle chain ↔ config has no file cycle: only the floors see it");
  });
});
