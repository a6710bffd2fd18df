import { assert } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const CLI = join(root, "client/src/renew-cli.ts");
const TOKEN = "lm.k1.eyJsaW5rIjoiMHgwMSJ9.c2lnbmF0dXJl";

/** A stand-in for POST /v1/links/subscriptions: answers from the test's script and records each body. */
async function listingServer(answer: (call: number) => { status: number; body: unknown }) {
  const bodies: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk: Buffer) => (text += chunk.toString()));
    req.on("end", () => {
      bodies.push(JSON.parse(text || "{}"));
      const { status, body } = answer(bodies.length);
      res.writeHead(status, { "content-type": "application/json", ...(status === 503 ? { "retry-after": "1" } : {}) });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Runs the CLI; resolves when it exits, or when `until` matches its stderr (then it is killed). */
function runCli(args: string[], env: Record<string, string> = {}, until?: RegExp): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, CLI, ...args], { env: { PATH: process.env.PATH!, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (until?.test(stderr)) child.kill();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("stablecoin-renewals (client/src/renew-cli.ts)", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "renew-cli-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const emptyPage = { status: 200, body: { link_id: `0x${"01".repeat(16)}`, subscriptions: [], next: null } };

  it("refuses a manage token in argv (--link, or bare), naming where it belongs and never echoing it", async () => {
    for (const args of [["--link", TOKEN], [TOKEN], [`--link=${TOKEN}`]]) {
      const run = await runCli(["--base-url", "http://127.0.0.1:9", "--store", join(dir, "r.json"), ...args]);
      assert.equal(run.code, 1, args.join(" "));
      assert.match(run.stderr, /STABLECOIN_MANAGE_TOKEN or pass --manage-token-file <path>/);
      assert.notInclude(run.stderr, TOKEN, "the token is not echoed");
    }
  });

  it("reads the manage token from STABLECOIN_MANAGE_TOKEN or from --manage-token-file", async () => {
    const server = await listingServer(() => emptyPage);
    try {
      const fromEnv = await runCli(["--base-url", server.url, "--store", join(dir, "env.json")], { STABLECOIN_MANAGE_TOKEN: TOKEN });
      assert.equal(fromEnv.code, 0, fromEnv.stderr);
      assert.match(fromEnv.stderr, /^wave 1: 0\/0 subscriptions/);
      const file = join(dir, "manage-token");
      writeFileSync(file, `${TOKEN}\n`);
      const fromFile = await runCli(["--base-url", server.url, "--store", join(dir, "file.json"), "--manage-token-file", file]);
      assert.equal(fromFile.code, 0, fromFile.stderr);
      assert.deepEqual(
        server.bodies.map((b) => b.manage_token),
        [TOKEN, TOKEN],
      );
      const none = await runCli(["--base-url", server.url, "--store", join(dir, "none.json")]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /no subscriptions: pass --subscriptions <file.json>, set STABLECOIN_MANAGE_TOKEN, or pass --manage-token-file <path>/);
    } finally {
      await server.close();
    }
  });

  it("--every: a failed listing is logged and the next round goes on; without --every it is the exit code", async () => {
    const server = await listingServer((call) => (call === 1 ? { status: 503, body: { error: "RPC_BUSY", action: "RETRY", retry_after: 1 } } : emptyPage));
    try {
      const store = join(dir, "every.json");
      const run = await runCli(
        ["--base-url", server.url, "--store", store, "--every", "0.05"],
        { STABLECOIN_MANAGE_TOKEN: TOKEN },
        /wave 2: 0\/0 subscriptions/,
      );
      assert.match(
        run.stderr,
        /^wave 1: failed: listing the subscriptions failed: 503 RPC_BUSY \(RETRY\); next round in 0\.05 s\nwave 2: 0\/0 subscriptions in/,
      );
      assert.isAtLeast(server.bodies.length, 2);

      const once = await runCli(["--base-url", server.url, "--store", store], { STABLECOIN_MANAGE_TOKEN: TOKEN });
      assert.match(once.stderr, /^wave 1: 0\/0 subscriptions/, "the server answers now");
      const down = await runCli(["--base-url", "http://127.0.0.1:9", "--store", store], { STABLECOIN_MANAGE_TOKEN: TOKEN });
      assert.equal(down.code, 1);
      assert.match(down.stderr, /^stablecoin-renewals: listing the subscriptions failed: POST http:\/\/127\.0\.0\.1:9\/v1\/links\/subscriptions: .*attempts/);
    } finally {
      await server.close();
    }
  });
});
