import type { Database } from "../store/database.js";
import { Deliveries, type Delivery } from "./deliveries.js";

/** Retries after 1 minute, 5 minutes, 30 minutes, 2 hours, 6 hours, 12 hours; then the event is dropped. */
export const RETRY_SCHEDULE_SECONDS = [60, 300, 1800, 7200, 21600, 43200] as const;

export type Post = (url: string, headers: Record<string, string>, body: string) => Promise<number>;

export interface DeliveryDeps {
  db: Pick<Database, "query">;
  post: Post;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** How long a taken delivery is held before another instance may take it (ms). */
  leaseMs?: number;
  /** Attempts in flight at once in this instance, over every target. */
  concurrency?: number;
  /** Attempts in flight at once to one target (a notify_url's host and port). */
  perTarget?: number;
  onError?: (delivery: Delivery, error: string) => void;
  /** The signed headers of one attempt (signing.ts), made at the attempt's own time. */
  sign: (eventId: string, eventType: string, body: string, nowSeconds: number) => Record<string, string>;
}

/**
 * Delivers due webhook events: POST the stored body with `svc-event-id`, `svc-event-type` and
 * Standard Webhooks' signed headers (signed at each attempt, so a retry's timestamp is fresh); any 2xx
 * acknowledges; anything else (non-2xx, a redirect, a timeout, a refused target) is retried on the
 * schedule. Rows are leased, so several instances never send the same attempt twice, and a crashed
 * instance's lease simply runs out.
 *
 * Attempts run concurrently, at most `concurrency` in this instance and `perTarget` per target: a
 * slow receiver fills only its own slots (its further rows stay in the table, unleased, for later or
 * for another instance) while other targets keep being served.
 */
export class DeliveryWorker {
  readonly #deliveries: Deliveries;
  readonly #inFlight = new Map<string, number>();
  #running = 0;
  #timer: NodeJS.Timeout | null = null;
  #pumping: Promise<number> | null = null;
  #again = false;

  constructor(private readonly deps: DeliveryDeps) {
    this.#deliveries = new Deliveries(deps.db);
  }

  get #concurrency(): number {
    return this.deps.concurrency ?? 64;
  }

  get #perTarget(): number {
    return this.deps.perTarget ?? 8;
  }

  /**
   * Attempts every delivery due now, as the slots allow (a target's rows past its slots wait for
   * them), and waits for those attempts; returns how many were attempted.
   */
  async runDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const started = await this.#startDue();
      if (started.length === 0) return total;
      total += started.length;
      await Promise.all(started);
    }
  }

  /**
   * Starts due deliveries while slots are free, without waiting for them to finish (the timer's
   * loop: a finished attempt pumps again). Returns how many it started.
   */
  pump(): Promise<number> {
    if (this.#pumping) {
      this.#again = true;
      return this.#pumping;
    }
    this.#pumping = (async () => {
      let total = 0;
      try {
        do {
          this.#again = false;
          const started = await this.#startDue();
          total += started.length;
          if (started.length > 0) this.#again ||= this.#running < this.#concurrency;
        } while (this.#again);
      } finally {
        this.#pumping = null;
      }
      return total;
    })();
    return this.#pumping;
  }

  /** Pumps every `intervalMs` and after each finished attempt, until stopped. */
  start(intervalMs: number, onFailure: (error: unknown) => void): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.pump().catch(onFailure), intervalMs);
    this.#timer.unref();
    this.#onFailure = onFailure;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #onFailure: ((error: unknown) => void) | null = null;

  /**
   * Leases what fits the free slots (skipping full targets) and starts each. A target's rows past its
   * slots wait here for them, up to as many again as its slots (they finish well within the lease:
   * each waits at most two attempts); the rest are given back at once.
   */
  async #startDue(): Promise<Promise<void>[]> {
    const free = this.#concurrency - this.#running - this.#waitingCount;
    if (free <= 0) return [];
    const full = [...this.#inFlight].filter(([t, n]) => n + (this.#waiting.get(t)?.length ?? 0) >= 2 * this.#perTarget).map(([t]) => t);
    // Leasing rows only to give them back costs a write each: when a lease brought back more than the
    // slots could take (one busy target), the next one asks for less; when it was all used, more.
    const limit = Math.min(free, this.#leaseSize);
    const leased = await this.#deliveries.leaseDue(this.deps.now(), this.deps.leaseMs ?? 60_000, limit, full);
    const started: Promise<void>[] = [];
    const giveBack: string[] = [];
    for (const delivery of leased) {
      const inFlight = this.#inFlight.get(delivery.target) ?? 0;
      if (inFlight < this.#perTarget && this.#running < this.#concurrency) {
        started.push(this.#run(delivery));
        continue;
      }
      const waiting = this.#waiting.get(delivery.target) ?? [];
      if (inFlight > 0 && waiting.length < this.#perTarget) {
        waiting.push(delivery);
        this.#waiting.set(delivery.target, waiting);
        this.#waitingCount++;
        started.push(new Promise<void>((resolve) => this.#waitingDone.set(delivery.eventId, resolve)));
      } else {
        giveBack.push(delivery.eventId);
      }
    }
    await this.#deliveries.release(giveBack);
    if (giveBack.length > 0) this.#leaseSize = Math.max(2 * this.#perTarget, Math.floor(this.#leaseSize / 2));
    else if (leased.length === limit) this.#leaseSize = Math.min(this.#concurrency, this.#leaseSize * 2);
    return started;
  }

  #leaseSize = Number.MAX_SAFE_INTEGER;

  readonly #waiting = new Map<string, Delivery[]>();
  readonly #waitingDone = new Map<string, () => void>();
  #waitingCount = 0;

  /** Runs one attempt in a slot of its target; when it ends, the target's next waiting row takes the slot. */
  #run(delivery: Delivery): Promise<void> {
    this.#inFlight.set(delivery.target, (this.#inFlight.get(delivery.target) ?? 0) + 1);
    this.#running++;
    return this.#attempt(delivery).finally(() => {
      this.#running--;
      const left = this.#inFlight.get(delivery.target)! - 1;
      if (left === 0) this.#inFlight.delete(delivery.target);
      else this.#inFlight.set(delivery.target, left);
      const next = this.#waiting.get(delivery.target)?.shift();
      if (next) {
        this.#waitingCount--;
        if (this.#waiting.get(delivery.target)!.length === 0) this.#waiting.delete(delivery.target);
        const done = this.#waitingDone.get(next.eventId)!;
        this.#waitingDone.delete(next.eventId);
        void this.#run(next).then(done);
        return; // the slot is taken again without a store read
      }
      if (this.#timer) this.pump().catch((error) => this.#onFailure?.(error));
    });
  }

  #acks: { ids: string[]; done: Promise<void> } | null = null;

  /** Records acknowledgements together: those that arrive in the same turn share one UPDATE. */
  #acknowledge(eventId: string): Promise<void> {
    if (!this.#acks) {
      const batch = { ids: [] as string[], done: Promise.resolve() };
      batch.done = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.#acks = null;
        return this.#deliveries.markDelivered(batch.ids, this.deps.now());
      });
      this.#acks = batch;
    }
    this.#acks.ids.push(eventId);
    return this.#acks.done;
  }

  async #attempt(delivery: Delivery): Promise<void> {
    let failure: string;
    try {
      const headers = this.deps.sign(delivery.eventId, delivery.eventType, delivery.body, Math.floor(this.deps.now() / 1000));
      const status = await this.deps.post(delivery.notifyUrl, { ...headers, "user-agent": "svc-webhooks/1" }, delivery.body);
      if (status >= 200 && status < 300) {
        // Unrecorded (the store unreachable), the lease runs out and the event is sent again: at least once.
        await this.#acknowledge(delivery.eventId).catch((error) => this.#onFailure?.(error));
        return;
      }
      failure = `HTTP ${status}`;
    } catch (error) {
      failure = (error as Error).name === "AbortError" || (error as Error).name === "TimeoutError" ? "timeout" : (error as Error).message;
    }
    try {
      const retryIn = RETRY_SCHEDULE_SECONDS[delivery.attempts];
      await this.#deliveries.markFailed(delivery.eventId, failure, retryIn === undefined ? null : this.deps.now() + retryIn * 1000);
      this.deps.onError?.(delivery, failure);
    } catch (error) {
      // The store is unreachable: the lease runs out and the attempt is made again.
      this.#onFailure?.(error);
    }
  }
}
