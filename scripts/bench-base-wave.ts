// The renewal wave of `npm run bench -- --base` (scripts/bench-base.ts): RENEWALS renewals through POST
// /v1/charges on the Base-like node, IN_FLIGHT outstanding, each answer counted, the chain's floor, CPU by thread and memory.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { decodeErrorResult, parseEventLogs, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import type { LocalChain } from "../dev/localchain/harness.js";
import { NODE_ACCOUNT_SLOTS, type BaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { bump, countOf, ratio, seconds } from "./bench-common.js";

/** What a wave runs on: the chain, its Base-like node, the service's API and client, the subscriptions set up. */
export interface WaveContext {
  chain: LocalChain;
  node: BaseNode;
  client: PublicClient;
  api: { url: string };
  relayer: Hex;
  subscriptions: Array<{ token: string; id: Hex }>;
  postJson: (base: string, path: string, body: unknown) => Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }>;
  renewals: number;
  inFlight: number;
  rounds: number;
  blockGasLimit: bigint;
}

/**
 * CPU time (ms) this process's threads have used, summed by thread name (Linux: /proc/self/task): the
 * API's thread, the store's worker, the chain's threads, V8's helpers. Empty where /proc is missing.
 */
export function threadCpu(): Map<string, number> {
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

export interface Wave {
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

export async function renewalWave(ctx: WaveContext, round: number): Promise<Wave> {
  const {
    chain,
    node,
    client,
    api,
    relayer,
    subscriptions,
    postJson,
    renewals: RENEWALS,
    inFlight: IN_FLIGHT,
    rounds: ROUNDS,
    blockGasLimit: BLOCK_GAS_LIMIT,
  } = ctx;
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
