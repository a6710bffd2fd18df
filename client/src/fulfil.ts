/**
 * Fulfilment exactly once per key (reference + transaction), whatever repeats: webhooks, retries,
 * a buyer reloading the return page, two workers.
 */

/**
 * Where you record what was fulfilled (your database); a `Set` works for one process.
 *
 * The contract: `has(key)` is true only for keys `add` recorded; `add` is called only after your
 * `fulfil` resolved, and must be durable before it returns. Within one process, {@link fulfilOnce}
 * itself runs concurrent calls with the same key once. With several processes (or machines), give the
 * ledger `claim`: an atomic take of the key that only one caller can win (an `INSERT … ON CONFLICT DO
 * NOTHING` of a row in state "fulfilling", true when a row was inserted), and `release`, which gives the
 * key back when `fulfil` failed (delete that row), so a later call fulfils. A claim left by a process
 * that died mid-fulfil stays taken until you release it: your fulfil should be idempotent enough for
 * you to release such claims after a timeout.
 */
export interface FulfilmentLedger {
  has(key: string): boolean | Promise<boolean>;
  add(key: string): unknown;
  claim?(key: string): boolean | Promise<boolean>;
  release?(key: string): unknown;
}

/** Keys being fulfilled in this process, per ledger: a concurrent call waits for the first one. */
const running = new WeakMap<FulfilmentLedger, Map<string, Promise<boolean>>>();

/**
 * Runs `fulfil` once per key and records the key only after `fulfil` resolved: a failed fulfil
 * (thrown or rejected) records nothing, and a later call runs it again. Concurrent calls with the
 * same key on the same ledger run it once: the others wait for it and answer false (or throw its
 * error). Returns whether this call ran it.
 */
export async function fulfilOnce(ledger: FulfilmentLedger, key: string, fulfil: () => Promise<void> | void): Promise<boolean> {
  const inFlight = running.get(ledger) ?? new Map<string, Promise<boolean>>();
  running.set(ledger, inFlight);
  const first = inFlight.get(key);
  if (first) {
    await first;
    return false;
  }
  const run = (async () => {
    if (await ledger.has(key)) return false;
    if (ledger.claim && !(await ledger.claim(key))) return false;
    try {
      await fulfil();
    } catch (error) {
      if (ledger.claim) await ledger.release?.(key);
      throw error;
    }
    await ledger.add(key);
    return true;
  })();
  inFlight.set(key, run);
  try {
    return await run;
  } finally {
    inFlight.delete(key);
  }
}
