import { keccak256, toHex, type Address, type Hex, type PublicClient } from "viem";
import type { Finality, WebhookSettings } from "../config.js";
import { holdsEscrowSet, type LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Database } from "../store/database.js";
import { mintIntent, type Intent } from "../payments/intent.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { Terms } from "../recurring/terms.js";
import type { SubscriptionCreatedEvent } from "../wire/index.js";
import { notifyUrlProblem } from "../rules/notify-url.js";
import { DeliveryWorker } from "./delivery.js";
import { WatcherCursor } from "./cursor.js";
import { Deliveries } from "./deliveries.js";
import { Watches, type Watch } from "./watches.js";
import { postToTarget, systemResolver, type Resolver } from "./target.js";
import { Watcher } from "./watcher.js";
import { WebhookSigner } from "./signing.js";
import { EventLog } from "./events.js";
import type { WebhookKeysResponse } from "../wire/index.js";
import { everyRound } from "../rounds.js";
import { enqueueHoldRefunded, HoldWatcher } from "./hold-watcher.js";

/** Rows deleted per statement when pruning (bounded, so a prune never holds locks for long). */
export const PRUNE_BATCH = 1000;
/**
 * A watch is pruned once the watcher has read blocks this many seconds past its end: a reorg the
 * watcher rewinds for (64 blocks) re-reads at most that far back.
 */
export const PRUNE_MARGIN_SECONDS = 600;

export interface WebhooksDeps {
  db: Database;
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  tokens: CapabilityTokens;
  settings: WebhookSettings;
  now: () => number;
  logger: Logger;
  /** The subscription id a subscription capability names (INVALID_SUBSCRIPTION otherwise), for POST /v1/events. */
  subscriptionIdOf: (token: string) => Hex;
  /** The hold id a merchant's hold capability names (INVALID_HOLD_TOKEN otherwise), for POST /v1/events; absent without an escrow. */
  holdIdOf?: (token: string) => Hex;
  /** The watcher's first read-back and its longest read, in blocks (WATCHER_BACKFILL_SECONDS, LOG_RANGE_SECONDS). */
  watcherBlocks?: { backfill: bigint; maxRange: bigint };
  /** Test seams: DNS, the receiver's CA and port. */
  resolve?: Resolver;
  ca?: string;
  port?: number;
}

/** Payment watches last until the intent's expiry plus one hour. */
export const PAYMENT_WATCH_GRACE_SECONDS = 3600;

/**
 * Optional webhooks: notify_url rules and caps, the watches, the chain watcher and the delivery
 * worker. A webhook is a hint to look at a payment, never proof of one.
 */
export class Webhooks {
  readonly watcher: Watcher;
  readonly delivery: DeliveryWorker;
  readonly signer: WebhookSigner;
  /** POST /v1/events. */
  readonly events: EventLog;
  /** The holds' events (null without an escrow in the deployment): a consumer of the follower's rounds. */
  readonly holdWatcher: HoldWatcher | null;
  readonly #watches: Watches;
  #stops: Array<() => void> = [];

  constructor(private readonly deps: WebhooksDeps) {
    this.#watches = new Watches(deps.db);
    this.signer = new WebhookSigner(deps.settings.signingKeys, deps.settings.keyOverlapSeconds);
    this.events = new EventLog({
      db: deps.db,
      tokens: deps.tokens,
      signer: this.signer,
      subscriptionIdOf: deps.subscriptionIdOf,
      ...(deps.holdIdOf ? { holdIdOf: deps.holdIdOf } : {}),
      now: deps.now,
    });
    const escrow = holdsEscrowSet(deps.deployment);
    this.holdWatcher = escrow
      ? new HoldWatcher({
          db: deps.db,
          client: deps.client,
          finality: deps.finality,
          chainId: deps.deployment.chainId,
          escrow: escrow.escrow,
          now: deps.now,
          backfillBlocks: deps.watcherBlocks?.backfill ?? 1000n,
          maxRange: deps.watcherBlocks?.maxRange ?? 2000n,
        })
      : null;
    this.watcher = new Watcher({
      client: deps.client,
      deployment: deps.deployment,
      finality: deps.finality,
      db: deps.db,
      now: deps.now,
      intentFor: (w) => this.#intentOf(w),
      ...(deps.watcherBlocks ? { backfillBlocks: deps.watcherBlocks.backfill, maxRange: deps.watcherBlocks.maxRange } : {}),
    });
    this.delivery = new DeliveryWorker({
      db: deps.db,
      now: deps.now,
      post: (url, headers, body) =>
        postToTarget(url, headers, body, {
          timeoutMs: deps.settings.timeoutMs,
          resolve: deps.resolve ?? systemResolver,
          allowLoopback: deps.settings.allowLoopback,
          ...(deps.ca ? { ca: deps.ca } : {}),
          ...(deps.port ? { port: deps.port } : {}),
        }),
      sign: (id, type, body, at) => this.signer.headers(id, type, body, at),
      concurrency: deps.settings.deliveryConcurrency,
      perTarget: deps.settings.targetConcurrency,
      attemptTimeoutMs: deps.settings.timeoutMs,
      onError: (d, error) => deps.logger.info({ event_id: d.eventId, attempts: d.attempts + 1, error }, "webhook delivery failed"),
    });
  }

  /** GET /v1/webhooks/keys: the public keys a delivery may be signed with now. */
  keys(): WebhookKeysResponse {
    return { keys: this.signer.published(this.#nowSeconds()) };
  }

  get enabled(): boolean {
    return this.deps.settings.enabled;
  }

  /** Refuses a notify_url the deployment or the rules do not allow (INVALID_REQUEST). */
  validate(notifyUrl: string): void {
    if (!this.deps.settings.enabled) throw new DomainError("INVALID_REQUEST", { detail: "notify_url: webhooks are disabled in this deployment" });
    const problem = notifyUrlProblem(notifyUrl);
    if (problem) throw new DomainError("INVALID_REQUEST", { detail: `notify_url: ${problem}` });
  }

  /** Whether one more watch fits the caps (per caller and in total): two counter reads, whatever the number of watches. */
  async hasRoom(caller: string): Promise<boolean> {
    const counts = await this.#watches.activeCounts(caller);
    return counts.caller < this.deps.settings.capPerCaller && counts.total < this.deps.settings.capTotal;
  }

  get #caps() {
    return { perCaller: this.deps.settings.capPerCaller, total: this.deps.settings.capTotal };
  }

  /**
   * Deletes watches the watcher has read past (by more than {@link PRUNE_MARGIN_SECONDS}) and
   * delivered or dropped events older than the retention, in bounded batches. Returns the counts.
   */
  async prune(maxBatches = 10): Promise<{ watches: number; deliveries: number }> {
    const cursor = await new WatcherCursor(this.deps.db).get();
    const readUpTo = Math.min(this.#nowSeconds(), cursor?.blockTime ?? 0) - PRUNE_MARGIN_SECONDS;
    const deliveries = new Deliveries(this.deps.db);
    const pruned = { watches: 0, deliveries: 0 };
    for (let i = 0; i < maxBatches; i++) {
      const n = readUpTo > 0 ? await this.#watches.pruneEnded(readUpTo, PRUNE_BATCH) : 0;
      pruned.watches += n;
      if (n < PRUNE_BATCH) break;
    }
    for (let i = 0; i < maxBatches; i++) {
      const n = await deliveries.pruneFinished(this.deps.now() - this.deps.settings.retentionSeconds * 1000, PRUNE_BATCH);
      pruned.deliveries += n;
      if (n < PRUNE_BATCH) break;
    }
    return pruned;
  }

  /**
   * Watches a one-time payment until its intent's expiry plus one hour (payments through a link are
   * covered by the link's watch); `included` also announces it when mined (payment.included).
   */
  async watchPayment(intent: Intent, notifyUrl: string, caller: string, included = false): Promise<boolean> {
    return this.#watches.add(
      {
        kind: "payment",
        key: intent.reference,
        notifyUrl,
        caller,
        linkId: intent.linkId ?? null,
        data: {
          recipient: intent.recipient,
          amount_units: intent.amountUnits.toString(),
          expires_at: intent.expiresAt,
          ...(included ? { included: true } : {}),
        },
        watchUntil: intent.expiresAt + PAYMENT_WATCH_GRACE_SECONDS,
      },
      this.#caps,
    );
  }

  /** Watches a hold made with a notify_url until its refund_before (its events: hold.*); false past the caps. */
  async watchHold(holdId: Hex, notifyUrl: string, caller: string, watchUntil: number): Promise<boolean> {
    return this.#watches.add({ kind: "hold", key: holdId, notifyUrl, caller, linkId: null, data: {}, watchUntil }, this.#caps);
  }

  /** Announces a verified refund of a watched hold (hold.refunded), once per transaction. */
  holdRefunded(holdId: Hex, refund: { txHash: Hex; amountUnits: bigint; blockNumber: bigint; payer: Address }): Promise<void> {
    return enqueueHoldRefunded(this.deps.db, this.deps.now, holdId, { ...refund, createdAt: this.#nowSeconds() });
  }

  /** Keeps a link's notify_url until the link expires (it covers every payment through the link). */
  async watchLink(linkId: Hex, notifyUrl: string, caller: string, expiresAt: number, included = false): Promise<boolean> {
    return this.#watches.add(
      { kind: "link", key: linkId, notifyUrl, caller, linkId, data: included ? { included: true } : {}, watchUntil: expiresAt },
      this.#caps,
    );
  }

  /** Watches a subscription's charges and revocation until its end (or for as long as it has none). */
  async watchSubscription(subscriptionId: Hex, terms: Terms, notifyUrl: string, caller: string, included = false): Promise<boolean> {
    return this.#watches.add(
      {
        kind: "subscription",
        key: subscriptionId,
        notifyUrl,
        caller,
        linkId: null,
        data: { payer: terms.payer, end: Number(terms.end), ...(included ? { included: true } : {}) },
        watchUntil: terms.end === 0n ? Number.MAX_SAFE_INTEGER : Number(terms.end),
      },
      this.#caps,
    );
  }

  /**
   * A payer subscribed through a subscription link and its first charge is settled: watches the subscription's charges and revocation
   * for the link's notify_url (with the link id), in a place of its own under the link caller's caps,
   * until the subscription's end or its revocation, and enqueues subscription.created, whose id is
   * derived from the subscription, so announcing it twice enqueues it once. With no room under the
   * caps nothing is watched or announced (false): the subscriber is still listed with its link.
   */
  async subscribedThroughLink(s: { linkId: Hex; subscriptionId: Hex; payer: Address; end: bigint; notifyUrl: string; caller: string }): Promise<boolean> {
    const watched = await this.#watches.add(
      {
        kind: "subscription",
        key: s.subscriptionId,
        notifyUrl: s.notifyUrl,
        caller: s.caller,
        linkId: s.linkId,
        data: { payer: s.payer, end: Number(s.end) },
        watchUntil: s.end === 0n ? Number.MAX_SAFE_INTEGER : Number(s.end),
      },
      this.#caps,
    );
    if (!watched) return false;
    const type = "subscription.created";
    const eventId = `evt_${keccak256(toHex(`${type}:${s.subscriptionId}:${s.notifyUrl}`)).slice(2, 34)}`;
    const payload: SubscriptionCreatedEvent = {
      id: eventId,
      type,
      created_at: this.#nowSeconds(),
      // Announced once the first charge is settled (a link's subscriber is watched from then on).
      data: { link_id: s.linkId, subscription_id: s.subscriptionId, payer: s.payer, state: "ACTIVE", paid_count: 1 },
    };
    // Filed like the subscription's later events, so POST /v1/events reads it back by the link or the subscription.
    await new Deliveries(this.deps.db).enqueue({
      eventId,
      eventType: type,
      notifyUrl: s.notifyUrl,
      payload,
      dueAt: this.deps.now(),
      subjects: { linkId: s.linkId, subscriptionId: s.subscriptionId },
    });
    return true;
  }

  /** Stops the watch of a subscriber the link's merchant removed (its place under the caps is free at once). */
  endLinkSubscriber(linkId: Hex, subscriptionId: Hex): Promise<void> {
    return this.#watches.endForLinkSubscriber(linkId, subscriptionId);
  }

  /** Stops a link's watch and the watches of every payment minted through it (its subscriptions go on, and so do their events). */
  endLink(linkId: Hex): Promise<void> {
    return this.#watches.endForLink(linkId);
  }

  /**
   * Runs the delivery worker and the pruning on timers (the chain follower's rounds drive the
   * watcher); tests call them directly.
   */
  start(): void {
    const loop = (name: string, every: number, run: () => Promise<unknown>) => {
      this.#stops.push(
        everyRound(every, run, (error) => this.deps.logger.warn({ loop: name, error: (error as Error).message.split("\n")[0] }, "webhook loop failed")),
      );
    };
    if (!this.deps.settings.enabled) return;
    loop("prune", this.deps.settings.pruneIntervalMs, () => this.prune());
    this.delivery.start(this.deps.settings.deliveryIntervalMs, (error) =>
      this.deps.logger.warn({ loop: "delivery", error: (error as Error).message.split("\n")[0] }, "webhook loop failed"),
    );
  }

  stop(): void {
    for (const stop of this.#stops.splice(0)) stop();
    this.delivery.stop();
  }

  #intentOf(watch: Watch): string {
    return mintIntent(this.deps.tokens, {
      recipient: watch.data.recipient as Hex,
      amountUnits: BigInt(watch.data.amount_units as string),
      reference: watch.key as Hex,
      expiresAt: watch.data.expires_at as number,
      ...(watch.linkId ? { linkId: watch.linkId as Hex } : {}),
    });
  }

  #nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }
}
