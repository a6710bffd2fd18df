import { assert } from "chai";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

/** Runs the project's dependency check (the one `npm run lint` runs) on a tree; its exit code and output. */
async function depcruise(cwd: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(join(root, "node_modules/.bin/depcruise"), ["src", "--config", join(root, ".dependency-cruiser.cjs")], { cwd });
    return { code: 0, out: stdout };
  } catch (error) {
    const e = error as { code: number; stdout: string };
    return { code: e.code, out: e.stdout };
  }
}

describe("the dependency check (npm run lint)", function () {
  this.timeout(60_000);

  it("passes on the service as it is", async () => {
    const { code, out } = await depcruise(root);
    assert.equal(code, 0, out);
  });

  it("fails on a cycle between domain folders, on service code that imports hardhat, and on the x402 facilitator reaching past payments or into http", async () => {
    const dir = mkdtempSync(join(tmpdir(), "depcruise-"));
    cpSync(join(root, "test/fixtures/dependency-rules/src"), join(dir, "src"), { recursive: true });
    for (const folder of readdirSync(join(dir, "src"))) {
      for (const file of readdirSync(join(dir, "src", folder)))
        renameSync(join(dir, "src", folder, file), join(dir, "src", folder, file.replace(/\.txt$/, "")));
    }
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "node20", strict: true }, include: ["src/**/*.ts"] }));
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    const { code, out } = await depcruise(dir);
    assert.notEqual(code, 0);
    assert.match(out, /no-cycles/);
    assert.match(out, /payments-know-no-other-domain/);
    assert.match(out, /no-dev-tooling-in-service: src\/http\/c\.ts/);
    assert.match(out, /x402-knows-payments-only: src\/x402\/d\.ts/);
    assert.match(out, /domains-never-speak-http: src\/x402\/d\.ts/);
  });
});
