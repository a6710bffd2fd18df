// `npm run bench -- --denim`: `npm start`'s chain (dev/localchain/base-node.ts as npm start runs it:
// no latency, a block every 200 ms, Base after Denim): how many blocks it mines in 5 s with no
// transaction (counted by the blocks' own `timestampMs` and by the wall clock), how many of them
// share a `timestamp`, and how soon it serves a transaction's receipt after its broadcast (p50, p95).
// BENCH_DENIM_TRANSFERS (24) transfers. Then the service on that node as `npm start` runs it
// (following by WebSocket; listening, so on its own timers): the JSON-RPC requests it makes in one
// idle minute (BENCH_DENIM_IDLE_SECONDS, 60) as /metrics' `rpc_requests_total` counts them, with no
// payment open, with BENCH_DENIM_OPEN (1,000) payments created through the API, and polling (no
// RPC_WS_URL); BENCH_DENIM_PAYMENTS (12) plain transfers to payment addresses, each timed from its
// broadcast until the merchant's balance moves (p50, p95), and the requests they cost. `--write`
// puts the tables into docs/benchmarks.md (between the bench-denim markers).
import { readFileSync, writeFileSync } from "node:fs";
import { createWalletClient, encodeFunctionData, erc20Abi, http, type Address } from "viem";
import { startBaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { createLogger } from "../src/logger.js";
import { createService, listen } from "../src/service.js";
import { configFor } from "../test/helpers/service.js";
import { LATENCY_HEADER, latencyRow, measureReceiptLatency, quantile } from "./lib/receipt-latency.js";

const COUNT = Number(process.env.BENCH_DENIM_TRANSFERS ?? 24);
const IDLE_MS = 5_000;
const IDLE_SECONDS = Number(process.env.BENCH_DENIM_IDLE_SECONDS ?? 60);
const OPEN = Number(process.env.BENCH_DENIM_OPEN ?? 1_000);
const PAYMENTS = Number(process.env.BENCH_DENIM_PAYMENTS ?? 12);
/** The issue's budget: JSON-RPC requests in an idle minute. */
const IDLE_BUDGET = 60;

console.log("starting the local chain…");
const chain = await startLocalChain({ fork: null, sameSecondBlocks: true });
const node = await startBaseNode(chain, { latencyMs: 0 });

console.log(`${IDLE_MS / 1000} s with no transaction…`);
const first = await chain.publicClient.getBlockNumber();
const wallStart = Date.now();
await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
const wallMs = Date.now() - wallStart;
const last = await chain.publicClient.getBlockNumber();
const blocks: { timestamp: bigint; timestampMs: number }[] = [];
for (let n = first + 1n; n <= last; n++) {
  const block = (await chain.provider.request({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })) as {
    timestamp: `0x${string}`;
    timestampMs: `0x${string}`;
  };
  blocks.push({ timestamp: BigInt(block.timestamp), timestampMs: Number(BigInt(block.timestampMs)) });
}
const windowStart = blocks[0]!.timestampMs;
const inWindow = blocks.filter((b) => b.timestampMs < windowStart + IDLE_MS).length;
const perSecond = new Map<bigint, number>();
for (const b of blocks) perSecond.set(b.timestamp, (perSecond.get(b.timestamp) ?? 0) + 1);
const sharing = Math.max(...perSecond.values());

console.log(`${COUNT} transfers…`);
const latency = await measureReceiptLatency(chain, node.url, {
  sender: chain.accounts[LOCAL_ROLES.firstUser + 5]!,
  to: chain.accounts[LOCAL_ROLES.firstUser + 1]!.address,
  count: COUNT,
  blockMs: DENIM_BLOCK_MS,
});

type Counts = Record<string, number>;
const sum = (c: Counts) => Object.values(c).reduce((a, b) => a + b, 0);
const minus = (after: Counts, before: Counts): Counts =>
  Object.fromEntries(
    Object.entries(after)
      .map(([m, n]) => [m, n - (before[m] ?? 0)])
      .filter(([, n]) => (n as number) > 0),
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
const funder = chain.accounts[LOCAL_ROLES.firstUser]!;
const quiet = { logger: createLogger("silent") };

/** The service as `npm start` runs it on this node, listening on ports of its own (0: any free one). */
async function startService(ws: boolean) {
  const config = configFor(node.url, {
    ...(ws ? { RPC_WS_URL: node.wsUrl } : {}),
    PORT: "0",
    OPS_PORT: "0",
    FINALITY: "1s", // npm start's default on the local chain
    RATE_LIMIT_PER_MINUTE: "1000000",
    RPC_TIMEOUT_MS: "10000",
  });
  const service = await createService(config, quiet);
  const running = await listen(service);
  const counts = async (): Promise<Counts> => {
    const text = await (await fetch(`${running.opsUrl}/metrics`)).text();
    const out: Counts = {};
    for (const [, method, n] of text.matchAll(/^rpc_requests_total\{method="([^"]+)"\} (\d+)$/gm)) out[method!] = Number(n);
    return out;
  };
  const create = async () => {
    const res = await fetch(`${running.apiUrl}/v1/payments`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ recipient: merchant, amount: "1" }),
    });
    if (res.status !== 200) throw new Error(`POST /v1/payments answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { pay: { deposit_address: Address; amount_units: string } };
  };
  return { service, running, counts, create };
}
type Running = Awaited<ReturnType<typeof startService>>;

/** The requests of one idle window, scaled to a minute, after the first rounds' catch-up settled. */
async function idleMinute(s: Running): Promise<Counts> {
  await sleep(5_000);
  const before = await s.counts();
  await sleep(IDLE_SECONDS * 1000);
  const used = minus(await s.counts(), before);
  return Object.fromEntries(Object.entries(used).map(([m, n]) => [m, Math.round((n * 60) / IDLE_SECONDS)]));
}

const balance = () => chain.publicClient.readContract({ address: chain.deployment.token.address, abi: erc20Abi, functionName: "balanceOf", args: [merchant] });
const wallet = createWalletClient({ account: funder, chain: chain.chain, transport: http(node.url, { retryCount: 0 }) });

console.log("the service, following by WebSocket: an idle minute…");
const ws = await startService(true);
const idleWs = await idleMinute(ws);

console.log(`${PAYMENTS} plain transfers to payment addresses…`);
const arrivals: number[] = [];
const beforePayments = await ws.counts();
const paymentsStart = Date.now();
for (let i = 0; i < PAYMENTS; i++) {
  const { pay } = await ws.create();
  // A different point of the block each time (golden-ratio offsets, the same every run).
  await sleep(Math.round(((i * 0.618034) % 1) * DENIM_BLOCK_MS));
  const was = await balance();
  const sentAt = Date.now();
  await wallet.sendTransaction({
    to: chain.deployment.token.address,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [pay.deposit_address, BigInt(pay.amount_units)] }),
    gas: 100_000n,
  });
  while ((await balance()) === was) {
    if (Date.now() - sentAt > 30_000) throw new Error("the payment did not reach the merchant within 30 s");
    await sleep(10);
  }
  arrivals.push(Date.now() - sentAt);
}
const paymentsMs = Date.now() - paymentsStart;
// The payments' own requests: the window's, less what the same stretch costs at idle.
const paymentsUsed = sum(minus(await ws.counts(), beforePayments));
const perPayment = (paymentsUsed - (sum(idleWs) * paymentsMs) / 60_000) / PAYMENTS;
arrivals.sort((a, b) => a - b);

console.log(`${OPEN} open payment addresses: an idle minute…`);
for (let i = 0; i < OPEN; i += 50) await Promise.all(Array.from({ length: Math.min(50, OPEN - i) }, () => ws.create()));
const idleOpen = await idleMinute(ws);
await ws.running.close();
await ws.service.close();

console.log("the service, polling (no RPC_WS_URL): an idle minute…");
const polling = await startService(false);
const idlePoll = await idleMinute(polling);
await polling.running.close();
await polling.service.close();

await node.close();
await chain.close();

const idleRow = (label: string, used: Counts) =>
  `| ${label} | ${sum(used)} (${(sum(used) / IDLE_BUDGET).toFixed(2)}×) | ${Object.entries(used)
    .sort()
    .map(([m, n]) => `${m} ${n}`)
    .join(", ")} |`;
const ms = (n: number) => `${n} ms (${(n / DENIM_BLOCK_MS).toFixed(2)}×)`;
const table = [
  `Idle: ${inWindow} blocks whose \`timestampMs\` falls in ${IDLE_MS / 1000} s (${blocks.length} mined in ${(wallMs / 1000).toFixed(1)} s of wall time); at most ${sharing} share one \`timestamp\`.`,
  "",
  LATENCY_HEADER,
  latencyRow(`npm start's chain: a block every ${DENIM_BLOCK_MS} ms (Base after Denim)`, latency, DENIM_BLOCK_MS),
  "",
  `| The service on npm start's chain, ${IDLE_SECONDS} s idle (scaled to a minute) | JSON-RPC requests a minute (÷ the budget of ${IDLE_BUDGET}) | By method |`,
  "|---|---:|---|",
  idleRow("following by WebSocket (newHeads, logs), nothing open", idleWs),
  idleRow(`following by WebSocket, ${OPEN.toLocaleString("en-US")} open payment addresses`, idleOpen),
  idleRow("polling every FOLLOW_INTERVAL_MS (no RPC_WS_URL), nothing open", idlePoll),
  "",
  "| Plain USDC transfer to a payment address, broadcast → the merchant's balance moves | Payments | p50 (÷ block time) | p95 (÷ block time) | JSON-RPC requests per payment (beyond idle) |",
  "|---|---:|---:|---:|---:|",
  `| following by WebSocket (a pushed log starts a round) | ${PAYMENTS} | ${ms(quantile(arrivals, 0.5))} | ${ms(quantile(arrivals, 0.95))} | ${perPayment.toFixed(1)} |`,
].join("\n");
console.log("");
console.log(table);
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(
    doc,
    readFileSync(doc, "utf8").replace(
      /<!-- bench-denim:begin -->[\s\S]*<!-- bench-denim:end -->/,
      `<!-- bench-denim:begin -->\n${table}\n<!-- bench-denim:end -->`,
    ),
  );
  console.log("docs/benchmarks.md updated");
}
