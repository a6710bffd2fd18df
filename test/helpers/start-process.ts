import { spawn, type ChildProcess } from "node:child_process";
import { until } from "./until.js";

/** A start running in a process group of its own (the tsx wrapper and the node process it starts), with what it printed. */
export interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts scripts/start.ts as `npm start` does, in its own process group, with `env` over the test's (no RPC_URL or FORK_URL inherited). */
export function spawnStart(env: Record<string, string>, cwd?: string): Started {
  const inherited = { ...process.env };
  delete inherited.RPC_URL;
  delete inherited.FORK_URL;
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "scripts/start.ts"], {
    env: { ...inherited, PORT: "0", OPS_PORT: "0", DATA_DIR: "memory", LOG_LEVEL: "silent", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    ...(cwd ? { cwd } : {}),
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

/** Whether any process of the start's group is still there. */
export function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends the start's whole group (SIGTERM, SIGKILL 10 s later) and asserts nothing of it is left: the
 * node process tsx started goes with its wrapper.
 */
export async function endGroup(started: Started): Promise<void> {
  if (groupAlive(started.child)) process.kill(-started.child.pid!, "SIGTERM");
  const killed = setTimeout(() => groupAlive(started.child) && process.kill(-started.child.pid!, "SIGKILL"), 10_000);
  await started.exited;
  await until(() => !groupAlive(started.child), "every process of the start's group gone", { timeoutMs: 15_000, everyMs: 20 });
  clearTimeout(killed);
}
