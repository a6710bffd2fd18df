import { isAddressEqual, keccak256, toHex, type Address, type Hex, type PublicClient } from "viem";
import { CHARGED_EVENT, RecurringChargesReader, REVOKED_EVENT } from "../chain/contracts/recurring-charges.js";
import { PAID_EVENT } from "../chain/contracts/splitter.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { finalityHead } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import type { Database } from "../store/database.js";
import { subscriptionState } from "../recurring/terms.js";
import { LinkRecords } from "../links/records.js";
import { WatcherCursor } from "./cursor.js";
import { Deliveries } from "./deliveries.js";
import { Watches, type Watch } from "./watches.js";
import type { SubscriptionChargedEvent, SubscriptionRevokedEvent, WebhookEvent } from "../wire/index.js";

const EVENTS = [PAID_EVENT, CHARGED_EVENT, REVOKED_EVENT];

export interface WatcherDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  db: Database;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Rebuilds the intent token of a watched payment (deterministic; no capability is stored). */
  intentFor: (watch: Watch) => string;
  /** Blocks read back on the first start (no cursor yet). */
  backfillBlocks?: bigint;
  /** Blocks re-read when the cursor's block hash changed (a reorg deeper than finality). */
  rewindBlocks?: bigint;
  /** Most blocks one log query covers. */
  maxRange?: bigint;
}

/** One webhook event, with an id derived from the chain event (so a re-read enqueues nothing new). */
interface Event {
  eventId: string;
  eventType: WebhookEvent["type"];
  watch: Watch;
  /** The body, typed by its wire schema (src/wire/events.ts). */
  payload: WebhookEvent;
}

/**
 * Follows the Splitter's and RecurringCharges' events up to the finality head only, so a payment
 * that is reorged out before it settles is never announced. Survives restarts from its stored
 * cursor; if the cursor's block hash changed, it re-reads a stretch behind it (events keep their ids).
 */
export class Watcher {
  constructor(private readonly deps: WatcherDeps) {}

  /** Reads the next stretch of settled blocks and enqueues events for watched payments and subscriptions. */
  async tick(): Promise<{ from: bigint; to: bigint; enqueued: number } | null> {
    const { client, db } = this.deps;
    const head = await finalityHead(client, this.deps.finality);
    if (head < 0n) return null;
    const cursorRepo = new WatcherCursor(db);
    const cursor = await cursorRepo.get();
    let from: bigint;
    if (!cursor) {
      from = head - (this.deps.backfillBlocks ?? 1000n);
    } else {
      const block = await rpc(() => client.getBlock({ blockNumber: cursor.blockNumber }).catch(() => null));
      from = block && block.hash === cursor.blockHash ? cursor.blockNumber + 1n : cursor.blockNumber - (this.deps.rewindBlocks ?? 64n);
    }
    if (from < 0n) from = 0n;
    if (from > head) return null;
    const to = head - from + 1n > (this.deps.maxRange ?? 2000n) ? from + (this.deps.maxRange ?? 2000n) - 1n : head;
    const { contracts } = this.deps.deployment;
    const [logs, toBlock] = await Promise.all([
      rpc(() =>
        client.getLogs({
          address: [contracts.Splitter.address, contracts.RecurringCharges.address],
          events: EVENTS,
          fromBlock: from,
          toBlock: to,
          strict: true,
        }),
      ),
      rpc(() => client.getBlock({ blockNumber: to })),
    ]);
    const events = await this.#events(logs);
    await db.transaction(async (tx) => {
      const deliveries = new Deliveries(tx);
      for (const e of events)
        await deliveries.enqueue({ eventId: e.eventId, eventType: e.eventType, notifyUrl: e.watch.notifyUrl, payload: e.payload, dueAt: this.deps.now() });
      await new WatcherCursor(tx).set(to, toBlock.hash, Number(toBlock.timestamp));
    });
    return { from, to, enqueued: events.length };
  }

  async #events(logs: Awaited<ReturnType<PublicClient["getLogs"]>>): Promise<Event[]> {
    const { client, db } = this.deps;
    const watches = new Watches(db);
    const typed = logs as unknown as Array<{
      eventName: "Paid" | "Charged" | "Revoked";
      args: Record<string, unknown>;
      transactionHash: Hex;
      logIndex: number;
      blockNumber: bigint;
    }>;
    const paidLogs = typed.filter((l) => l.eventName === "Paid");
    const payments = new Map(
      (
        await watches.find(
          "payment",
          paidLogs.map((l) => l.args.paymentReference as string),
        )
      ).map((w) => [w.key, w]),
    );
    const linkPayments = await this.#linkPaymentWatches(paidLogs.map((l) => l.args.paymentReference as Hex).filter((r) => !payments.has(r)));
    const subscriptions = new Map(
      (
        await watches.find(
          "subscription",
          typed.filter((l) => l.eventName !== "Paid").map((l) => l.args.subscriptionId as string),
        )
      ).map((w) => [w.key, w]),
    );
    const watchOf = (log: (typeof typed)[number]) =>
      log.eventName === "Paid"
        ? (payments.get(log.args.paymentReference as string) ?? linkPayments.get(log.args.paymentReference as string))
        : subscriptions.get(log.args.subscriptionId as string);
    // Only the watched payment itself (what verify would call valid once settled), never a look-alike
    // of its reference with another token, recipient or amount.
    const matched = typed.filter((log) => {
      const watch = watchOf(log);
      return watch && (log.eventName !== "Paid" || this.#isWatchedPayment(log.args, watch));
    });
    // The matched events' blocks (each once) and the subscriptions' state at each charge or
    // revocation, all read at once: one JSON-RPC batch.
    const blockNumbers = [...new Set(matched.map((l) => l.blockNumber))];
    const [times, states] = await Promise.all([
      Promise.all(blockNumbers.map((n) => rpc(() => client.getBlock({ blockNumber: n })).then((b) => b.timestamp))),
      Promise.all(
        matched.map((log) =>
          log.eventName === "Paid" ? null : RecurringChargesReader.of(this.deps).subscription(log.args.subscriptionId as Hex, log.blockNumber),
        ),
      ),
    ]);
    const timestamps = new Map(blockNumbers.map((n, i) => [n, times[i]!]));
    const events: Event[] = [];
    for (const [i, log] of matched.entries()) {
      const watch = watchOf(log)!;
      const at = timestamps.get(log.blockNumber)!;
      if (at > BigInt(watch.watchUntil)) continue; // settled after watching ended: recover finds it, no announcement
      const type = log.eventName === "Paid" ? "payment.settled" : log.eventName === "Charged" ? "subscription.charged" : "subscription.revoked";
      const eventId = `evt_${keccak256(toHex(`${type}:${log.transactionHash}:${log.logIndex}:${watch.notifyUrl}`)).slice(2, 34)}`;
      const created_at = Number(at);
      if (type === "payment.settled") {
        events.push({
          eventId,
          eventType: type,
          watch,
          payload: {
            id: eventId,
            type,
            created_at,
            data: {
              intent: this.deps.intentFor(watch),
              tx_hash: log.transactionHash,
              reference: watch.key as Hex,
              ...(watch.linkId ? { link_id: watch.linkId as Hex } : {}),
            },
          },
        });
        continue;
      }
      const subscriptionId = watch.key as Hex;
      const { paidCount, revoked } = states[i]!;
      const state = subscriptionState({ revoked, paidCount }, BigInt((watch.data.end as number | undefined) ?? 0), at);
      const data: SubscriptionRevokedEvent["data"] = {
        link_id: (watch.linkId as Hex | null) ?? null,
        subscription_id: subscriptionId,
        payer: watch.data.payer as Address,
        state,
        paid_count: paidCount,
      };
      const payload: WebhookEvent =
        type === "subscription.charged"
          ? ({
              id: eventId,
              type,
              created_at,
              data: { ...data, period_index: Number(log.args.periodIndex as bigint), tx_hash: log.transactionHash },
            } satisfies SubscriptionChargedEvent)
          : { id: eventId, type, created_at, data };
      events.push({ eventId, eventType: type, watch, payload });
    }
    return events;
  }

  /** Whether a `Paid` log is exactly the payment a watch describes: our token, its recipient and amount. */
  #isWatchedPayment(args: Record<string, unknown>, watch: Watch): boolean {
    return (
      isAddressEqual(args.token as Address, this.deps.deployment.token.address) &&
      isAddressEqual(args.recipient as Address, watch.data.recipient as Address) &&
      (args.amount as bigint) === BigInt(watch.data.amount_units as string)
    );
  }

  /**
   * Payments through a watched link: the reference starts with the link id (16 bytes). No row is kept
   * per payment (an anonymous resolve of a link stores nothing); the link's watch and record say where
   * to announce it and what the payment must be. The intent rebuilt for the event carries the link's
   * expiry (verify ignores expiry).
   */
  async #linkPaymentWatches(references: Hex[]): Promise<Map<string, Watch>> {
    const found = new Map<string, Watch>();
    const linkIds = [...new Set(references.map((r) => r.slice(0, 34)))];
    if (linkIds.length === 0) return found;
    const linkWatches = new Map((await new Watches(this.deps.db).find("link", linkIds)).map((w) => [w.key, w]));
    const records = new LinkRecords(this.deps.db);
    for (const reference of references) {
      const linkWatch = linkWatches.get(reference.slice(0, 34));
      if (!linkWatch) continue;
      const link = await records.find(linkWatch.key);
      if (!link || link.closed) continue;
      found.set(reference, {
        kind: "payment",
        key: reference,
        notifyUrl: linkWatch.notifyUrl,
        caller: linkWatch.caller,
        linkId: linkWatch.key,
        data: { recipient: link.recipient, amount_units: link.amountUnits.toString(), expires_at: link.expiresAt },
        watchUntil: linkWatch.watchUntil,
      });
    }
    return found;
  }
}
