import type { Address, Hex } from "viem";
import type { HeadFeed, LogFilter } from "./follower-types.js";

/**
 * The recipients whose transfers are pushed are looked up at most this often, and the `logs`
 * subscriptions re-made only when they changed: a payment address opened meanwhile is found by the
 * rounds' reads (every FOLLOW_INTERVAL_MS) until its transfers are pushed too.
 */
export const RECIPIENTS_REFRESH_MS = 10_000;

/** What the follower's feed pushes, from the follower's own deps (chain/follower.ts, `FollowerDeps`). */
export interface PushedFiltersDeps {
  /** The contracts and token whose logs the consumers need: pushed whole without {@link pushFilters}. */
  filter: { address: Address[]; topics: Hex[] };
  feed?: HeadFeed | null;
  /** Our contracts' events and the token's transfers to the given recipients only. */
  pushFilters?: (recipients: Address[]) => LogFilter[];
  now: () => number;
}

/**
 * The `logs` subscriptions of the follower's WebSocket feed: our contracts' events and the token's
 * transfers to our recipients (open payment addresses, x402 receivers), so strangers' transfers push
 * nothing. Re-made when the recipients change, one re-making at a time.
 */
export class PushedFilters {
  #recipients: (() => Promise<Address[]>) | null = null;
  /** The filters subscribed, as JSON: empty until the feed's first subscription. */
  #key = "";
  #lookedUpAt = -Infinity;
  #resubscribing: Promise<void> | null = null;
  #changedAgain = false;

  constructor(
    private readonly deps: PushedFiltersDeps,
    private readonly stopped: () => boolean,
    private readonly onFailure: (where: string, error: unknown) => void,
  ) {}

  /** Where our recipients come from. */
  from(recipients: () => Promise<Address[]>): void {
    this.#recipients = recipients;
  }

  /** The filters the feed pushes now: our contracts' events and the transfers to our recipients (all of `filter` without `pushFilters`). */
  async current(): Promise<LogFilter[]> {
    const { pushFilters, filter } = this.deps;
    this.#lookedUpAt = this.deps.now();
    if (!pushFilters) return [{ address: filter.address, topics: [filter.topics] }];
    const recipients = this.#recipients ? await this.#recipients() : [];
    return pushFilters([...new Set(recipients.map((r) => r.toLowerCase() as Address))].sort());
  }

  /** The feed subscribed these filters. */
  subscribed(filters: LogFilter[]): void {
    this.#key = JSON.stringify(filters);
  }

  /**
   * Our recipients changed here (a payment address opened): the `logs` subscriptions are re-made at
   * once (one at a time; changes meanwhile join the next). Other instances' changes, and watches
   * that ended, are seen by {@link refresh} every {@link RECIPIENTS_REFRESH_MS}.
   */
  changed(): Promise<void> {
    if (this.stopped() || !this.deps.feed || !this.deps.pushFilters || !this.#key) return Promise.resolve();
    if (this.#resubscribing) {
      this.#changedAgain = true;
      return this.#resubscribing;
    }
    this.#resubscribing = (async () => {
      try {
        do {
          this.#changedAgain = false;
          await this.#resubscribe();
        } while (this.#changedAgain && !this.stopped());
      } catch (error) {
        this.onFailure("follower", error);
      } finally {
        this.#resubscribing = null;
      }
    })();
    return this.#resubscribing;
  }

  /** Looks our recipients up again (at most every {@link RECIPIENTS_REFRESH_MS}) and re-makes the subscriptions if they changed. */
  async refresh(): Promise<void> {
    if (this.deps.now() - this.#lookedUpAt < RECIPIENTS_REFRESH_MS) return;
    await this.changed();
  }

  async #resubscribe(): Promise<void> {
    const filters = await this.current();
    const key = JSON.stringify(filters);
    if (key === this.#key) return;
    await this.deps.feed!.resubscribe(filters);
    this.#key = key;
  }
}
