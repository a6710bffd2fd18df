import { assert } from "chai";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useLocalChain } from "../helpers/local-chain.js";
import { RpcProxy } from "../helpers/rpc-proxy.js";
import { until } from "../helpers/until.js";
import { endGroup, groupAlive, spawnStart } from "../helpers/start-process.js";
import { LOCAL_USDC_ROLE_INDEXES, localUsdcRoles } from "../../dev/localchain/harness.js";

/** How long a start in a test may take to print "Ready.": past it, the phase it stopped in is in its output. */
const READY_WITHIN_MS = 120_000;

/**
 * Runs `npm start` (scripts/start.ts) with `env` until it prints "Ready.", ends its process group, and
 * returns what it printed. A start that exits first, or prints no "Ready." in {@link READY_WITHIN_MS},
 * fails the test with its output: its phases name where it stopped. Nothing is tried again.
 */
async function startOutput(env: Record<string, string>): Promise<string> {
  const started = spawnStart(env);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "Ready." in ${READY_WITHIN_MS / 1000} s:\n${started.output()}`)), READY_WITHIN_MS);
      const check = () => {
        if (started.output().includes("Ready.")) {
          clearTimeout(timer);
          resolve();
        }
      };
      started.child.stdout!.on("data", check);
      void started.exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`exited ${code ?? signal} before "Ready.":\n${started.output()}`));
      });
    });
  } finally {
    await endGroup(started);
  }
  return started.output();
}

/** `npm start` against an RPC_URL that carries an API key in its path and query: the key is never printed. */
describe("npm start with RPC_URL", function () {
  this.timeout(120_000);
  const local = useLocalChain({ port: 0 });
  let proxy: RpcProxy;
  before(async () => {
    proxy = await new RpcProxy(local.chain.rpcUrl!).start();
  });
  after(() => proxy.close());

  it("prints the endpoint without its credentials, API key or query values", async () => {
    const pathKey = "AbCdEf0123456789AbCdEf0123456789";
    const queryKey = "q-secret-7f3a9c";
    const rpcUrl = `${proxy.url}/v2/${pathKey}?apikey=${queryKey}`;
    const out = await startOutput({ RPC_URL: rpcUrl, TOKEN_KEYS: `k1:${"b".repeat(40)}`, FINALITY: "2" });
    assert.match(out, /Chain RPC +http:\/\/127\.0\.0\.1:\d+\/v2\/\*\*\*\?apikey=\*\*\*/);
    assert.notInclude(out, pathKey);
    assert.notInclude(out, queryKey);
  });

  it("with RPC_URLS, prints every node masked, by its position, and the quorum", async () => {
    const keys = ["NodeZeroKey0123456789abcdefABCDEF", "node-one-secret-91c2", "NodeTwoKey0123456789abcdefABCDEF"];
    const urls = [`${proxy.url}/v2/${keys[0]}`, `${proxy.url}/?apikey=${keys[1]}`, `http://user:${keys[2]}@${new URL(proxy.url).host}/`];
    // Three URLs of one host count once, unless RPC_QUORUM_UNSAFE=1 (the start says which share a host).
    const env = { RPC_URLS: urls.join(","), TOKEN_KEYS: `k1:${"b".repeat(40)}`, FINALITY: "2", LOG_LEVEL: "info", RPC_QUORUM_UNSAFE: "1" };
    const out = await startOutput(env);
    assert.match(out, /RPC_URLS positions 0 and 1 share one host and count as two nodes in a majority \(RPC_QUORUM_UNSAFE\)/);
    assert.match(out, /node 0 +http:\/\/127\.0\.0\.1:\d+\/v2\/\*\*\*/);
    assert.match(out, /node 1 +http:\/\/127\.0\.0\.1:\d+\/\?apikey=\*\*\*/);
    assert.match(out, /node 2 +http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\//);
    assert.match(out, /Quorum +2 of 3 nodes/);
    for (const key of keys) assert.notInclude(out, key);
  });
});

describe("npm start on the embedded chain", function () {
  this.timeout(150_000);

  it("prints USDC's role holders (owner, master minter, pauser, blacklister) with their keys, so a tester can pause and blacklist", async () => {
    const out = await startOutput({ CHAIN_PORT: "0", BLOCK_INTERVAL_MS: "0" });
    const roles = localUsdcRoles();
    for (const role of ["owner", "masterMinter", "pauser", "blacklister"] as const) {
      const account = roles[role];
      const key = `0x${Buffer.from(account.getHdKey().privateKey!).toString("hex")}`;
      assert.match(out, new RegExp(`#${LOCAL_USDC_ROLE_INDEXES[role]} ${account.address} +key ${key}`), role);
    }
    assert.notInclude(out, roles.proxyAdmin.address, "the proxy admin cannot call the token: not printed");
    assert.match(out, /Chain blocks +a block per transaction \(BLOCK_INTERVAL_MS=0\)/, "which mode runs");
  });

  for (const [hang, bound, failure] of [
    ["chain", 2_000, /^start: chain \(starting the local chain[^)]*\) did not finish within 2 s$/m],
    ["service:busy", 2_000 + 5_000, /^start: service \(starting the service[^)]*\) blocked the process past its bound; killed$/m],
  ] as const)
    it(`a start made to hang in a phase (START_HANG_PHASE=${hang}) fails within that phase's bound, naming it, and leaves no process behind`, async () => {
      const phase = hang.split(":")[0]!;
      const started = spawnStart({ CHAIN_PORT: "0", BLOCK_INTERVAL_MS: "0", START_HANG_PHASE: hang, START_HANG_BOUND_MS: "2000" });
      let phaseBegan = 0;
      started.child.stderr!.on("data", () => {
        if (!phaseBegan && new RegExp(`^start: ${phase} \\(.*…$`, "m").test(started.output())) phaseBegan = Date.now();
      });
      const { code, signal } = await started.exited;
      const ended = Date.now();
      await until(() => !groupAlive(started.child), "every process of the start's group gone", { timeoutMs: 15_000, everyMs: 20 });
      const out = started.output();
      assert.isAbove(phaseBegan, 0, `the phase's start printed:\n${out}`);
      assert.match(out, failure, out);
      assert.notInclude(out, "Ready.");
      assert.isFalse(code === 0 && signal === null, `a failure, not a clean exit:\n${out}`);
      assert.isAtMost(ended - phaseBegan, bound + 5_000, `ended ${ended - phaseBegan} ms after the phase began (its bound ${bound} ms)`);
    });

  it("SIGTERM in the middle of a phase stops the start at once, closing what the phases before it opened", async () => {
    const started = spawnStart({ CHAIN_PORT: "0", BLOCK_INTERVAL_MS: "0", START_HANG_PHASE: "service" });
    try {
      await until(() => /^start: service \(.*…$/m.test(started.output()), "the service phase begun", { timeoutMs: READY_WITHIN_MS, everyMs: 20 });
      started.child.kill("SIGTERM"); // the tsx wrapper, which hands the signal to the start
      const { code } = await started.exited;
      assert.equal(code, 0, started.output());
      assert.include(started.output(), "SIGTERM: stopping…");
      await until(() => !groupAlive(started.child), "every process of the start's group gone", { timeoutMs: 15_000, everyMs: 20 });
    } finally {
      await endGroup(started);
    }
  });

  it("refuses a block interval that is not whole milliseconds, in one line, before starting anything", async () => {
    for (const [name, value] of [
      ["BLOCK_INTERVAL_MS", "0.5"],
      ["BLOCK_INTERVAL_MS", "-1"],
    ] as const) {
      const started = spawnStart({ CHAIN_PORT: "0", [name]: value });
      const { code } = await started.exited;
      await endGroup(started);
      const out = started.output();
      assert.equal(code, 1, out);
      assert.equal(out.trim(), `${name}=${value} is not a number of milliseconds (a whole number, 0 or more)`);
    }
  });
});

/** A second `npm start` whose API port is taken stops before it touches the store the first one uses. */
describe("npm start on a taken port", function () {
  this.timeout(120_000);
  it("refuses at once, naming the port, and leaves DATA_DIR as it was", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    const dataDir = mkdtempSync(join(tmpdir(), "start-taken-"));
    writeFileSync(join(dataDir, "kept"), "the running service's store");
    try {
      const started = spawnStart({ PORT: String(port), CHAIN_PORT: "0", DATA_DIR: dataDir });
      const { code } = await started.exited;
      await endGroup(started);
      const out = started.output();
      assert.equal(code, 1, out);
      assert.include(out, `port ${port} (PORT) on 127.0.0.1 is taken`);
      assert.notInclude(out, "starting the local chain");
      assert.equal(readFileSync(join(dataDir, "kept"), "utf8"), "the running service's store");
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
