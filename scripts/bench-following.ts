// `npm run bench`'s section 6 (BENCH_ONLY=following): what following the chain costs on a busy Base,
// measured as production runs it. `npm run chain` (scripts/chain.ts) runs in a process of its own with
// LOCAL_TRAFFIC_TPS strangers' USDC transfers a second among fresh addresses; the service (`npm
// start` with RPC_URL and RPC_WS_URL: the production follower, pushed heads and logs) in another, so
// its CPU and resident memory (read from /proc, Linux) are its own. For each of BENCH_FOLLOW_TPS
// (0,20,100) and each FINALITY of BENCH_FOLLOW_FINALITY (safe,1s): 1,000 open payment addresses
// created through the API, no payment of ours during BENCH_FOLLOW_SECONDS (60), then
// BENCH_FOLLOW_TRANSFERS (3) plain transfers to new payment addresses, each timed on the node's clock
// from the block that carries it to the block whose settlement pays the recipient. At 20 a second,
// the same again through three nodes (the chain and two plain proxies), and three nodes whose first
// lies (a head 5,000 blocks ahead, no logs): two transfers 30 s apart, each verified.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { createPublicClient, createWalletClient, erc20Abi, http, numberToHex, type Address, type Hex } from "viem";
import { baseSepolia } from "viem/chains";
import { LOCAL_ROLES, localAccount } from "../dev/localchain/harness.js";
import { LOCAL_RELAYER_KEY } from "../test/helpers/service.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";
import { postJson, ratio } from "./bench-common.js";

const TPS = (process.env.BENCH_FOLLOW_TPS ?? "0,20,100").split(",").map(Number);
const FINALITIES = (process.env.BENCH_FOLLOW_FINALITY ?? "safe,1s").split(",");
const WINDOW_SECONDS = Number(process.env.BENCH_FOLLOW_SECONDS ?? 60);
const TRANSFERS = Number(process.env.BENCH_FOLLOW_TRANSFERS ?? 3);
const OPEN = 1_000;
const LIAR_AHEAD = 5_000n;
const root = new URL("..", import.meta.url).pathname;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs `script` under Node with tsx in one process (its pid is the process measured), resolves once `ready` is printed. */
function run(script: string, env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    const look = (chunk: Buffer) => {
      out += chunk.toString();
      if (ready.test(out)) resolve(child);
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    child.once("exit", (code) => reject(new Error(`${script} exited (${code}): ${out.slice(-2000)}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** The process's CPU seconds (user + system) and resident memory in MB, from /proc. */
function usage(pid: number): { cpu: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))!;
  return { cpu: ticks / 100, rssMb: Number(rss[1]) / 1024 };
}

/** `rpc_requests_total`, `rpc_notifications_total` and `rpc_node_requests_total` from the ops port. */
async function counters(opsUrl: string) {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const sum = (name: string) => [...text.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, "gm"))].reduce((n, m) => n + Number(m[1]), 0);
  const perNode = [...text.matchAll(/^rpc_node_requests_total\{node="(\d+)"\} (\d+)$/gm)].map((m) => [Number(m[1]), Number(m[2])] as const);
  return { requests: sum("rpc_requests_total"), notifications: sum("rpc_notifications_total"), perNode: new Map(perNode) };
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

interface Measured {
  label: string;
  tps: number;
  finality: string;
  perMinute: number;
  notificationsPerMinute: number;
  perNode: number[];
  toRecipientMs: number[];
  cpu: number;
  rssMb: number;
  valid?: boolean[];
}

/** One service on `rpcUrls` (the first node's WebSocket), its idle window measured, then `transfers` timed. */
async function measure(chainUrl: string, rpcUrls: string[], tps: number, finality: string, label: string, transfers: number, pause = 2_000): Promise<Measured> {
  const [port, opsPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    PORT: String(port),
    OPS_PORT: String(opsPort),
    FINALITY: finality,
    DATA_DIR: "memory",
    RELAYER_PRIVATE_KEY: LOCAL_RELAYER_KEY,
    TOKEN_KEYS: `k1:${"b".repeat(40)}`,
    RPC_WS_URL: chainUrl.replace(/^http/, "ws"),
    RATE_LIMIT_PER_MINUTE: "1000000",
    LOG_LEVEL: "silent",
  };
  if (rpcUrls.length > 1) env.RPC_URLS = rpcUrls.join(",");
  else env.RPC_URL = rpcUrls[0]!;
  const service = await run("scripts/start.ts", env, /^Finality/m);
  const api = `http://127.0.0.1:${port}`;
  const ops = `http://127.0.0.1:${opsPort}`;
  try {
    const merchant = localAccount(LOCAL_ROLES.firstUser + 1).address;
    for (let i = 0; i < OPEN; i += 50) await Promise.all(Array.from({ length: 50 }, () => postJson(api, "/v1/payments", { recipient: merchant, amount: "1" })));
    await new Promise((r) => setTimeout(r, 12_000)); // the recipients looked up again, the subscriptions made
    const before = await counters(ops);
    const used0 = usage(service.pid!);
    await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
    const after = await counters(ops);
    const used1 = usage(service.pid!);
    const scale = 60 / WINDOW_SECONDS;
    const toRecipientMs: number[] = [];
    const valid: boolean[] = [];
    const client = createPublicClient({ chain: baseSepolia, transport: http(chainUrl) });
    const buyer = localAccount(LOCAL_ROLES.firstUser);
    const wallet = createWalletClient({ chain: baseSepolia, transport: http(chainUrl), account: buyer });
    const token = (await postJson(api, "/v1/payments", { recipient: merchant, amount: "1" })).body.pay as { token: Address };
    const timestampMs = async (n: bigint) => {
      const block = (await client.request({ method: "eth_getBlockByNumber", params: [numberToHex(n), false] })) as unknown as { timestampMs: Hex };
      return Number(BigInt(block.timestampMs));
    };
    for (let i = 0; i < transfers; i++) {
      const created = (await postJson(api, "/v1/payments", { recipient: merchant, amount: "1" })).body as {
        intent: string;
        pay: { deposit_address: Address; amount_units: string };
      };
      const paid = await client.readContract({ address: token.token, abi: erc20Abi, functionName: "balanceOf", args: [merchant] });
      const hash = await wallet.writeContract({
        address: token.token,
        abi: erc20Abi,
        functionName: "transfer",
        args: [created.pay.deposit_address, BigInt(created.pay.amount_units)],
      });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      // The first block at which the recipient holds more: the settlement's.
      let at = receipt.blockNumber;
      for (;;) {
        const head = await client.getBlockNumber({ cacheTime: 0 });
        for (; at <= head; at++)
          if ((await client.readContract({ address: token.token, abi: erc20Abi, functionName: "balanceOf", args: [merchant], blockNumber: at })) > paid) break;
        if (at <= head) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      toRecipientMs.push((await timestampMs(at)) - (await timestampMs(receipt.blockNumber)));
      if (label.includes("lies")) {
        const settled = (
          await client.getLogs({
            address: token.token,
            event: erc20Abi.find((e) => e.type === "event" && e.name === "Transfer")!,
            args: { to: merchant },
            fromBlock: at,
            toBlock: at,
          })
        )[0]!;
        await new Promise((r) => setTimeout(r, 1_500)); // final (FINALITY 1s)
        valid.push((await postJson(api, "/v1/payments/verify", { intent: created.intent, tx_hash: settled.transactionHash })).body.valid === true);
      }
      await new Promise((r) => setTimeout(r, pause));
    }
    return {
      label,
      tps,
      finality,
      perMinute: (after.requests - before.requests) * scale,
      notificationsPerMinute: (after.notifications - before.notifications) * scale,
      perNode: rpcUrls.map((_, i) => ((after.perNode.get(i) ?? 0) - (before.perNode.get(i) ?? 0)) * scale),
      toRecipientMs,
      cpu: (used1.cpu - used0.cpu) / WINDOW_SECONDS,
      rssMb: used1.rssMb,
      ...(valid.length ? { valid } : {}),
    };
  } finally {
    await stop(service);
  }
}

/** Runs the section; resolves with its table. */
export async function benchFollowing(): Promise<string> {
  const rows: Measured[] = [];
  for (const tps of TPS) {
    const chainPort = await freePort();
    console.log(`following: npm run chain with LOCAL_TRAFFIC_TPS=${tps}…`);
    let chainProcess: ChildProcess;
    try {
      chainProcess = await run(
        "scripts/chain.ts",
        { CHAIN_PORT: String(chainPort), LOCAL_TRAFFIC_TPS: String(tps) },
        tps > 0 ? /strangers' traffic/ : /^USDC/m,
      );
    } catch (error) {
      console.error(`  the chain did not start with ${tps} transfers a second: ${String(error).slice(0, 800)}`);
      continue;
    }
    const chainUrl = `http://127.0.0.1:${chainPort}`;
    try {
      for (const finality of FINALITIES) {
        console.log(`  ${tps} a second, FINALITY=${finality}, one node…`);
        rows.push(await measure(chainUrl, [chainUrl], tps, finality, "one node", TRANSFERS));
        console.log(`    ${JSON.stringify(rows.at(-1))}`);
      }
      if (tps === 20) {
        // Each on its own loopback address (the chain is 127.0.0.1's): URLs of one host count once in a majority.
        const proxies = [await new RpcProxy(chainUrl).start(0, "127.0.0.2"), await new RpcProxy(chainUrl).start(0, "127.0.0.3")];
        try {
          console.log(`  ${tps} a second, three nodes…`);
          rows.push(await measure(chainUrl, [chainUrl, ...proxies.map((p) => p.url)], tps, "1s", "three nodes", TRANSFERS));
          console.log(`    ${JSON.stringify(rows.at(-1))}`);
          proxies[0]!.rewrite = (request, result) => {
            if (request.method === "eth_blockNumber" && typeof result === "string") return numberToHex(BigInt(result) + LIAR_AHEAD);
            if (request.method === "eth_getBlockByNumber" && request.params?.[0] === "latest" && result)
              return { ...(result as object), number: numberToHex(BigInt((result as { number: Hex }).number) + LIAR_AHEAD) };
            if (request.method === "eth_getLogs") return [];
            return result;
          };
          console.log(`  ${tps} a second, three nodes, the first lying…`);
          rows.push(await measure(chainUrl, [proxies[0]!.url, chainUrl, proxies[1]!.url], tps, "1s", "three nodes, the first lies", 2, 30_000));
          console.log(`    ${JSON.stringify(rows.at(-1))}`);
        } finally {
          for (const p of proxies) await p.close();
        }
      }
    } finally {
      await stop(chainProcess);
    }
  }
  const baseOf = (r: Measured) => rows.find((b) => b.tps === 0 && b.finality === r.finality && b.label === "one node") ?? rows[0]!;
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    `| Strangers' transfers a second | Nodes | FINALITY | JSON-RPC requests a minute (per node) | Notifications a minute | Transfer → recipient p50 / p95 (${TRANSFERS} transfers, node's clock) | Service CPU (vs 0 a second) | Service RSS (vs 0 a second) |`,
    "|---:|---|---|---:|---:|---:|---:|---:|",
    ...rows.map((r) => {
      const base = baseOf(r);
      const nodes = r.perNode.length > 1 ? ` (${r.perNode.map((n) => n.toFixed(0)).join(", ")})` : "";
      const verified = r.valid ? `; verified valid: ${r.valid.join(", ")}` : "";
      return `| ${r.tps} | ${r.label} | ${r.finality} | ${r.perMinute.toFixed(0)}${nodes} | ${r.notificationsPerMinute.toFixed(0)} | ${ms(percentile(r.toRecipientMs, 50))} / ${ms(percentile(r.toRecipientMs, 95))}${verified} | ${(r.cpu * 100).toFixed(1)}% of a core (${ratio(r.cpu, base.cpu)}×) | ${r.rssMb.toFixed(0)} MB (${r.rssMb - base.rssMb >= 0 ? "+" : ""}${(r.rssMb - base.rssMb).toFixed(0)} MB) |`;
    }),
    "",
    `Each service: 1,000 open payment addresses, no payment of ours during the ${WINDOW_SECONDS} s counted (scaled to a minute); the chain (\`npm run chain\`, LOCAL_TRAFFIC_TPS) and the service (\`npm start\` with RPC_URL and RPC_WS_URL) each in a process of its own. Printed by \`npm run bench\` (BENCH_ONLY=following).`,
  ].join("\n");
}
