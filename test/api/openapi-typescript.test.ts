import { assert } from "chai";
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { useService } from "../helpers/service.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
/** openapi-typescript needs TypeScript 5 (the root has 7): its own folder, installed by `npm ci` there. */
const TOOL = join(root, "tools/openapi-typescript");
const WORK = join(root, ".data/openapi-typescript");

describe("OpenAPI document with openapi-typescript and openapi-fetch (what a merchant's tooling does)", function () {
  this.timeout(300_000);
  const h = useService({ PORT: "0", OPS_PORT: "0" });

  before(async () => {
    // .ci/run installs it; on a developer's machine the first run does.
    if (!existsSync(join(TOOL, "node_modules/openapi-typescript"))) await run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: TOOL });
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    // Run where no redocly.yaml is found (the repository's would make it ask for per-API outputs).
    await run(process.execPath, [join(TOOL, "node_modules/openapi-typescript/bin/cli.js"), join(root, "docs/openapi.json"), "-o", "api.d.ts"], { cwd: WORK });
    copyFileSync(join(root, "test/fixtures/openapi-fetch/program.ts.txt"), join(WORK, "program.ts"));
    writeFileSync(
      join(WORK, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: ["node"], skipLibCheck: true },
        files: ["program.ts"],
      }),
    );
  });

  it("generates types that a program using openapi-fetch type-checks against (TypeScript 5, the generator's peer)", async () => {
    const result = await run(process.execPath, [join(TOOL, "node_modules/typescript/bin/tsc"), "-p", "."], { cwd: WORK }).catch(
      (e) => e as { code: number; stdout: string },
    );
    assert.equal((result as { code?: number }).code ?? 0, 0, (result as { stdout: string }).stdout);
  });

  it("and that program calls the running stack and gets what the types say", async () => {
    const running = await listen(h.service);
    try {
      const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
      const tsx = join(root, "node_modules/tsx/dist/cli.mjs");
      const { stdout } = await run(process.execPath, [tsx, "program.ts", running.apiUrl, merchant], { cwd: WORK });
      assert.deepEqual(JSON.parse(stdout), { amount: "7.250000", code: "PAYMENT_NOT_FOUND", error: "INVALID_SUBSCRIPTION", status: 400, chain: 84532 });
    } finally {
      await running.close();
    }
  });
});
