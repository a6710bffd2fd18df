import type { Database } from "../store/database.js";
import { Deliveries, type Delivery, type FirstSigning } from "./deliveries.js";

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
  /**
   * The longest one attempt can take (the receiver's timeout, ms). A target's leased rows wait for
   * its slots only as many rounds of attempts as fit in the lease, so none outlives its lease.
   */
  attemptTimeoutMs?: number;
  /** How long acknowledgements may gather before they are recorded together (ms). */
  ackDelayMs?: number;
  onError?: (delivery: Delivery, error: string) => void;
  /** The signed headers of one attempt (signing.ts), made at `nowSeconds`. */
  sign: (eventId: string, eventType: string, body: string, nowSeconds: number) => Record<string, string>;
}

/**
 * Delivers due webhook events: POST the stored body with `svc-event-id`, `svc-event-type` and
 * Standard Webhooks' signed headers (the first attempt's signing is kept, and POST /v1/events answers
 * it; a retry is signed at its own time, so a receiver's timestamp tolerance accepts it); any 2xx
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
   * Rows of one target held waiting for its slots: a slot's worth per round of attempts that fits in
   * the lease besides the row's own attempt and one round to spare (each round lasts at most the
   * attempt timeout), between one and eight slots' worth. Leasing a fast target's rows in larger batches costs fewer store writes.
   */
  get #waitingCap(): number {
    const rounds = this.deps.attemptTimeoutMs ? Math.floor((this.deps.leaseMs ?? 60_000) / this.deps.attemptTimeoutMs) - 2 : 1;
    return this.#perTarget * Math.min(8, Math.max(1, rounds));
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

  /** Pumps now, then every `intervalMs` and after each finished attempt, until stopped. */
  start(intervalMs: number, onFailure: (error: unknown) => void): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.pump().catch(onFailure), intervalMs);
    this.#timer.unref();
    this.#onFailure = onFailure;
    // What is due now goes at once, not one interval later.
    this.pump().catch(onFailure);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #onFailure: ((error: unknown) => void) | null = null;

  /**
   * Leases what fits the free slots (skipping full targets) and starts each. A target's rows past its
   * slots wait here for them, up to {@link #waitingCap} (they finish within the lease); the rest are
   * given back at once.
   */
  #startDue(): Promise<Promise<void>[]> {
    return this.#oneLeaseAtATime(() => this.#leaseAndStart());
  }

  /**
   * Leases run one at a time (the pump's and each target's refill): each computes the room it leases
   * for once the one before has placed its rows, so none brings back rows another lease has already
   * filled the places of, to be given back (each a write twice over for nothing).
   */
  #oneLeaseAtATime<T>(lease: () => Promise<T>): Promise<T> {
    const result = this.#leasing.then(lease);
    this.#leasing = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  #leasing: Promise<void> = Promise.resolve();

  async #leaseAndStart(): Promise<Promise<void>[]> {
    const free = this.#concurrency + this.#waitingCapTotal - this.#running - this.#waitingCount;
    if (free <= 0) return [];
    // A target with attempts in flight is leased by its own refill (#refill, exactly the room it has):
    // leased here too, its rows would come back beyond its slots and waiting places, to be given back.
    const busy = [...this.#inFlight.keys()];
    // Leasing rows only to give them back costs a write each: when a lease brought back more than the
    // slots could take (one busy target), the next one asks for less; when it was all used, more.
    this.#leaseSize ||= this.#perTarget + this.#waitingCap;
    const limit = Math.min(free, this.#leaseSize);
    const leased = await this.#deliveries.leaseDue(this.deps.now(), this.deps.leaseMs ?? 60_000, limit, busy);
    const { started, giveBack } = this.#place(leased);
    await this.#deliveries.release(giveBack);
    if (giveBack.length > 0) this.#leaseSize = Math.max(this.#perTarget + this.#waitingCap, Math.floor(this.#leaseSize / 2));
    else if (leased.length === limit) this.#leaseSize = Math.min(this.#concurrency + this.#waitingCapTotal, this.#leaseSize * 2);
    return started;
  }

  /** Starts leased rows in free slots, holds a target's next rows waiting for its slots, and names the rest to give back. */
  #place(leased: Delivery[]): { started: Promise<void>[]; giveBack: string[] } {
    const started: Promise<void>[] = [];
    const giveBack: string[] = [];
    for (const delivery of leased) {
      const inFlight = this.#inFlight.get(delivery.target) ?? 0;
      if (inFlight < this.#perTarget && this.#running < this.#concurrency) {
        started.push(this.#run(delivery));
        continue;
      }
      const waiting = this.#waiting.get(delivery.target) ?? [];
      if (inFlight > 0 && waiting.length < this.#waitingCap && this.#waitingCount < this.#waitingCapTotal) {
        waiting.push(delivery);
        this.#waiting.set(delivery.target, waiting);
        this.#waitingCount++;
        started.push(new Promise<void>((resolve) => this.#waitingDone.set(delivery.eventId, resolve)));
      } else {
        giveBack.push(delivery.eventId);
      }
    }
    return { started, giveBack };
  }

  readonly #refilling = new Set<string>();

  /**
   * Leases more of one busy target's rows, as many as its slots and waiting places have room for
   * (none to give back), while its slots still have work: the store is read once per batch of that
   * target's rows rather than once per attempt.
   */
  async #refill(target: string): Promise<void> {
    if (this.#refilling.has(target)) return;
    this.#refilling.add(target);
    try {
      await this.#oneLeaseAtATime(() => this.#refillNow(target));
    } finally {
      this.#refilling.delete(target);
    }
  }

  async #refillNow(target: string): Promise<void> {
    const room = Math.min(
      this.#perTarget + this.#waitingCap - (this.#inFlight.get(target) ?? 0) - (this.#waiting.get(target)?.length ?? 0),
      this.#waitingCapTotal - this.#waitingCount,
    );
    if (room <= 0) return;
    const leased = await this.#deliveries.leaseDue(this.deps.now(), this.deps.leaseMs ?? 60_000, room, [], target);
    await this.#deliveries.release(this.#place(leased).giveBack);
  }

  /** Rows held waiting over every target: as many as the instance's slots times the per-target ratio. */
  get #waitingCapTotal(): number {
    return this.#concurrency * (this.#waitingCap / this.#perTarget);
  }

  #leaseSize = 0;

  readonly #waiting = new Map<string, Delivery[]>();
  readonly #waitingDone = new Map<string, () => void>();
  #waitingCount = 0;

  /**
   * Runs one attempt in a slot of its target; once the receiver has answered, the target's next
   * waiting row takes the slot (an acknowledgement is recorded with others, without holding a slot).
   * Resolves when the attempt's outcome is recorded.
   */
  #run(delivery: Delivery): Promise<void> {
    this.#inFlight.set(delivery.target, (this.#inFlight.get(delivery.target) ?? 0) + 1);
    this.#running++;
    const answered = this.#attempt(delivery);
    return answered.then(
      ({ recorded }) => recorded,
      () => {},
    );
  }

  /** Frees a finished attempt's slot: the target's next waiting row takes it, or the queue is pumped. */
  #free(delivery: Delivery): void {
    this.#running--;
    const left = this.#inFlight.get(delivery.target)! - 1;
    if (left === 0) this.#inFlight.delete(delivery.target);
    else this.#inFlight.set(delivery.target, left);
    const next = this.#waiting.get(delivery.target)?.shift();
    if (next) {
      this.#waitingCount--;
      const left = this.#waiting.get(delivery.target)!.length;
      if (left === 0) this.#waiting.delete(delivery.target);
      const done = this.#waitingDone.get(next.eventId)!;
      this.#waitingDone.delete(next.eventId);
      void this.#run(next).then(done);
      // The slot is taken again without a store read; the target's rows are leased again once they
      // run low, while its slots still have work, so they never sit idle waiting for the store.
      if (left === Math.floor(this.#waitingCap / 2) && this.#timer) this.#refill(delivery.target).catch((error) => this.#onFailure?.(error));
      return;
    }
    if (!this.#timer) return;
    // Still busy: its next rows come by its own refill; idle: the pump leases for it and the others.
    if (left > 0) this.#refill(delivery.target).catch((error) => this.#onFailure?.(error));
    else this.pump().catch((error) => this.#onFailure?.(error));
  }

  #acks: { ids: string[]; signed: (FirstSigning | null)[]; done: Promise<void> } | null = null;
  #recording: Promise<void> = Promise.resolve();

  /**
   * Records acknowledgements together: those that arrive within `ackDelayMs`, and while the previous
   * batch is being written, share one UPDATE (one write at a time). An acknowledgement not yet
   * recorded is only a lease that runs out: the event is sent again, at least once.
   */
  #acknowledge(eventId: string, signed: FirstSigning | null): Promise<void> {
    if (!this.#acks) {
      const batch = { ids: [] as string[], signed: [] as (FirstSigning | null)[], done: Promise.resolve() };
      const gathered = new Promise<void>((resolve) => {
        const delay = this.deps.ackDelayMs ?? 10;
        if (delay > 0) setTimeout(resolve, delay);
        else setImmediate(resolve);
      });
      batch.done = Promise.all([gathered, this.#recording.catch(() => {})]).then(() => {
        this.#acks = null;
        return this.#deliveries.markDelivered(batch.ids, this.deps.now(), batch.signed);
      });
      this.#recording = batch.done;
      this.#acks = batch;
    }
    this.#acks.ids.push(eventId);
    this.#acks.signed.push(signed);
    return this.#acks.done;
  }

  /** POSTs one delivery; resolves once the slot can be freed, with the recording of the outcome. */
  async #attempt(delivery: Delivery): Promise<{ recorded: Promise<void> }> {
    let failure: string;
    // The first attempt sends the event's first signing when a read-back already made it; a retry is
    // signed afresh. Whichever is recorded first is the event's first signing for good.
    const kept = delivery.attempts === 0 ? delivery.signed : null;
    const headers = this.deps.sign(delivery.eventId, delivery.eventType, delivery.body, kept?.at ?? Math.floor(this.deps.now() / 1000));
    if (kept) headers["webhook-signature"] = kept.signature;
    const [timestamp, signature] = [headers["webhook-timestamp"], headers["webhook-signature"]];
    const signed: FirstSigning | null = timestamp !== undefined && signature !== undefined ? { at: Number(timestamp), signature } : null;
    try {
      const status = await this.deps.post(delivery.notifyUrl, { ...headers, "user-agent": "svc-webhooks/1" }, delivery.body);
      if (status >= 200 && status < 300) {
        this.#free(delivery);
        // Unrecorded (the store unreachable), the lease runs out and the event is sent again: at least once.
        return { recorded: this.#acknowledge(delivery.eventId, signed).catch((error) => this.#onFailure?.(error)) };
      }
      failure = `HTTP ${status}`;
    } catch (error) {
      failure = (error as Error).name === "AbortError" || (error as Error).name === "TimeoutError" ? "timeout" : (error as Error).message;
    }
    // A failure is recorded before its slot is freed: the next attempt of the target sees it.
    try {
      await this.#recordFailure(delivery, failure, signed);
    } finally {
      this.#free(delivery);
    }
    return { recorded: Promise.resolve() };
  }

  async #recordFailure(delivery: Delivery, failure: string, signed: FirstSigning | null): Promise<void> {
    try {
      const retryIn = RETRY_SCHEDULE_SECONDS[delivery.attempts];
      await this.#deliveries.markFailed(delivery.eventId, failure, retryIn === undefined ? null : this.deps.now() + retryIn * 1000, signed);
      this.deps.onError?.(delivery, failure);
    } catch (error) {
      // The store is unreachable: the lease runs out and the attempt is made again.
      this.#onFailure?.(error);
    }
  }
}
