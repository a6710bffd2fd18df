import { assert } from "chai";
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";

import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { useService } from "../helpers/service.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");
/** Node 20 as installed on the machine (what a merchant may run), besides the Node 24 running the tests. */
const NODE_20 = "/usr/bin/node";
/** A merchant's app: a script that calls the stack, and TypeScript that uses the declarations (.txt: not tests, not type-checked here). */
const FIXTURES = join(root, "test/fixtures/merchant-app");

describe("the client as a package of its own (client/: build, npm pack, install in a fresh app)", function () {
  this.timeout(180_000);
  const h = useService({ PORT: "0", OPS_PORT: "0" });
  let app: string;
  let tarball: string;

  before(async () => {
    await run(process.execPath, [tsc, "-p", "client"], { cwd: root });
    app = mkdtempSync(join(tmpdir(), "merchant-app-"));
    const { stdout } = await run("npm", ["pack", "./client", "--pack-destination", app, "--json"], { cwd: root });
    tarball = join(app, (JSON.parse(stdout) as Array<{ filename: string }>)[0]!.filename);
    copyFileSync(join(FIXTURES, "main.mjs.txt"), join(app, "main.mjs"));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "merchant-app", private: true, type: "module" }));
    // Offline: the package has no dependencies, so the tarball is all npm needs.
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: app });
  });
  after(() => rmSync(app, { recursive: true, force: true }));

  it("ships JavaScript and type declarations only, and installs with no other package", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n").sort();
    assert.deepEqual(files, [
      "package/README.md",
      "package/dist/bytes.d.ts",
      "package/dist/bytes.js",
      "package/dist/cli-args.d.ts",
      "package/dist/cli-args.js",
      "package/dist/errors.d.ts",
      "package/dist/errors.js",
      "package/dist/events-cli.d.ts",
      "package/dist/events-cli.js",
      "package/dist/fulfil.d.ts",
      "package/dist/fulfil.js",
      "package/dist/index.d.ts",
      "package/dist/index.js",
      "package/dist/listen-state.d.ts",
      "package/dist/listen-state.js",
      "package/dist/listen.d.ts",
      "package/dist/listen.js",
      "package/dist/pages.d.ts",
      "package/dist/pages.js",
      "package/dist/renew-cli.d.ts",
      "package/dist/renew-cli.js",
      "package/dist/renewals.d.ts",
      "package/dist/renewals.js",
      "package/dist/replace-file.d.ts",
      "package/dist/replace-file.js",
      "package/dist/transport.d.ts",
      "package/dist/transport.js",
      "package/dist/types.d.ts",
      "package/dist/types.js",
      "package/dist/webhooks.d.ts",
      "package/dist/webhooks.js",
      "package/dist/x402-auth-capture-consent.d.ts",
      "package/dist/x402-auth-capture-consent.js",
      "package/dist/x402-auth-capture.d.ts",
      "package/dist/x402-auth-capture.js",
      "package/dist/x402-receiver.d.ts",
      "package/dist/x402-receiver.js",
      "package/dist/x402.d.ts",
      "package/dist/x402.js",
      "package/package.json",
    ]);
    const installed = readdirSync(join(app, "node_modules")).filter((n) => !n.startsWith("."));
    assert.deepEqual(installed, ["@stablecoin-payments"]);
    assert.deepEqual(readdirSync(join(app, "node_modules", "@stablecoin-payments")), ["client"]);
  });

  it("works from the installed package against the running stack, on Node 20 and on this Node", async () => {
    const running = await listen(h.service);
    try {
      const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
      const runners = [process.execPath, ...(existsSync(NODE_20) ? [NODE_20] : [])];
      for (const node of runners) {
        const { stdout } = await run(node, ["main.mjs", running.apiUrl, merchant], { cwd: app });
        const out = JSON.parse(stdout);
        assert.deepInclude(
          out,
          { chain: 84532, amount: "2.500000", paid: false, code: "PAYMENT_NOT_FOUND", refused: "400 INVALID_INTENT FIX_REQUEST", ran: true },
          node,
        );
      }
      if (existsSync(NODE_20)) assert.match((await run(NODE_20, ["--version"])).stdout, /^v20\./);
    } finally {
      await running.close();
    }
  });

  it("type-checks a merchant's TypeScript against the installed declarations, addresses as `0x…` template types", async () => {
    copyFileSync(join(FIXTURES, "check.ts.txt"), join(app, "check.ts"));
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] },
        files: ["check.ts"],
      }),
    );
    const result = await run(process.execPath, [tsc, "-p", "."], { cwd: app }).catch((e) => e as { stdout: string; code: number });
    assert.equal((result as { code?: number }).code ?? 0, 0, (result as { stdout: string }).stdout);
  });

  it("bundles for a browser with no Node built-in (fetch only)", async () => {
    const { build } = await import("esbuild");
    const out = await build({
      stdin: { contents: `export * from "@stablecoin-payments/client";`, resolveDir: app },
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
    });
    const text = out.outputFiles[0]!.text;
    assert.match(text, /PaymentServiceClient = class|class PaymentServiceClient/);
    assert.notMatch(text, /\bfrom\s*["']node:|require\(/);
  });
});
