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
//   - each wave's floor, what the chain allows: the larger of the blocks its gas needs at the block's
//     gas limit and the blocks its transactions need at 16 per sender, times the block time; and
//     the wave's wall time (to the block that carries its last transaction) over that floor; with
//     the wave's CPU by thread (API, store, chain) and, with BENCH_BASE_PROFILE=<dir>, the API
//     thread's CPU profile; BASE_NODE_TRACE=1 times the chain's calls per method;
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
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeErrorResult, decodeFunctionData, encodeFunctionData, erc20Abi, formatGwei, parseEventLogs, parseGwei, type Hex } from "viem";
import { estimateL1Fee } from "viem/op-stack";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { NODE_ACCOUNT_SLOTS, REMOTE_NODE_LATENCY_MS, startBaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_GAS_LIMIT, DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { LATENCY_HEADER, latencyRow, measureReceiptLatency } from "./lib/receipt-latency.js";
import { L1_FEE_LEVELS } from "../dev/localchain/l1-fees.js";
import { createService } from "../src/service.js";
import { createLogger } from "../src/logger.js";
import { formatAmount } from "../src/money.js";
import { weiToUnits } from "../src/recurring/gas-quote.js";
import { configFor } from "../test/helpers/service.js";
import { walletTypedData, type ResolvedTerms } from "../test/helpers/recurring.js";
import type { Terms } from "../src/recurring/terms.js";
import { approve } from "../test/helpers/tx.js";
import { buildCheckout } from "../dev/checkout/build.js";
import { startTestPostgres } from "../test/helpers/postgres.js";

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
const baseFeeArg = process.argv.indexOf("--base-fee");
const MAIN_BASE_FEE = baseFeeArg === -1 ? null : parseGwei(process.argv[baseFeeArg + 1] ?? "");

const quiet = { logger: createLogger("silent") };
// The store: the service's default (embedded), the PostgreSQL server `DATABASE_URL` names, or with
// BENCH_BASE_POSTGRES=1 a throwaway cluster of the PostgreSQL npm installed (the tests' own: fsync off).
const throwawayPostgres = process.env.BENCH_BASE_POSTGRES ? await startTestPostgres() : null;
if (throwawayPostgres) process.on("exit", () => throwawayPostgres.stop());
const DATABASE_URL = throwawayPostgres?.url ?? process.env.DATABASE_URL;
const storeName = DATABASE_URL ? "store on a PostgreSQL server" : "embedded store";
const unlimited = {
  ...(process.env.CHARGE_CONCURRENCY ? { CHARGE_CONCURRENCY: process.env.CHARGE_CONCURRENCY } : {}),
  ...(DATABASE_URL ? { DATABASE_URL } : {}),
  RPC_TIMEOUT_MS: "30000",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  WEBHOOKS_ENABLED: "false",
  // A signed maximum a lone renewal's price fits under at 2 gwei (about 0.70), so no wave is refused GAS_TOO_HIGH.
  MAX_GAS_REIMBURSEMENT: "1",
};
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const ratio = (a: number, b: number) => (a / b).toFixed(2);
const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
const countOf = (counts: Map<string, number>) => [...counts].map(([s, n]) => `${s} ${n}`).join(", ") || "none";
/**
 * A POST and its JSON answer. A connection the server reset (or any failure to get an answer) comes
 * back as status 0 with Retry-After 1: the renewal job counts it and asks again, as a merchant's would.
 */
const postJson = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(
    async (r) => ({
      status: r.status,
      retryAfter: r.headers.get("retry-after"),
      body: (await r.json()) as Record<string, unknown>,
    }),
    (error: unknown) => ({
      status: 0,
      retryAfter: "1",
      body: { error: `no answer (${String((error as { cause?: { code?: string } }).cause?.code ?? error)})` } as Record<string, unknown>,
    }),
  );
/**
 * CPU time (ms) this process's threads have used, summed by thread name (Linux: /proc/self/task): the
 * API's thread, the store's worker, the chain's threads, V8's helpers. Empty where /proc is missing.
 */
function threadCpu(): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    return byName;
  }
  const tickMs = 10; // USER_HZ is 100 on Linux
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[0-9]+$/, "#");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * tickMs;
      byName.set(task === String(process.pid) ? "API thread" : name, (byName.get(task === String(process.pid) ? "API thread" : name) ?? 0) + ms);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byName;
}

function serve(app: import("express").Express): Promise<{ url: string; server: Server }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }));
  });
}

console.log("starting the local chain…");
const chain = await startLocalChain({ port: 0, fork: null, sameSecondBlocks: true });
const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
const payer = chain.accounts[LOCAL_ROLES.firstUser + 6]!;
const relayer = chain.accounts[LOCAL_ROLES.relayer]!.address;

// Setup on the automining chain, not measured: subscriptions through the API, one approval, every
// first charge sent by the relayer's key straight to chargeBatch, 100 a transaction (through the
// service each first charge is estimated alone: an hour for 100,000 on this machine).
console.log(`setting up ${RENEWALS} subscriptions and their first charges (automining, not measured)…`);
const setup = await createService(configFor(chain.rpcUrl!, unlimited), quiet);
const setupApi = await serve(setup.app);
// 32 set up at once (each is three requests and a signature), in the order they were asked for.
const subscriptions: Array<{ token: string; id: Hex }> = new Array(RENEWALS);
const firstCharges: Array<{ terms: Terms; signature: Hex }> = new Array(RENEWALS);
let nextSetup = 0;
await Promise.all(
  Array.from({ length: Math.min(32, RENEWALS) }, async () => {
    while (nextSetup < RENEWALS) {
      const i = nextSetup++;
      const created = await postJson(setupApi.url, "/v1/subscriptions", { recipient: merchant.address, amount: "1", period: PERIOD });
      const resolved = await postJson(setupApi.url, "/v1/subscriptions/resolve", { setup_token: created.body.setup_token });
      const typedData = walletTypedData(resolved.body as unknown as ResolvedTerms, payer.address);
      const signature = await payer.signTypedData(typedData as never);
      firstCharges[i] = { terms: typedData.message, signature };
      const finalized = await postJson(setupApi.url, "/v1/subscriptions/finalize", { setup_token: created.body.setup_token, payer: payer.address, signature });
      if (finalized.status !== 200) throw new Error(JSON.stringify(finalized.body));
      subscriptions[i] = { token: finalized.body.subscription as string, id: finalized.body.subscription_id as Hex };
    }
  }),
);
await approve(chain, payer, chain.deployment.token.address, chain.deployment.contracts.RecurringCharges.address, 10n ** 15n);
await chain.testClient.setBlockGasLimit({ gasLimit: 100_000_000n });
await chain.mine(1);
const relayerWallet = chain.wallet(chain.accounts[LOCAL_ROLES.relayer]!);
for (let i = 0; i < firstCharges.length; i += 100) {
  const items = firstCharges.slice(i, i + 100).map((c) => ({ ...c, gasReimbursement: 0n, expectedPeriod: 0n }));
  const hash = await relayerWallet.writeContract({
    address: chain.deployment.contracts.RecurringCharges.address,
    abi: recurringChargesAbi,
    functionName: "chargeBatch",
    args: [items],
    gas: 30_000_000n,
    account: chain.accounts[LOCAL_ROLES.relayer]!,
    chain: chain.chain,
  });
  // Automining: mined before the hash comes back (waiting for it would poll once a second).
  const receipt = await chain.publicClient.getTransactionReceipt({ hash });
  const charged = parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs }).length;
  if (charged !== items.length) throw new Error(`first charges: ${charged} of ${items.length} charged in ${hash}`);
}
setupApi.server.closeAllConnections();
setupApi.server.close();
await setup.close();
await chain.advanceTime(PERIOD);

// From here on the chain plays Base.
const node = await startBaseNode(chain, { blockGasLimit: BLOCK_GAS_LIMIT, ...(MAIN_BASE_FEE === null ? {} : { baseFeePerGas: MAIN_BASE_FEE }) });
const service = await createService(configFor(node.url, unlimited), quiet);
const api = await serve(service.app);
const client = service.client;

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
// last (a service renewing month after month): one row and one floor per round.
interface Wave {
  round: number;
  statuses: Map<string, number>;
  retried: Map<string, number>;
  /** Every transaction an answer named. */
  hashes: Set<Hex>;
  periods: Map<Hex, number>;
  answeredWith: Map<Hex, Hex>;
  answeredMs: number;
  minedMs: number;
  /** The blocks that carried the wave's transactions: how many, and the gas they used. */
  blocks: number;
  gasUsed: bigint;
  refusedByPool: number;
  renewedOnce: number;
  twice: number;
  pendingLeft: number;
  /** The chain's floor for the wave: max(blocks by gas, blocks by transactions per sender) × block time. */
  floorMs: number;
  floorBlocks: { byGas: number; byTransactions: number };
  /** Bytes: the process's resident memory and the API thread's heap at the wave's start, and their peaks over it. */
  memory: { rss: number; heapUsed: number; peakRss: number; peakHeapUsed: number };
}

async function renewalWave(round: number): Promise<Wave> {
  console.log(`renewals${ROUNDS > 1 ? ` (round ${round} of ${ROUNDS})` : ""}: ${RENEWALS} through POST /v1/charges, ${IN_FLIGHT} in flight…`);
  const fromBlock = await client.getBlockNumber({ cacheTime: 0 });
  const refusedBefore = node.stats.refusedFull;
  for (const m of Object.keys(node.stats.methods)) delete node.stats.methods[m];
  const statuses = new Map<string, number>();
  const retried = new Map<string, number>();
  const hashes = new Set<Hex>();
  const periods = new Map<Hex, number>();
  const answeredWith = new Map<Hex, Hex>();
  /** Each request's time to its answer, ms. */
  const latencies: number[] = [];
  let next = 0;
  // BENCH_BASE_PROFILE=<dir>: the API thread's CPU profile over the wave (open it in Chrome's DevTools).
  const profiler = process.env.BENCH_BASE_PROFILE ? new Session() : null;
  if (profiler) {
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
  }
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpu();
  // The process's memory over the wave, sampled every 100 ms: resident (all threads: API, store,
  // chain) and the API thread's JavaScript heap (the bench's own client and node included).
  const memoryAtStart = process.memoryUsage();
  const memoryPeak = { rss: memoryAtStart.rss, heapUsed: memoryAtStart.heapUsed };
  const memorySampler = setInterval(() => {
    const m = process.memoryUsage();
    memoryPeak.rss = Math.max(memoryPeak.rss, m.rss);
    memoryPeak.heapUsed = Math.max(memoryPeak.heapUsed, m.heapUsed);
  }, 100);
  const loopBefore = performance.eventLoopUtilization();
  const jobStart = performance.now();
  // Mined: every block from the wave's start is read as it comes (its transactions' hashes and its
  // gas), so the wave ends with the block that carries its last transaction, seen within 100 ms.
  let answered = false;
  const minedHashes = new Set<Hex>();
  let ourBlocks = 0;
  let gasUsed = 0n;
  let minedMs = 0;
  const watcher = (async () => {
    let seen = fromBlock;
    for (;;) {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      for (let n = seen + 1n; n <= head; n++) {
        const block = await client.getBlock({ blockNumber: n });
        // Only the relayer sends while a wave runs: a block with transactions carries the wave's.
        for (const h of block.transactions) minedHashes.add(h);
        if (block.transactions.length > 0) {
          ourBlocks++;
          gasUsed += block.gasUsed;
        }
        seen = n;
      }
      if (answered && [...hashes].every((h) => minedHashes.has(h))) {
        minedMs = performance.now() - jobStart;
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, RENEWALS) }, async () => {
      while (next < subscriptions.length) {
        const { token, id } = subscriptions[next++]!;
        for (let attempt = 1; ; attempt++) {
          const asked = performance.now();
          const answer = await postJson(api.url, "/v1/charges", { subscription: token });
          latencies.push(performance.now() - asked);
          if (answer.status === 200 || answer.retryAfter === null || attempt === 20) {
            bump(statuses, `${answer.status} ${String(answer.body.status ?? answer.body.error)}`);
            if (typeof answer.body.tx_hash === "string") {
              hashes.add(answer.body.tx_hash as Hex);
              answeredWith.set(id, answer.body.tx_hash as Hex);
            }
            if (typeof answer.body.period_index === "number") periods.set(id, answer.body.period_index);
            break;
          }
          bump(retried, `${answer.status} ${String(answer.body.error)}`);
          await new Promise((r) => setTimeout(r, Number(answer.retryAfter) * 1000));
        }
      }
    }),
  );
  const answeredMs = performance.now() - jobStart;
  answered = true;
  // Every transaction an answer named (some may still wait in the relayer's outbox for room in the
  // pool when their charges are answered), or five minutes.
  await Promise.race([watcher, new Promise((r) => setTimeout(r, 300_000).unref())]);
  minedMs ||= performance.now() - jobStart;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => seconds(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  console.error(`wave: time to an answer p50 ${at(0.5)} s, p90 ${at(0.9)} s, max ${at(1)} s`);
  clearInterval(memorySampler);
  const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
  console.error(
    `wave: memory at its start ${mb(memoryAtStart.rss)} resident, ${mb(memoryAtStart.heapUsed)} API heap; peak ${mb(memoryPeak.rss)} resident, ${mb(memoryPeak.heapUsed)} API heap`,
  );
  const perSecond = RENEWALS / (minedMs / 1000);
  const cpu = process.cpuUsage(cpuBefore);
  const loop = performance.eventLoopUtilization(loopBefore);
  const threadsAfter = threadCpu();
  const threadShares = [...threadsAfter]
    .map(([name, ms]) => [name, ms - (threadsBefore.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms >= 100)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${seconds(ms)} s`)
    .join(", ");
  console.error(
    `wave: the process used ${seconds((cpu.user + cpu.system) / 1000)} s of CPU over ${seconds(minedMs)} s (all its threads: API, store, chain); the API thread's event loop was busy ${(loop.utilization * 100).toFixed(0)}%`,
  );
  if (process.env.BASE_NODE_TRACE)
    console.error(
      `wave: node calls ${Object.entries(node.stats.methods)
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([m, { calls, ms }]) => `${m} ${calls} (${seconds(ms)} s)`)
        .join(", ")}`,
    );
  if (threadShares) console.error(`wave: CPU by thread: ${threadShares}`);
  if (profiler) {
    const { profile } = await profiler.post("Profiler.stop");
    mkdirSync(process.env.BENCH_BASE_PROFILE!, { recursive: true });
    const file = `${process.env.BENCH_BASE_PROFILE}/wave-${Date.now()}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    profiler.disconnect();
    console.error(`wave profile: ${file}`);
  }

  // The chain's floor: the blocks the wave's gas needs at the block's limit, or the blocks its
  // transactions need at NODE_ACCOUNT_SLOTS per sender per block (one sender: the relayer), whichever is more.
  const byGas = Math.ceil(Number(gasUsed) / Number(BLOCK_GAS_LIMIT));
  const byTransactions = Math.ceil(hashes.size / NODE_ACCOUNT_SLOTS);
  const floorMs = Math.max(byGas, byTransactions) * DENIM_BLOCK_MS;
  console.error(
    `renewals: ${RENEWALS} answered in ${seconds(answeredMs)} s, mined in ${seconds(minedMs)} s (${perSecond.toFixed(1)} per second) in ${ourBlocks} blocks; ` +
      `floor ${seconds(floorMs)} s (${byGas} blocks by gas: ${gasUsed.toLocaleString("en")}; ${byTransactions} by ${hashes.size} transactions at ${NODE_ACCOUNT_SLOTS} per block), wall ÷ floor ${ratio(minedMs, floorMs)}`,
  );

  // Exactly once per subscription for the renewal period, counted from Charged events; no nonce left behind.
  // Read in ranges of blocks: a wave's Charged logs in one answer exceed a node's response limit (10 MB).
  const events = [];
  const lastBlock = await client.getBlockNumber({ cacheTime: 0 });
  for (let from = fromBlock; from <= lastBlock; from += 5n) {
    const to = from + 4n < lastBlock ? from + 4n : lastBlock;
    events.push(
      ...(await client.getContractEvents({
        address: chain.deployment.contracts.RecurringCharges.address,
        abi: recurringChargesAbi,
        eventName: "Charged",
        fromBlock: from,
        toBlock: to,
      })),
    );
  }
  const charged = new Map<string, number>();
  for (const e of events) bump(charged, `${e.args.subscriptionId}:${e.args.periodIndex}`);
  const isRenewedOnce = (id: Hex) => periods.has(id) && charged.get(`${id}:${periods.get(id)}`) === 1;
  const renewedOnce = subscriptions.filter(({ id }) => isRenewedOnce(id)).length;
  const twice = [...charged.values()].filter((n) => n > 1).length;
  const pendingLeft = (await client.getTransactionCount({ address: relayer, blockTag: "pending" })) - (await client.getTransactionCount({ address: relayer }));
  const failed = [...statuses.keys()].some((s) => !s.startsWith("200 "));
  if (failed || renewedOnce !== RENEWALS || twice > 0 || pendingLeft !== 0) {
    console.error(`base renewals: answers ${countOf(statuses)}; ${renewedOnce}/${RENEWALS} renewed once; ${twice} twice; ${pendingLeft} left pending`);
    // Why: each renewal a batch skipped, by its revert (empty: the item ran out of gas).
    const skipped = new Map<string, number>();
    for (const hash of hashes) {
      const receipt = await client.getTransactionReceipt({ hash });
      const events = parseEventLogs({ abi: recurringChargesAbi, eventName: "ChargeSkipped", logs: receipt.logs });
      if (events.length === 0) continue;
      const { gas: limit } = await client.getTransaction({ hash });
      for (const e of events) {
        const reason = e.args.reason === "0x" ? "out of gas (empty revert)" : decodeErrorResult({ abi: recurringChargesAbi, data: e.args.reason }).errorName;
        bump(skipped, `${reason} (gas used ${receipt.gasUsed} of ${limit})`);
      }
    }
    console.error(`skipped in batches: ${countOf(skipped)}`);
    // Each subscription not charged exactly once: what it was answered, and what became of that transaction.
    for (const { id } of subscriptions.filter(({ id }) => !isRenewedOnce(id)).slice(0, 10)) {
      const hash = answeredWith.get(id);
      const sent = hash ? await client.getTransaction({ hash }).catch(() => null) : null;
      const receipt = hash ? await client.getTransactionReceipt({ hash }).catch(() => null) : null;
      const inTx = receipt ? parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs }) : [];
      const carries = `${inTx.length} Charged in it, ${inTx.filter((e) => e.args.subscriptionId === id).length} for this subscription`;
      console.error(
        `not renewed once: ${id} answered period ${periods.get(id)} with ${hash}; nonce ${sent?.nonce}, ${receipt ? `mined in ${receipt.blockNumber} (${receipt.status}, gas used ${receipt.gasUsed} of ${sent?.gas}, index ${receipt.transactionIndex})` : "no receipt"}, ${carries}; Charged for it: ${[...charged.keys()].filter((k) => k.startsWith(id)).join(", ") || "none"}`,
      );
    }
    process.exitCode = 1;
  }
  return {
    round,
    statuses,
    retried,
    hashes,
    periods,
    answeredWith,
    answeredMs,
    minedMs,
    blocks: ourBlocks,
    gasUsed,
    refusedByPool: node.stats.refusedFull - refusedBefore,
    renewedOnce,
    twice,
    pendingLeft,
    floorMs,
    floorBlocks: { byGas, byTransactions },
    memory: { rss: memoryAtStart.rss, heapUsed: memoryAtStart.heapUsed, peakRss: memoryPeak.rss, peakHeapUsed: memoryPeak.heapUsed },
  };
}

const waves: Wave[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  if (round > 1) await chain.advanceTime(PERIOD);
  waves.push(await renewalWave(round));
}
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
const pricing = service.config.recurring;
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
const reimbursementRows: string[] = [];
for (const gwei of BASE_FEES) {
  await chain.advanceTime(PERIOD);
  await node.setBaseFee(parseGwei(gwei));
  console.log(`reimbursement: ${REIMBURSE_RENEWALS} renewals at an L2 base fee of ${gwei} gwei…`);
  const wave = subscriptions.slice(0, REIMBURSE_RENEWALS);
  const waveHashes = new Set<Hex>();
  const waveStatuses = new Map<string, number>();
  let at = 0;
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, wave.length) }, async () => {
      while (at < wave.length) {
        const { token } = wave[at++]!;
        for (let attempt = 1; ; attempt++) {
          const answer = await postJson(api.url, "/v1/charges", { subscription: token });
          if (answer.status === 200 || answer.retryAfter === null || attempt === 20) {
            bump(waveStatuses, `${answer.status} ${String(answer.body.status ?? answer.body.error)}`);
            if (typeof answer.body.tx_hash === "string") waveHashes.add(answer.body.tx_hash as Hex);
            break;
          }
          await new Promise((r) => setTimeout(r, Number(answer.retryAfter) * 1000));
        }
      }
    }),
  );
  // The band is promised for batched renewals; a renewal that went alone (a straggler of the wave, sent
  // with `charge`) keeps its own price, the dearest lone renewal's, and is counted apart.
  const batched = { paidWei: 0n, networkFees: 0n, reimbursements: 0n, renewals: 0, txs: 0 };
  const alone = { paidWei: 0n, networkFees: 0n, reimbursements: 0n, renewals: 0, txs: 0 };
  for (const hash of waveHashes) {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 300_000 });
    const { input } = await client.getTransaction({ hash });
    const into = decodeFunctionData({ abi: recurringChargesAbi, data: input }).functionName === "chargeBatch" ? batched : alone;
    into.txs++;
    into.paidWei += receipt.gasUsed * receipt.effectiveGasPrice + ((receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n);
    for (const e of parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs })) {
      into.networkFees += e.args.networkFee;
      into.reimbursements += e.args.gasReimbursement;
      into.renewals++;
    }
  }
  const paid = weiToUnits(batched.paidWei, pricing);
  const charged = batched.networkFees + batched.reimbursements;
  const ceiling = batched.networkFees > (paid * 13n) / 10n ? batched.networkFees : (paid * 13n) / 10n;
  const within = charged * 100n >= paid * 95n && charged <= ceiling;
  const renewed = batched.renewals + alone.renewals;
  if (!within || renewed !== wave.length) {
    console.error(
      `reimbursement at ${gwei} gwei: answers ${countOf(waveStatuses)}; ${renewed}/${wave.length} charged; batched: charged ${charged}, paid ${paid} (units)`,
    );
    process.exitCode = 1;
  }
  const each = (units: bigint, n: number) => formatAmount(n ? units / BigInt(n) : 0n);
  const alonePaid = weiToUnits(alone.paidWei, pricing);
  const aloneCharged = alone.networkFees + alone.reimbursements;
  const aloneCell = alone.renewals
    ? `${alone.renewals}: charged ${each(aloneCharged, alone.renewals)}, paid ${each(alonePaid, alone.renewals)} (${(Number(aloneCharged) / Number(alonePaid || 1n)).toFixed(2)}×)`
    : "none";
  reimbursementRows.push(
    `| ${gwei} gwei | ${batched.renewals.toLocaleString("en")} in ${batched.txs} | ${each(paid, batched.renewals)} | ${each(batched.networkFees, batched.renewals)} | ${each(batched.reimbursements, batched.renewals)} | ${each(charged, batched.renewals)} | ${(Number(charged) / Number(paid || 1n)).toFixed(2)}× | ${(Number(ceiling) / Number(paid || 1n)).toFixed(2)}× | ${within ? "yes" : "NO"} | ${aloneCell} |`,
  );
}
await node.setBaseFee(null);

const txs = hashes.size;
const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const within = (w: Wave) => w.minedMs <= 1.2 * w.floorMs;
const tables = [
  `| Base-like node: ${REMOTE_NODE_LATENCY_MS} ms per round trip, a block every ${DENIM_BLOCK_MS} ms (gas limit ${BLOCK_GAS_LIMIT.toLocaleString("en")}), ${NODE_ACCOUNT_SLOTS} unmined per sender | Per second | vs baseline | Wall time (answered / mined) | Chain's floor | Wall ÷ floor | Answers | Retried (Retry-After) | Transactions (blocks) | Refused by the pool | Memory peak: resident / API heap (at start) |`,
  "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---|",
  `| plain transfers from one key within the pool's window (baseline) | ${baselinePerSecond.toFixed(1)} | 1.00× | ${seconds(baselineMs)} s for ${BASELINE_TRANSFERS} | | | | | ${BASELINE_TRANSFERS} | 0 | |`,
  ...waves.map((w) => {
    const perSecond = RENEWALS / (w.minedMs / 1000);
    return `| ${RENEWALS.toLocaleString("en")} renewals through POST /v1/charges, ${IN_FLIGHT} in flight, ${storeName}${ROUNDS > 1 ? `, round ${w.round}` : ""} | ${perSecond.toFixed(1)} | ${ratio(perSecond, baselinePerSecond)}× | ${seconds(w.answeredMs)} s / ${seconds(w.minedMs)} s | ${seconds(w.floorMs)} s | ${ratio(w.minedMs, w.floorMs)}× | ${countOf(w.statuses)} | ${countOf(w.retried)} | ${w.hashes.size} (${w.blocks}) | ${w.refusedByPool} | ${mib(w.memory.peakRss)} / ${mib(w.memory.peakHeapUsed)} (${mib(w.memory.rss)} / ${mib(w.memory.heapUsed)}) |`;
  }),
  "",
  ...waves.map(
    (w) =>
      `${ROUNDS > 1 ? `Round ${w.round}: ` : ""}${w.renewedOnce.toLocaleString("en")} of ${RENEWALS.toLocaleString("en")} subscriptions charged exactly once for the renewal period (Charged events), ${w.twice} twice; ${w.hashes.size} transactions all mined, ${w.pendingLeft} left pending. ` +
      `The chain's floor: ${w.gasUsed.toLocaleString("en")} gas needs ${w.floorBlocks.byGas} blocks of ${BLOCK_GAS_LIMIT.toLocaleString("en")}, ${w.hashes.size} transactions from one sender need ${w.floorBlocks.byTransactions} at ${NODE_ACCOUNT_SLOTS} per block: ${Math.max(w.floorBlocks.byGas, w.floorBlocks.byTransactions)} blocks, ${seconds(w.floorMs)} s; the wave took ${w.blocks} blocks and ${ratio(w.minedMs, w.floorMs)}× the floor (${within(w) ? "within" : "NOT within"} 1.2×), ${(RENEWALS / w.hashes.size).toFixed(1)} renewals per transaction.`,
  ),
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
const reimbursementTable = [
  `| Charged ÷ paid for a wave of batched renewals at an L2 base fee (pinned on every block; ETH at ${formatAmount(pricing.unitsPerEth)} USDC; normal L1) | Renewals (transactions) | Paid by the relayer per renewal (L2 + L1, USDC) | Network fee per renewal | Reimbursement per renewal | Charged per renewal | Charged ÷ paid | Ceiling ÷ paid (max of network fee, 1.3×) | Within 0.95× … ceiling | Sent alone (own price, not in the band) |`,
  "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
  ...reimbursementRows,
].join("\n");
console.log("");
console.log(latencyTable);
console.log("");
console.log(tables);
console.log("");
console.log(reimbursementTable);
console.log("");
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
      ),
  );
  console.log("docs/benchmarks.md updated");
}
api.server.closeAllConnections();
api.server.close();
await service.close();
await node.close();
await chain.close();
