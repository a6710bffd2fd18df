import type { Hex, PublicClient } from "viem";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { ServiceError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Database } from "../store/database.js";
import { mintIntent, type Intent } from "../payments/intent.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { Terms } from "../recurring/terms.js";
import { notifyUrlProblem } from "./notify-url.js";
import { DeliveryWorker } from "./delivery.js";
import { Watches, type Watch } from "./store.js";
import { postToTarget, systemResolver, type Resolver } from "./target.js";
import { Watcher } from "./watcher.js";

export interface WebhookSettings {
  enabled: boolean;
  /** Test-only: loopback targets allowed (refused in production configuration). */
  allowLoopback: boolean;
  timeoutMs: number;
  capPerCaller: number;
  capTotal: number;
  watcherIntervalMs: number;
  deliveryIntervalMs: number;
}

export interface WebhooksDeps {
  db: Database;
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  tokens: CapabilityTokens;
  settings: WebhookSettings;
  now: () => number;
  logger: Logger;
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
  readonly #watches: Watches;
  #timers: NodeJS.Timeout[] = [];

  constructor(private readonly deps: WebhooksDeps) {
    this.#watches = new Watches(deps.db);
    this.watcher = new Watcher({
      client: deps.client,
      deployment: deps.deployment,
      finality: deps.finality,
      db: deps.db,
      now: deps.now,
      intentFor: (w) => this.#intentOf(w),
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
      onError: (d, error) => deps.logger.info({ event_id: d.eventId, attempts: d.attempts + 1, error }, "webhook delivery failed"),
    });
  }

  get enabled(): boolean {
    return this.deps.settings.enabled;
  }

  /** Refuses a notify_url the deployment or the rules do not allow (INVALID_REQUEST). */
  validate(notifyUrl: string): void {
    if (!this.deps.settings.enabled) throw new ServiceError("INVALID_REQUEST", { detail: "webhooks are disabled in this deployment" });
    const problem = notifyUrlProblem(notifyUrl);
    if (problem) throw new ServiceError("INVALID_REQUEST", { detail: `notify_url: ${problem}` });
  }

  /** Whether one more watch fits the caps (per caller and in total). */
  async hasRoom(caller: string): Promise<boolean> {
    const counts = await this.#watches.activeCounts(caller, this.#nowSeconds());
    return counts.caller < this.deps.settings.capPerCaller && counts.total < this.deps.settings.capTotal;
  }

  /** Watches a one-time payment until its intent's expiry plus one hour (payments through a link are covered by the link's watch). */
  async watchPayment(intent: Intent, notifyUrl: string, caller: string): Promise<boolean> {
    if (!(await this.hasRoom(caller))) return false;
    await this.#watches.add({
      kind: "payment",
      key: intent.reference,
      notifyUrl,
      caller,
      linkId: intent.linkId ?? null,
      data: { recipient: intent.recipient, amount_units: intent.amountUnits.toString(), expires_at: intent.expiresAt },
      watchUntil: intent.expiresAt + PAYMENT_WATCH_GRACE_SECONDS,
    });
    return true;
  }

  /** Keeps a link's notify_url until the link expires (it covers every payment through the link). */
  async watchLink(linkId: Hex, notifyUrl: string, caller: string, expiresAt: number): Promise<boolean> {
    if (!(await this.hasRoom(caller))) return false;
    await this.#watches.add({ kind: "link", key: linkId, notifyUrl, caller, linkId, data: {}, watchUntil: expiresAt });
    return true;
  }

  /** Watches a subscription's charges and revocation until its end (or for as long as it has none). */
  async watchSubscription(subscriptionId: Hex, terms: Terms, notifyUrl: string, caller: string): Promise<boolean> {
    if (!(await this.hasRoom(caller))) return false;
    await this.#watches.add({
      kind: "subscription",
      key: subscriptionId,
      notifyUrl,
      caller,
      linkId: null,
      data: { payer: terms.payer, end: Number(terms.end) },
      watchUntil: terms.end === 0n ? Number.MAX_SAFE_INTEGER : Number(terms.end),
    });
    return true;
  }

  /** Stops a link's watch and the watches of every payment minted through it. */
  endLink(linkId: Hex): Promise<void> {
    return this.#watches.endForLink(linkId);
  }

  /** Runs the watcher and the delivery worker on timers (npm start); tests call them directly. */
  start(): void {
    const loop = (name: string, every: number, run: () => Promise<unknown>) => {
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        run()
          .catch((error) => this.deps.logger.warn({ loop: name, error: (error as Error).message.split("\n")[0] }, "webhook loop failed"))
          .finally(() => (busy = false));
      }, every);
      timer.unref();
      this.#timers.push(timer);
    };
    if (!this.deps.settings.enabled) return;
    loop("watcher", this.deps.settings.watcherIntervalMs, () => this.watcher.tick());
    loop("delivery", this.deps.settings.deliveryIntervalMs, () => this.delivery.runDue());
  }

  stop(): void {
    for (const t of this.#timers.splice(0)) clearInterval(t);
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
