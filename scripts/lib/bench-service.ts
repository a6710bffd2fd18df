// A bench's service in a process of its own (scripts/lib/bench-service-child.ts), and what it costs:
// CPU by thread from /proc, JSON-RPC requests by method from its /metrics, a CPU profile on request.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

export interface ServiceProcess {
  api: string;
  pid: number;
  /** CPU ms the process's threads have used, by thread (the API thread, the store's worker, V8's helpers…). */
  cpuByThread(): Map<string, number>;
  /** `rpc_requests_total` by method: every JSON-RPC request the service sent (each of a batch). */
  rpcRequests(): Promise<Map<string, number>>;
  /** Starts sampling the service's JavaScript; the promise it returns stops and writes `file`. */
  startProfile(): Promise<{ stop(file: string): Promise<void> }>;
  close(): Promise<void>;
}

/** Thread names as Linux gives them (15 characters), as the bench reports them. */
const THREAD_NAMES: Array<[RegExp, string]> = [
  [/^WorkerThread$/, "store worker"],
  [/^V8 ?(Worker|DefaultWor)/, "V8 workers"],
  [/^libuv-worker$/, "libuv pool"],
];

/** `pid`'s threads (Linux: /proc/<pid>/task): each one's id, its name as the kernel gives it and its stat line. Empty where /proc is missing. */
function threadsOf(pid: number): Array<{ task: string; name: string; stat: string }> {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const threads: Array<{ task: string; name: string; stat: string }> = [];
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      threads.push({ task, name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), stat });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

/**
 * CPU time (ms) `pid`'s threads have used, summed by thread name: its main thread as "main thread",
 * a worker as "WorkerThread", V8's helpers, the chain's threads. Empty where /proc is missing.
 */
export function threadCpu(pid: number = process.pid): Map<string, number> {
  const byName = new Map<string, number>();
  const tickMs = 10; // USER_HZ is 100 on Linux
  for (const { task, name, stat } of threadsOf(pid)) {
    const label = task === String(pid) ? "main thread" : name.replace(/[0-9]+$/, "#");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byName.set(label, (byName.get(label) ?? 0) + (Number(fields[11]) + Number(fields[12])) * tickMs);
  }
  return byName;
}

/**
 * How long (ms) `pid`'s threads whose name matches `name` have waited, runnable, for a CPU
 * (/proc/<pid>/task/<tid>/schedstat's second field): what sharing the cores cost them. 0 where
 * schedstat is missing.
 */
export function threadRunQueueWait(name: RegExp, pid: number = process.pid): number {
  let waitedNs = 0;
  for (const thread of threadsOf(pid)) {
    if (!name.test(thread.name)) continue;
    try {
      waitedNs += Number(readFileSync(`/proc/${pid}/task/${thread.task}/schedstat`, "utf8").split(" ")[1] ?? 0);
    } catch {
      // the thread ended since the listing, or no schedstat
    }
  }
  return waitedNs / 1e6;
}

/** The service's threads by what they do: its API thread, its store's worker, V8's helpers, the rest. */
function serviceThreads(pid: number): Map<string, number> {
  const named = new Map<string, number>();
  for (const [name, ms] of threadCpu(pid)) {
    const role = name === "main thread" ? "API thread" : (THREAD_NAMES.find(([pattern]) => pattern.test(name))?.[1] ?? "other threads");
    named.set(role, (named.get(role) ?? 0) + ms);
  }
  return named;
}

/** Starts the service on `rpcUrl` with `env` (as configFor takes it) in a process of its own; resolves once it listens. */
export function startServiceProcess(rpcUrl: string, env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", new URL("./bench-service-child.ts", import.meta.url).pathname], {
    env: { ...process.env, BENCH_SERVICE_RPC_URL: rpcUrl, BENCH_SERVICE_ENV: JSON.stringify(env) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = (kind: string) =>
    new Promise<Record<string, string>>((resolve, reject) => {
      const onMessage = (message: Record<string, string>) => {
        if (message.kind !== kind) return;
        child.off("exit", onExit);
        child.off("message", onMessage);
        resolve(message);
      };
      const onExit = (code: number | null) => reject(new Error(`the bench's service exited (${code}) before ${kind}`));
      child.on("message", onMessage);
      child.once("exit", onExit);
    });
  return next("listening").then(({ api, ops }) => ({
    api: api!,
    pid: child.pid!,
    cpuByThread: () => serviceThreads(child.pid!),
    rpcRequests: async () => {
      const text = await (await fetch(`${ops}/metrics`)).text();
      return new Map([...text.matchAll(/^rpc_requests_total\{method="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
    },
    startProfile: async () => {
      const started = next("profiling");
      child.send({ kind: "profile-start" });
      await started;
      return {
        stop: async (file: string) => {
          const written = next("profiled");
          child.send({ kind: "profile-stop", file });
          await written;
        },
      };
    },
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.send({ kind: "close" });
      await exited;
    },
  }));
}
