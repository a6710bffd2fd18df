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
