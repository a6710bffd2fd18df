import { isAddressEqual, keccak256, toHex, zeroHash, type Address, type Hex, type PublicClient } from "viem";
import { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { agreeOnLogs } from "../chain/agreement.js";
import { DomainError } from "../errors.js";
import { rpc } from "../chain/rpc-errors.js";
import { blockTimestampMs, logTimestampMs } from "../chain/timestamp-ms.js";
import type { Database } from "../store/database.js";
import { subscriptionState } from "../recurring/terms.js";
import { LinkRecords } from "../links/records.js";
import type { EventSubjects } from "./deliveries.js";
import { Watches, type Watch } from "./watches.js";
import type { SubscriptionChargedEvent, SubscriptionRevokedEvent, WebhookEvent } from "../wire/index.js";

type ChainLog = {
  eventName: "Paid" | "Charged" | "Revoked";
  address: Hex;
  topics: [Hex, ...Hex[]] | [];
  data: Hex;
  args: Record<string, unknown>;
  transactionHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex | null;
};

/**
 * A stable event id: the event's type, its chain event (transaction, log index), its target, and for a
 * hint the block (its hash).
 */
export function eventIdOf(type: string, log: { transactionHash: Hex; logIndex: number }, notifyUrl: string, blockHash?: string): string {
  const block = blockHash ? `:${blockHash}` : "";
  return `evt_${keccak256(toHex(`${type}:${log.transactionHash}:${log.logIndex}:${notifyUrl}${block}`)).slice(2, 34)}`;
}

/** Where POST /v1/events files an event of a watch: its payment's reference and link, or its subscription. */
export function subjectsOf(watch: Watch): EventSubjects {
  if (watch.kind === "subscription") return { subscriptionId: watch.key, ...(watch.linkId ? { linkId: watch.linkId } : {}) };
  return { reference: watch.key, ...(watch.linkId ? { linkId: watch.linkId } : {}) };
}

/** One webhook event, with an id derived from the chain event (so a re-read enqueues nothing new). */
export interface Event {
  /** For an inclusion hint: the block it was read in and the retraction to send if that block leaves the chain. */
  hint?: { blockNumber: bigint; blockHash: string; retraction: { eventId: string; eventType: WebhookEvent["type"]; payload: WebhookEvent } };
  eventId: string;
  eventType: WebhookEvent["type"];
  watch: Watch;
  /** The body, typed by its wire schema (src/wire/events.ts). */
  payload: WebhookEvent;
}

/** What {@link WatchedEvents} reads: the chain, the deployment, the watches, the intent a payment event carries. */
export type WatchedEventsDeps = {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  db: Database;
  /** Rebuilds the intent token of a watched payment (deterministic; no capability is stored). */
  intentFor: (watch: Watch) => string;
};

/**
 * The webhook events the watched payments and subscriptions get from a stretch of our contracts' logs:
 * which logs a watch covers (a watched payment itself, a payment through a watched link, a watched
 * subscription's charges and revocation), and the body of each, final or an inclusion hint with its
 * retraction. The watcher (watcher.ts) follows the chain and hands it the logs.
 */
export class WatchedEvents {
  constructor(private readonly deps: WatchedEventsDeps) {}

  /** The events of watched payments and subscriptions in `logs`: final ones, or inclusion hints for watches that asked. */
  async events(logs: Awaited<ReturnType<PublicClient["getLogs"]>>, pass: "final" | "hint" = "final"): Promise<Event[]> {
    const { client, db } = this.deps;
    const watches = new Watches(db);
    const typed = logs as unknown as ChainLog[];
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
      if (!watch || (pass !== "final" && watch.data.included !== true)) return false;
      return log.eventName !== "Paid" || this.#isWatchedPayment(log.args, watch);
    });
    // A settled event is announced on a majority of the nodes' word: short of it, the pass fails and is read again.
    // Announced from the logs the majority agreed on, as they agreed on them.
    const held = pass === "final" && matched.length > 0 ? await agreeOnLogs("settled_event", client, this.deps.finality, matched) : matched;
    if (!held) throw new DomainError("RPC_BUSY", { detail: "settled events short of a majority of the chain's nodes" });
    // The held events' blocks (each once) and the subscriptions' state at each charge or
    // revocation, all read at once: one JSON-RPC batch.
    const blockNumbers = [...new Set(held.map((l) => l.blockNumber))];
    const [times, states] = await Promise.all([
      Promise.all(blockNumbers.map((n) => rpc(() => client.getBlock({ blockNumber: n })))),
      Promise.all(
        held.map((log) =>
          log.eventName === "Paid" || pass !== "final"
            ? null
            : RecurringChargesReader.of(this.deps).subscription(log.args.subscriptionId as Hex, log.blockNumber),
        ),
      ),
    ]);
    const timestamps = new Map(blockNumbers.map((n, i) => [n, times[i]!.timestamp]));
    const blockMs = new Map(blockNumbers.map((n, i) => [n, blockTimestampMs(times[i]!)]));
    const events: Event[] = [];
    for (const [i, log] of held.entries()) {
      const watch = watchOf(log)!;
      const at = timestamps.get(log.blockNumber)!;
      if (at > BigInt(watch.watchUntil)) continue; // settled after watching ended: recover finds it, no announcement
      const created_at = Number(at);
      const ms = logTimestampMs(log) ?? blockMs.get(log.blockNumber);
      const when = ms !== undefined ? { timestamp_ms: Number(ms) } : {};
      if (pass !== "final") {
        events.push(this.#hint(log, watch, created_at, when));
        continue;
      }
      const type = log.eventName === "Paid" ? "payment.settled" : log.eventName === "Charged" ? "subscription.charged" : "subscription.revoked";
      const eventId = eventIdOf(type, log, watch.notifyUrl);
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
              ...when,
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
        ...when,
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

  /**
   * An inclusion hint for a log above the finality head, with the retraction to send if its block
   * leaves the chain.
   */
  #hint(log: ChainLog, watch: Watch, created_at: number, when: { timestamp_ms?: number }): Event {
    const blockHash = log.blockHash ?? zeroHash;
    if (log.eventName === "Paid") {
      const data = {
        intent: this.deps.intentFor(watch),
        tx_hash: log.transactionHash,
        reference: watch.key as Hex,
        ...(watch.linkId ? { link_id: watch.linkId as Hex } : {}),
        ...when,
        block_hash: blockHash,
      };
      const eventId = eventIdOf("payment.included", log, watch.notifyUrl, blockHash);
      const retractionId = eventIdOf("payment.reorged", log, watch.notifyUrl, blockHash);
      return {
        eventId,
        eventType: "payment.included",
        watch,
        payload: { id: eventId, type: "payment.included", created_at, data },
        hint: {
          blockNumber: log.blockNumber,
          blockHash,
          retraction: { eventId: retractionId, eventType: "payment.reorged", payload: { id: retractionId, type: "payment.reorged", created_at, data } },
        },
      };
    }
    const data = {
      link_id: (watch.linkId as Hex | null) ?? null,
      subscription_id: watch.key as Hex,
      payer: watch.data.payer as Address,
      period_index: Number(log.args.periodIndex as bigint),
      tx_hash: log.transactionHash,
      ...when,
      block_hash: blockHash,
    };
    const eventId = eventIdOf("subscription.charge_included", log, watch.notifyUrl, blockHash);
    const retractionId = eventIdOf("subscription.charge_reorged", log, watch.notifyUrl, blockHash);
    return {
      eventId,
      eventType: "subscription.charge_included",
      watch,
      payload: { id: eventId, type: "subscription.charge_included", created_at, data },
      hint: {
        blockNumber: log.blockNumber,
        blockHash,
        retraction: {
          eventId: retractionId,
          eventType: "subscription.charge_reorged",
          payload: { id: retractionId, type: "subscription.charge_reorged", created_at, data },
        },
      },
    };
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
        data: {
          recipient: link.recipient,
          amount_units: link.amountUnits.toString(),
          expires_at: link.expiresAt,
          ...(linkWatch.data.included === true ? { included: true } : {}),
        },
        watchUntil: linkWatch.watchUntil,
      });
    }
    return found;
  }
}
