// `npm start`: the whole service on the embedded default: the local chain that plays Base Sepolia
// (contracts deployed, accounts funded), the API, and the operational port. With RPC_URL set, only
// the API starts, against that chain. Each phase before "Ready." is printed to stderr and bounded
// (scripts/lib/start-phases.ts); a stop at any phase closes what the phases before it opened.
// Static imports are evaluated before the first line: only these light ones; the service's modules
// load in a phase of their own, after the signal handlers are in place.
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { startPhases } from "./lib/start-phases.js";
import type { Config } from "../src/config.js";
import { DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import type { LocalChain } from "../dev/localchain/harness.js";
import type { BaseNode } from "../dev/localchain/base-node.js";

const phases = startPhases();

// The embedded chain's block clock, checked before anything starts.
const blockMs = await milliseconds("BLOCK_INTERVAL_MS", DENIM_BLOCK_MS);
/** Strangers' USDC transfers a second on the embedded chain (LOCAL_TRAFFIC_TPS, 0 by default). */
const trafficTps = await milliseconds("LOCAL_TRAFFIC_TPS", 0, "transfers a second");

const [{ ConfigError, loadConfig }, { createService, listen }, { formatAmount }, { maskSecrets, redactUrl }, { buildCheckout }] = await phases.run(
  "modules",
  "loading the service's modules",
  120_000,
  () =>
    Promise.all([
      import("../src/config.js"),
      import("../src/service.js"),
      import("../src/money.js"),
      import("../src/logger.js"),
      import("../dev/checkout/build.js"),
    ]),
);

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) await phases.fail(error.message);
  throw error;
}

// A taken port ends the start before anything is touched (the store under .data belongs to whoever
// holds the ports: a second `npm start` in the same checkout must not empty it under the first).
for (const [name, host, port] of [
  ["PORT", config.host, config.port],
  ["OPS_PORT", "127.0.0.1", config.opsPort],
] as const) {
  if (!(await portIsFree(host, port))) await phases.fail(`port ${port} (${name}) on ${host} is taken: stop the other service or set ${name}`);
}

// The hosted checkout is bundled before the service starts (esbuild, about a second); the service only serves it.
await phases.run("checkout", "building the checkout", 120_000, () =>
  buildCheckout().catch((error: Error) => phases.fail(`the checkout did not build: ${error.message.split("\n")[0]}`)),
);

// Set inside the chain phase: typed by assertion so the reads after it are not narrowed to null.
let chain = null as LocalChain | null;
/** The node that plays Base after Denim in front of the embedded chain (a block every 200 ms), unless BLOCK_INTERVAL_MS=0. */
let node = null as BaseNode | null;
/** What the embedded chain does, printed with the endpoints. */
let chainMode = "";
// The embedded chain needs Hardhat (a development dependency): loaded only when there is no RPC_URL.
// A fresh clone compiles every contract with solc's JavaScript build: minutes on a loaded machine.
if (!config.rpcUrl) await phases.run("compile", "compiling the contracts", 900_000, compileContracts);
const harness = config.rpcUrl ? null : await import("../dev/localchain/harness.js");
if (harness) {
  const { startLocalChain, LOCAL_ROLES } = harness;
  const { startBaseNode } = await import("../dev/localchain/base-node.js");
  const chainPort = Number(process.env.CHAIN_PORT ?? 8545);
  phases.opened(closeChain);
  await phases.run("chain", "starting the local chain: plays Base Sepolia, chain id 84532", 180_000, async () => {
    try {
      if (blockMs === 0) {
        // A block per transaction: EDR's automining, served as it is.
        chain = await startLocalChain({ port: chainPort, host: "127.0.0.1" });
        chainMode = "a block per transaction (BLOCK_INTERVAL_MS=0)";
      } else {
        // Base after Denim: a block every 200 ms, several in one second, latency 0 (a local node).
        chain = await startLocalChain({ sameSecondBlocks: true });
        node = await startBaseNode(chain, { latencyMs: 0, host: "127.0.0.1", port: chainPort, blockMs });
        chainMode = `a block every ${blockMs} ms, with or without transactions (Base after Denim; WebSocket ${node.wsUrl})`;
        if (trafficTps > 0) {
          const { startTraffic } = await import("../dev/localchain/traffic.js");
          await startTraffic(chain, trafficTps);
          chainMode += `; strangers send ${trafficTps} USDC transfers a second (LOCAL_TRAFFIC_TPS)`;
        }
      }
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      await phases.fail(
        e.code === "EADDRINUSE" ? `port ${chainPort} is taken: stop the other chain or set CHAIN_PORT` : `the local chain did not start: ${e.message}`,
      );
    }
  });
  const local = chain!;
  // The embedded chain starts from genesis every time; the store's records refer to that chain, so
  // they start afresh with it (only now that this process owns the chain's port).
  if (config.dataDir) rmSync(config.dataDir, { recursive: true, force: true });
  const relayerKey = `0x${Buffer.from(local.accounts[LOCAL_ROLES.relayer]!.getHdKey().privateKey!).toString("hex")}` as const;
  // The service follows the node's WebSocket (newHeads, logs) on the same port, as RPC_WS_URL would name it.
  const served = node;
  const follow = served ? { ...config.follow, wsUrl: config.follow.wsUrl ?? served.wsUrl } : config.follow;
  config = { ...config, rpcUrl: served?.url ?? local.rpcUrl, follow, relayer: { ...config.relayer, privateKey: config.relayer.privateKey ?? relayerKey } };
}

// The store's migrations, the nodes' chain ids and the contracts' code hashes are read here.
const service = await phases.run("service", "starting the service: store, nodes, contracts", 180_000, () =>
  createService(config).catch((error: Error) =>
    // A chain error's message may quote the RPC URL: masked like every logged URL.
    phases.fail(`the service did not start: ${maskSecrets(error.message.split("\n")[0] ?? "")}`),
  ),
);
phases.opened(() => service.close());
const running = await phases.run("listen", "listening", 30_000, () =>
  listen(service).catch((e: NodeJS.ErrnoException) =>
    phases.fail(e.code === "EADDRINUSE" ? `a port is taken (${e.message}): stop the other process or set PORT / OPS_PORT` : `cannot listen: ${e.message}`),
  ),
);
phases.opened(() => running.close());
const { deployment } = service;

console.log("");
console.log(`API            ${running.apiUrl}   (GET /health, POST /v1/…)`);
console.log(`Checkout       ${config.checkoutUrl}`);
console.log(`x402           ${running.apiUrl}/x402   (the facilitator: GET /supported, POST /verify, /settle)`);
console.log(`Ops            ${running.opsUrl}/metrics, /ready (127.0.0.1 only)`);
// The RPC URL may carry credentials or an API key (user:password@, ?key=, /v2/<key>): never printed.
console.log(`Chain RPC      ${redactUrl(config.rpcUrl!)}   chain id ${deployment.chainId} (${deployment.environment})`);
// Several nodes (RPC_URLS): each printed masked, by its position (the name logs and /metrics give it).
if (config.rpcUrls.length > 1) {
  for (const [i, url] of config.rpcUrls.entries()) console.log(`  node ${i}       ${redactUrl(url)}`);
  const belowMajority = config.rpcQuorum < Math.floor(config.rpcUrls.length / 2) + 1;
  console.log(
    `Quorum         ${config.rpcQuorum} of ${config.rpcUrls.length} nodes agree before a verdict (RPC_QUORUM)${belowMajority ? ": below a majority, RPC_QUORUM_UNSAFE" : ""}`,
  );
}
if (chainMode) console.log(`Chain blocks   ${chainMode}`);
console.log(`Splitter       ${deployment.contracts.Splitter.address}`);
console.log(`Recurring      ${deployment.contracts.RecurringCharges.address}`);
console.log(`X402Receivers  ${deployment.contracts.X402Receivers.address}   (merchants' x402 receivers: POST /v1/x402/receivers)`);
console.log(`USDC           ${deployment.token.address}`);
if (chain?.authCapture) {
  const { escrow, standIn } = chain.authCapture;
  console.log(
    `Holds escrow   ${escrow}   (${standIn ? "the project's stand-in for Commerce Payments' AuthCaptureEscrow" : "Commerce Payments' AuthCaptureEscrow"})`,
  );
}
console.log(`Finality       ${config.finality.kind === "safe" ? "the node's safe block" : `${config.finality.confirmations} confirmations`}`);
console.log(`Store          ${config.dataDir ? `PGlite in ${config.dataDir}` : "PGlite in memory"}`);
if (chain && harness) {
  const { LOCAL_ROLES, LOCAL_USDC_UNITS } = harness;
  console.log("");
  console.log("Funded test accounts (Hardhat's test mnemonic; each holds 10,000 ETH and 1,000,000.000000 USDC):");
  for (let i = LOCAL_ROLES.firstUser; i < LOCAL_ROLES.firstUser + 4; i++) {
    const account = chain.accounts[i]!;
    console.log(`  #${i} ${account.address}  key ${Buffer.from(account.getHdKey().privateKey!).toString("hex").replace(/^/, "0x")}`);
  }
  console.log(
    `  (all 20 accounts #0–#19 hold ETH and ${formatAmount(LOCAL_USDC_UNITS)} USDC; #${LOCAL_ROLES.deployer} deployed the contracts, #${LOCAL_ROLES.relayer} is the relayer)`,
  );
  // USDC's role holders (same mnemonic, indexes past the funded accounts; each holds ETH for gas), so a
  // tester can blacklist an account or pause the token and watch the service refuse (ACCOUNT_BLOCKED, TOKEN_PAUSED).
  const { LOCAL_USDC_ROLE_INDEXES } = harness;
  const roles = [
    ["owner", "owner", "updatePauser, updateBlacklister, updateMasterMinter"],
    ["master minter", "masterMinter", "configureMinter"],
    ["pauser", "pauser", "pause, unpause"],
    ["blacklister", "blacklister", "blacklist, unBlacklist"],
  ] as const;
  console.log("");
  console.log("USDC role holders (same mnemonic; each holds ETH for gas):");
  for (const [label, role, calls] of roles) {
    const account = chain.usdcRoles[role];
    const key = `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}`;
    console.log(`  ${label.padEnd(13)} #${LOCAL_USDC_ROLE_INDEXES[role]} ${account.address}  key ${key}  (${calls})`);
  }
}
console.log("");
console.log("Ready. Ctrl-C stops everything.");

/** Stops the node in front of the embedded chain, then the chain. */
async function closeChain() {
  await node?.close();
  await chain?.close();
}

/** A duration in ms from the environment: a whole number, 0 or more; one clear line and exit 1 otherwise. */
async function milliseconds(name: string, fallback: number, unit = "milliseconds"): Promise<number> {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^[0-9]+$/.test(raw)) await phases.fail(`${name}=${raw} is not a number of ${unit} (a whole number, 0 or more)`);
  return Number(raw);
}

/** Whether `host:port` can be listened on now (port 0 always can). */
function portIsFree(host: string, port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * Compiles what is missing or stale (Hardhat's build is incremental: about a second when nothing
 * changed), so `npm ci && npm start` works on a fresh clone with no other step.
 */
async function compileContracts() {
  const { default: hre } = await import("hardhat");
  try {
    await hre.tasks.getTask("build").run({ quiet: true });
  } catch (error) {
    await phases.fail(`the contracts did not compile: ${(error as Error).message.split("\n")[0]}`);
  }
}
