// `npm run test:fork`: proves fork mode offline. Starts the local chain as the upstream a fork reads
// (`npm run chain` on a free port, with USDC and the CREATE2 deployer but without our contracts, as
// Base Sepolia is before our deployment), then runs the fork suite with FORK_URL pointing at it: each
// suite's chain forks the upstream, keeps its USDC, takes over USDC's roles, funds the test accounts
// by writing FiatToken's balance slots, and deploys our contracts through CREATE2.
// Against the real Base Sepolia: FORK_URL=<Base Sepolia RPC> [FORK_BLOCK=<n>] npm test.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "node_modules/.bin");

/**
 * The fork suite: every suite of `npm test` that runs on a chain, but the browser checkout (Chromium;
 * its flows run in the API suites too) and fork mode's own test (it builds its own upstream).
 */
const FORK_SUITE = [
  "test/contracts/Splitter.test.ts",
  "test/contracts/RecurringCharges.test.ts",
  "test/contracts/Gas.test.ts",
  "test/deploy/deploy.test.ts",
  "test/api/payments.test.ts",
  "test/api/recurring.test.ts",
  "test/api/refunds.test.ts",
  "test/api/token-refusals.test.ts",
  "test/api/typed-data.test.ts",
  "test/api/safe.test.ts",
  "test/api/http.test.ts",
  "test/api/rpc-faults.test.ts",
  "test/api/webhooks.test.ts",
  "test/api/client.test.ts",
  "test/contracts/X402Settlement.test.ts",
  "test/api/x402.test.ts",
  "test/api/x402-facilitator.test.ts",
];

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

function startUpstream(port: number): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CHAIN_PORT: String(port), CHAIN_WITHOUT_CONTRACTS: "1" };
  delete env.FORK_URL; // the upstream is built, not forked
  delete env.FORK_BLOCK;
  const child = spawn(join(BIN, "tsx"), ["scripts/chain.ts"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"], detached: true });
  return new Promise((resolveStart, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /local chain \d+ at (http:\/\/\S+)/.exec(out);
      if (match) resolveStart({ child, url: match[1]! });
    });
    child.once("exit", (code) => reject(new Error(`the upstream chain exited (${code}) before it served: ${out}`)));
  });
}

function stop(child: ChildProcess): void {
  if (child.exitCode === null && child.pid) {
    try {
      process.kill(-child.pid, "SIGTERM"); // its process group: tsx and the node process it runs
    } catch {
      // already gone
    }
  }
}

/**
 * Brings the upstream to the block deployments/84532.json records as the first that can hold our
 * contracts: a fork taken younger would deploy them below it, which the harness refuses (on Base
 * Sepolia the head is far above it). The shortfall is mined at once (`hardhat_mine`).
 */
async function reachDeployBlock(url: string): Promise<void> {
  const deployBlock = BigInt(JSON.parse(readFileSync(join(ROOT, "deployments/84532.json"), "utf8")).deployBlock ?? 0);
  const call = async (method: string, params: unknown[] = []) => {
    const answer = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await answer.json()) as { result?: string; error?: { message: string } };
    if (body.error) throw new Error(`the upstream chain refused ${method}: ${body.error.message}`);
    return body.result;
  };
  const head = BigInt((await call("eth_blockNumber")) as string);
  if (head < deployBlock) await call("hardhat_mine", [`0x${(deployBlock - head).toString(16)}`]);
}

const files = process.argv.slice(2).length ? process.argv.slice(2) : FORK_SUITE;
const upstream = await startUpstream(await freePort());
let code = 1;
try {
  await reachDeployBlock(upstream.url);
  console.log(`upstream chain (USDC, CREATE2 deployer, none of our contracts) at ${upstream.url}`);
  // EDR caches forked state by chain id and block; this upstream is new every run.
  rmSync(join(ROOT, "cache/edr-fork-cache"), { recursive: true, force: true });
  const tests = spawn(join(BIN, "hardhat"), ["test", ...files], { cwd: ROOT, env: { ...process.env, FORK_URL: upstream.url }, stdio: "inherit" });
  code = await new Promise<number>((done) => tests.once("exit", (c) => done(c ?? 1)));
} finally {
  stop(upstream.child);
}
process.exit(code);
