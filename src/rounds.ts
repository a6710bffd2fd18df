/**
 * Runs `round` every `everyMs` on a timer that does not keep the process alive, never two rounds at
 * once (a tick that finds the last round still running is skipped); a failed round goes to
 * `onFailure` and the next tick runs as usual. Returns the function that stops it.
 */
export function everyRound(everyMs: number, round: () => Promise<unknown>, onFailure: (error: unknown) => void): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    round()
      .catch(onFailure)
      .finally(() => (busy = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Runs `round` again and again, each start at least `everyMs` after the one before (at once when a
 * round took longer), on a timer that does not keep the process alive; a failed round goes to
 * `onFailure`. Unlike {@link everyRound}, a round slower than the period is followed at once rather
 * than at the next tick (what a loop that must keep pace with Base's 200 ms blocks wants). Returns the
 * function that stops it.
 */
export function backToBackRounds(everyMs: number, round: () => Promise<unknown>, onFailure: (error: unknown) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const next = (startedAt: number) => {
    if (stopped) return;
    timer = setTimeout(run, Math.max(0, startedAt + everyMs - Date.now()));
    timer.unref();
  };
  const run = () => {
    const startedAt = Date.now();
    round()
      .catch(onFailure)
      .finally(() => next(startedAt));
  };
  next(Date.now());
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
