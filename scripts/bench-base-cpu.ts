// What a renewal wave cost the service and the chain (`npm run bench -- --base`): the wave against the
// chain thread's busy time, the service's CPU per renewal by thread, its JSON-RPC requests per
// renewal by method, and a profile's top functions.
import type { Wave } from "./bench-base-wave.js";
import { topSelfTime } from "./lib/cpu-profile.js";
import { seconds } from "./bench-common.js";

/** Issue 61's marks: the wave within this many times the chain thread's busy time… */
export const WAVE_PER_CHAIN_BUSY = 1.3;
/** …and the service's CPU within this many ms a renewal. */
export const SERVICE_MS_PER_RENEWAL = 0.9;

const THREADS = ["API thread", "store worker", "V8 workers"] as const;

/** The service's CPU over the wave, ms, all its threads. */
export function serviceMs(w: Wave): number {
  return [...w.serviceCpu.values()].reduce((sum, ms) => sum + ms, 0);
}

/** Whether the wave met both marks, and each subscription was charged exactly once. */
export function metMarks(w: Wave, renewals: number): boolean {
  return w.renewedOnce === renewals && w.twice === 0 && w.minedMs <= WAVE_PER_CHAIN_BUSY * w.chainBusyMs && serviceMs(w) / renewals <= SERVICE_MS_PER_RENEWAL;
}

/** The CPU table, one row per wave, and a line per wave saying whether it met the marks. */
export function cpuTables(waves: Wave[], renewals: number): string[] {
  const per = (ms: number) => (ms / renewals).toFixed(2);
  const rows = waves.map((w) => {
    const total = serviceMs(w);
    const other = total - THREADS.reduce((sum, t) => sum + (w.serviceCpu.get(t) ?? 0), 0);
    const calls = [...w.rpcCalls.values()].reduce((sum, n) => sum + n, 0);
    const byMethod = [...w.rpcCalls]
      .sort((a, b) => b[1] - a[1])
      .map(([method, n]) => `${method} ${(n / renewals).toFixed(3)}`)
      .join(", ");
    return `| ${w.label} | ${seconds(w.minedMs)} s | ${seconds(w.chainBusyMs)} s | ${(w.minedMs / w.chainBusyMs).toFixed(2)}× | ${per(total)} ms | ${THREADS.map((t) => per(w.serviceCpu.get(t) ?? 0)).join(" | ")} | ${per(other)} | ${(calls / renewals).toFixed(3)} | ${byMethod} |`;
  });
  const verdicts = waves.map(
    (w) =>
      `${w.label[0]!.toUpperCase()}${w.label.slice(1)}: ${w.renewedOnce === renewals && w.twice === 0 ? "each subscription charged exactly once" : `${w.renewedOnce} of ${renewals} charged exactly once, ${w.twice} twice`}; ` +
      `the wave ${(w.minedMs / w.chainBusyMs).toFixed(2)}× the chain thread's busy time (${w.minedMs <= WAVE_PER_CHAIN_BUSY * w.chainBusyMs ? "within" : "NOT within"} ${WAVE_PER_CHAIN_BUSY}×); ` +
      `the service's CPU ${per(serviceMs(w))} ms a renewal (${serviceMs(w) / renewals <= SERVICE_MS_PER_RENEWAL ? "within" : "NOT within"} ${SERVICE_MS_PER_RENEWAL} ms).`,
  );
  return [
    `| ${renewals.toLocaleString("en")} renewals: what the wave cost | Wave (to its last block) | Chain thread busy (EDR) | Wave ÷ chain busy | Service CPU per renewal | API thread | Store worker | V8 workers | Other threads | JSON-RPC requests per renewal | By method (per renewal) |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
    "",
    ...verdicts,
  ];
}

/** The profile's top ten functions by self time, as a table. */
export function profileTable(file: string, root: string): string {
  const { busyMs, top } = topSelfTime(file, 10, root);
  return [
    `| The service over a wave of its own (\`npm run bench -- --base --cpu-prof\`): top ten functions by self time, of ${seconds(busyMs)} s of samples on its API thread, idle left out | Self time | Share | Where |`,
    "|---|---:|---:|---|",
    ...top.map((t) => `| ${t.name} | ${t.ms.toFixed(0)} ms | ${(t.share * 100).toFixed(1)}% | ${t.place} |`),
  ].join("\n");
}
