// The phases of `npm start`, each printed to stderr as it begins and ends, each bounded by a time
// that names it, and a stop (SIGINT, SIGTERM, a phase past its bound) that closes what the phases
// opened, from the first line of the start on. Imports nothing heavy, so the handlers are in place
// before anything else loads.
import { writeSync } from "node:fs";
import { Worker } from "node:worker_threads";

/** How far past a phase's bound the watchdog thread kills the process, when its own event loop is blocked and cannot fail it. */
const WATCHDOG_GRACE_MS = 5_000;
/** How long a stop may spend closing what was opened before the process exits regardless. */
const CLOSE_BOUND_MS = 10_000;

/** The phases of a start, in order: what `START_HANG_PHASE` names. */
export const PHASES = ["modules", "checkout", "compile", "chain", "service", "listen"] as const;
export type PhaseId = (typeof PHASES)[number];

export interface StartPhases {
  /** Runs `work` as the phase `id` (what it does: `what`): printed to stderr, failed with its name past `boundMs`. */
  run<T>(id: PhaseId, what: string, boundMs: number, work: () => Promise<T>): Promise<T>;
  /** Registers what a stop closes (in the reverse order of registration). */
  opened(close: () => Promise<void> | void): void;
  /** Prints `message` to stderr, closes what was opened, and exits 1. */
  fail(message: string): Promise<never>;
}

/** A line to stderr, written at once (a worker's or a dying process's line is not lost in a buffer). */
function say(line: string): void {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // stderr closed: nothing to say it on
  }
}

/**
 * The phases, with SIGINT and SIGTERM handled from now on. For tests, `START_HANG_PHASE=<id>` (one
 * of {@link PHASES}) makes that phase wait for ever (`<id>:busy`: block the event loop for ever),
 * and `START_HANG_BOUND_MS` replaces that phase's bound.
 */
export function startPhases(env: NodeJS.ProcessEnv = process.env): StartPhases {
  const closers: Array<() => Promise<void> | void> = [];
  const [hangId, hangKind] = (env.START_HANG_PHASE ?? "").split(":");
  const hangBound = env.START_HANG_BOUND_MS && /^[0-9]+$/.test(env.START_HANG_BOUND_MS) ? Number(env.START_HANG_BOUND_MS) : null;
  let stopping: Promise<never> | null = null;

  // A thread of its own that kills the process when a phase overruns its bound by the grace: a
  // phase that blocks the main thread's event loop cannot fail itself by a timer.
  const watchdog = new Worker(
    `const { parentPort } = require("node:worker_threads");
     const { writeSync } = require("node:fs");
     let timer = null;
     parentPort.on("message", ({ phase, ms }) => {
       if (timer) clearTimeout(timer);
       timer = phase === null ? null : setTimeout(() => {
         try { writeSync(2, "start: " + phase + " blocked the process past its bound; killed\\n"); } catch {}
         process.kill(process.pid, "SIGKILL");
       }, ms);
     });`,
    { eval: true },
  );
  watchdog.unref();

  async function closeAll(): Promise<void> {
    const closing = (async () => {
      for (const close of closers.splice(0).reverse()) {
        try {
          await close();
        } catch (error) {
          say(`start: closing: ${(error as Error).message.split("\n")[0]}`);
        }
      }
    })();
    const bound = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_BOUND_MS).unref());
    await Promise.race([closing, bound]);
  }

  function exit(code: number, message: string | null): Promise<never> {
    if (stopping) return stopping;
    stopping = (async () => {
      if (message) say(message);
      watchdog.postMessage({ phase: null, ms: 0 });
      await closeAll();
      process.exit(code);
    })();
    return stopping;
  }

  process.on("SIGINT", () => void exit(0, "\nSIGINT: stopping…"));
  process.on("SIGTERM", () => void exit(0, "\nSIGTERM: stopping…"));

  return {
    async run<T>(id: PhaseId, what: string, boundMs: number, work: () => Promise<T>): Promise<T> {
      const name = `${id} (${what})`;
      const bound = id === hangId ? (hangBound ?? boundMs) : boundMs;
      const began = performance.now();
      say(`start: ${name}…`);
      watchdog.postMessage({ phase: name, ms: bound + WATCHDOG_GRACE_MS });
      let timer: NodeJS.Timeout | undefined;
      const overrun = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new PhaseOverrun(name, bound)), bound);
      });
      try {
        const done = id === hangId ? hung(hangKind) : work();
        const value = await Promise.race([done, overrun]);
        say(`start: ${name} done in ${((performance.now() - began) / 1000).toFixed(1)} s`);
        return value;
      } catch (error) {
        if (error instanceof PhaseOverrun) return exit(1, error.message);
        throw error;
      } finally {
        clearTimeout(timer);
        watchdog.postMessage({ phase: null, ms: 0 });
      }
    },
    opened(close) {
      closers.push(close);
    },
    fail(message) {
      return exit(1, message);
    },
  };
}

/** A phase made to hang by a test: waiting for ever, or ("busy") holding the event loop for ever. */
function hung(kind: string | undefined): Promise<never> {
  if (kind === "busy") for (;;);
  return new Promise<never>(() => {});
}

/** A phase that did not finish within its bound. */
class PhaseOverrun extends Error {
  constructor(phase: string, boundMs: number) {
    super(`start: ${phase} did not finish within ${boundMs / 1000} s`);
  }
}
