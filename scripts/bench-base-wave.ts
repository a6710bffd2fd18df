// The renewal wave of `npm run bench -- --base` (scripts/bench-base.ts): RENEWALS renewals through POST
// /v1/charges on the Base-like node, IN_FLIGHT outstanding, each answer counted, the chain's floor, CPU by thread and memory.

import { mkdirSync, readFileSync } from "node:fs";
import { parseEventLogs, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import type { LocalChain } from "../dev/localchain/harness.js";
import { NODE_ACCOUNT_SLOTS, type BaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { bump, chargeSkippedReason, countOf, ratio, seconds } from "./bench-common.js";
import { threadCpu, threadRunQueueWait, type ServiceProcess } from "./lib/bench-service.js";

/** What a wave runs on: the chain, its Base-like node, the service's API and client, the subscriptions set up. */
export interface WaveContext {
  chain: LocalChain;
  node: BaseNode;
  /** The bench's own client of the node (its reads are not the service's). */
  client: PublicClient;
  /** The service, in a process of its own: its CPU and JSON-RPC requests are counted apart. */
  service: ServiceProcess;
  relayer: Hex;
  subscriptions: Array<{ token: string; id: Hex }>;
  postJson: (base: string, path: string, body: unknown) => Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }>;
  renewals: number;
  inFlight: number;
  blockGasLimit: bigint;
  /** What the wave's rows are called (its store, its round, its nodes). */
  label: string;
  /** Where to write a CPU profile of the service over the wave (`--cpu-prof`); null: none. */
  profileDir: string | null;
}

/** The chain's own thread (EDR's provider) in this process: what the chain's work costs. */
const CHAIN_THREAD = /^edr/;

/** CPU ms of the chain's threads in this process. */
function chainCpu(): number {
  return [...threadCpu()].filter(([name]) => CHAIN_THREAD.test(name)).reduce((sum, [, ms]) => sum + ms, 0);
}

/** The service's CPU ms over all its threads. */
function serviceCpuTotal(byThread: Map<string, number>): number {
  return [...byThread.values()].reduce((sum, ms) => sum + ms, 0);
}

/** A process's resident memory, bytes (0 once it is gone). */
function residentBytes(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** `after` less `before`, key by key, keys that moved only. */
function delta(after: Map<string, number>, before: Map<string, number>): Map<string, number> {
  return new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0));
}

export interface Wave {
  round: number;
  label: string;
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
  /** CPU ms of the chain's thread over the wave, and of the service's threads by role (its own process). */
  chainBusyMs: number;
  serviceCpu: Map<string, number>;
  /** The service's JSON-RPC requests over the wave, by method. */
  rpcCalls: Map<string, number>;
  /** The wave's CPU profile of the service (`--cpu-prof`), else null. */
  profile: string | null;
  /** Bytes: the service's resident memory at the wave's start, and its peak over it. */
  memory: { rss: number; peakRss: number };
}

export async function renewalWave(ctx: WaveContext, round: number): Promise<Wave> {
  const { chain, node, client, service, relayer, subscriptions, postJson, renewals: RENEWALS, inFlight: IN_FLIGHT, blockGasLimit: BLOCK_GAS_LIMIT } = ctx;
  console.log(`renewals, ${ctx.label}: ${RENEWALS} through POST /v1/charges, ${IN_FLIGHT} in flight…`);
  const fromBlock = await client.getBlockNumber({ cacheTime: 0 });
  const refusedBefore = node.stats.refusedFull;
  for (const m of Object.keys(node.stats.methods)) delete node.stats.methods[m];
  node.stats.blocksByTransactions.clear();
  const statuses = new Map<string, number>();
  const retried = new Map<string, number>();
  const hashes = new Set<Hex>();
  const periods = new Map<Hex, number>();
  const answeredWith = new Map<Hex, Hex>();
  /** Each request's time to its answer, ms. */
  const latencies: number[] = [];
  let next = 0;
  // `--cpu-prof`: the service's CPU profile over the wave (open it in Chrome's DevTools).
  const profiler = ctx.profileDir ? await service.startProfile() : null;
  const rpcBefore = await service.rpcRequests();
  const serviceBefore = service.cpuByThread();
  const chainBefore = chainCpu();
  const chainWaitBefore = threadRunQueueWait(CHAIN_THREAD);
  const threadsBefore = threadCpu();
  // The service's resident memory over the wave (all its threads), sampled every 100 ms.
  const memoryAtStart = residentBytes(service.pid);
  let memoryPeak = memoryAtStart;
  const memorySampler = setInterval(() => {
    memoryPeak = Math.max(memoryPeak, residentBytes(service.pid));
  }, 100);
  const jobStart = performance.now();
  // BENCH_TIMELINE=1: every 500 ms, the chain thread's and the service's CPU, answers and mined transactions so far.
  const timeline: string[] = [];
  let answers = 0;
  let lastChain = chainBefore;
  let lastChainWait = chainWaitBefore;
  let lastService = serviceCpuTotal(serviceBefore);
  const timelineSampler = process.env.BENCH_TIMELINE
    ? setInterval(() => {
        const c = chainCpu();
        const waited = threadRunQueueWait(CHAIN_THREAD);
        const sv = serviceCpuTotal(service.cpuByThread());
        const mined = [...hashes].filter((h) => minedIn.has(h)).length;
        timeline.push(
          `${seconds(performance.now() - jobStart)}s chain ${Math.round(c - lastChain)} (waited for a CPU ${Math.round(waited - lastChainWait)}) service ${Math.round(sv - lastService)} answers ${answers} txs ${hashes.size} mined ${mined}`,
        );
        lastChain = c;
        lastChainWait = waited;
        lastService = sv;
      }, 500)
    : null;
  // Mined: every block from the wave's start is read as it comes (the block each transaction is in),
  // so the wave ends with the block that carries its last transaction, seen within 100 ms. Strangers'
  // transactions may share the blocks (LOCAL_TRAFFIC_TPS): a block counts as the wave's by its hashes.
  let answered = false;
  const minedIn = new Map<Hex, bigint>();
  let minedMs = 0;
  const watcher = (async () => {
    let seen = fromBlock;
    for (;;) {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      for (let n = seen + 1n; n <= head; n++) {
        const block = await client.getBlock({ blockNumber: n });
        for (const h of block.transactions) minedIn.set(h, n);
        seen = n;
      }
      if (answered && [...hashes].every((h) => minedIn.has(h))) {
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
          const answer = await postJson(service.api, "/v1/charges", { subscription: token });
          latencies.push(performance.now() - asked);
          answers++;
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
  if (timelineSampler) {
    clearInterval(timelineSampler);
    console.error(`wave timeline (ms of CPU a 500 ms step):\n  ${timeline.join("\n  ")}`);
  }
  minedMs ||= performance.now() - jobStart;
  // What the wave cost, taken when it ended (the reads below are the bench's).
  const serviceCpu = delta(service.cpuByThread(), serviceBefore);
  const chainBusyMs = chainCpu() - chainBefore;
  const chainWaitMs = threadRunQueueWait(CHAIN_THREAD) - chainWaitBefore;
  const benchDelta = delta(threadCpu(), threadsBefore);
  const rpcCalls = delta(await service.rpcRequests(), rpcBefore);
  const ourBlocks = new Set([...hashes].map((h) => minedIn.get(h)).filter((n) => n !== undefined)).size;
  let gasUsed = 0n;
  // 16 receipts a round trip (a batch's receipt carries its renewals' logs).
  const mined = [...hashes].filter((h) => minedIn.has(h));
  for (let i = 0; i < mined.length; i += 16)
    for (const receipt of await Promise.all(mined.slice(i, i + 16).map((hash) => client.getTransactionReceipt({ hash })))) gasUsed += receipt.gasUsed;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => seconds(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  console.error(`wave: time to an answer p50 ${at(0.5)} s, p90 ${at(0.9)} s, max ${at(1)} s`);
  clearInterval(memorySampler);
  const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
  console.error(`wave: the service's resident memory ${mb(memoryAtStart)} at its start, ${mb(memoryPeak)} at its peak`);
  const perSecond = RENEWALS / (minedMs / 1000);
  const benchThreads = [...benchDelta]
    .filter(([, ms]) => ms >= 100)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${seconds(ms)} s`)
    .join(", ");
  console.error(`wave: the bench's process (chain, node, load) used: ${benchThreads}`);
  const serviceTotal = serviceCpuTotal(serviceCpu);
  console.error(
    `wave: ${seconds(minedMs)} s, the chain thread busy ${seconds(chainBusyMs)} s (${(minedMs / chainBusyMs).toFixed(2)}×) and runnable but waiting for a CPU ${seconds(chainWaitMs)} s; the service's CPU ${(serviceTotal / RENEWALS).toFixed(2)} ms a renewal (${[
      ...serviceCpu,
    ]
      .map(([thread, ms]) => `${thread} ${(ms / RENEWALS).toFixed(2)}`)
      .join(", ")}); JSON-RPC requests a renewal: ${[...rpcCalls]
      .sort((a, b) => b[1] - a[1])
      .map(([method, n]) => `${method} ${(n / RENEWALS).toFixed(3)}`)
      .join(", ")}`,
  );
  // The blocks of the wave by how many transactions each carried (the relayer's, and strangers'), and
  // what mining them cost: a wave whose transactions come in bursts leaves blocks empty between them.
  console.error(
    `wave: blocks mined by transactions carried: ${[...node.stats.blocksByTransactions]
      .sort((a, b) => a[0] - b[0])
      .map(([txs, { blocks, ms }]) => `${txs}: ${blocks} (${Math.round(ms / blocks)} ms each)`)
      .join(", ")}`,
  );
  if (process.env.BASE_NODE_TRACE)
    console.error(
      `wave: node calls ${Object.entries(node.stats.methods)
        .sort((a, b) => b[1].ms - a[1].ms)
        .map(([m, { calls, ms }]) => `${m} ${calls} (${seconds(ms)} s)`)
        .join(", ")}`,
    );
  let profile: string | null = null;
  if (profiler) {
    mkdirSync(ctx.profileDir!, { recursive: true });
    profile = `${ctx.profileDir}/renewal-wave-round-${round}.cpuprofile`;
    await profiler.stop(profile);
    console.error(`wave profile: ${profile}`);
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
        bump(skipped, `${chargeSkippedReason(e.args.reason)} (gas used ${receipt.gasUsed} of ${limit})`);
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
    label: ctx.label,
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
    chainBusyMs,
    serviceCpu,
    rpcCalls,
    profile,
    memory: { rss: memoryAtStart, peakRss: memoryPeak },
  };
}
