import type { Database } from "../store/database.js";
import { Deliveries, type Delivery } from "./store.js";

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
  batch?: number;
  onError?: (delivery: Delivery, error: string) => void;
}

/**
 * Delivers due webhook events: POST JSON with `svc-event-id` and `svc-event-type`; any 2xx
 * acknowledges; anything else (non-2xx, a redirect, a timeout, a refused target) is retried on the
 * schedule. Rows are leased, so several instances never send the same attempt twice, and a crashed
 * instance's lease simply runs out.
 */
export class DeliveryWorker {
  readonly #deliveries: Deliveries;

  constructor(private readonly deps: DeliveryDeps) {
    this.#deliveries = new Deliveries(deps.db);
  }

  /** Attempts every delivery due now; returns how many were attempted. */
  async runDue(): Promise<number> {
    const due = await this.#deliveries.leaseDue(this.deps.now(), this.deps.leaseMs ?? 60_000, this.deps.batch ?? 20);
    await Promise.all(due.map((d) => this.#attempt(d)));
    return due.length;
  }

  async #attempt(delivery: Delivery): Promise<void> {
    let failure: string;
    try {
      const status = await this.deps.post(delivery.notifyUrl, { "svc-event-id": delivery.eventId, "svc-event-type": delivery.eventType, "user-agent": "svc-webhooks/1" }, JSON.stringify(delivery.payload));
      if (status >= 200 && status < 300) {
        await this.#deliveries.markDelivered(delivery.eventId);
        return;
      }
      failure = `HTTP ${status}`;
    } catch (error) {
      failure = (error as Error).name === "AbortError" || (error as Error).name === "TimeoutError" ? "timeout" : (error as Error).message;
    }
    const retryIn = RETRY_SCHEDULE_SECONDS[delivery.attempts];
    await this.#deliveries.markFailed(delivery.eventId, failure, retryIn === undefined ? null : this.deps.now() + retryIn * 1000);
    this.deps.onError?.(delivery, failure);
  }
}
