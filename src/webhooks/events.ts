import type { Hex } from "viem";
import { DomainError } from "../errors.js";
import { LinkTokens } from "../links/tokens.js";
import { readIntent } from "../payments/intent.js";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { EventsRequest, EventsResponse } from "../wire/index.js";
import { Deliveries, type Delivery, type FirstSigning } from "./deliveries.js";
import type { SignedHeaders, WebhookSigner } from "./signing.js";

/** Events answered per page of POST /v1/events. */
export const EVENTS_PAGE_SIZE = 100;

export interface EventLogDeps {
  db: Pick<Database, "query">;
  tokens: CapabilityTokens;
  signer: WebhookSigner;
  /** The subscription id a subscription capability names (INVALID_SUBSCRIPTION if it names none); recurring implements it. */
  subscriptionIdOf: (token: string) => Hex;
  /** The hold id a merchant's hold capability names (INVALID_HOLD_TOKEN otherwise); holds implement it, absent without an escrow. */
  holdIdOf?: (token: string) => Hex;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * POST /v1/events: the events of one capability the caller holds, delivered or not, oldest first,
 * each with the exact body sent and its headers as first signed (the first attempt's
 * `webhook-timestamp` and signature; an event not attempted yet is signed now and that signing kept
 * for its first attempt), so an endpoint that was down past the last retry reads back what it
 * missed, with the same ids, and no holder of a capability gets fresh timestamps for old events.
 * The capability is the only key: an intent reads its payment's events, a link's manage token
 * those of every payment through the link, a subscription capability its subscription's, a hold's
 * merchant capability its hold's.
 */
export class EventLog {
  readonly #deliveries: Deliveries;
  readonly #links: LinkTokens;

  constructor(private readonly deps: EventLogDeps) {
    this.#deliveries = new Deliveries(deps.db);
    this.#links = new LinkTokens(deps.tokens);
  }

  async list(request: EventsRequest): Promise<EventsResponse> {
    const subject = this.#subject(request);
    const after = request.after ?? null;
    const rows = await this.#deliveries.eventsFor(subject, after, EVENTS_PAGE_SIZE);
    const nowMs = this.deps.now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const headers = new Map(
      rows.map((r) => [r.eventId, r.signed ? this.#asSigned(r, r.signed) : this.deps.signer.headers(r.eventId, r.eventType, r.body, nowSeconds)]),
    );
    // Never signed yet: this signing becomes the event's first, kept for its first attempt (one write
    // per event, once). An attempt in flight keeps its own instead; this answer alone carries ours.
    const unsigned = Object.fromEntries(
      rows.filter((r) => !r.signed).map((r) => [r.eventId, { at: nowSeconds, signature: headers.get(r.eventId)!["webhook-signature"] }]),
    );
    await this.#deliveries.keepFirstSigning(unsigned, nowMs);
    return {
      events: rows.map((r) => ({
        id: r.eventId,
        type: r.eventType as EventsResponse["events"][number]["type"],
        data: (r.payload.data ?? {}) as Record<string, unknown>,
        body: r.body,
        headers: headers.get(r.eventId)!,
      })),
      next: rows.at(-1)?.eventId ?? after,
    };
  }

  /** The headers of an event as first signed: its kept timestamp and signature. */
  #asSigned(r: Delivery, signed: FirstSigning): SignedHeaders {
    return {
      "webhook-id": r.eventId,
      "webhook-timestamp": String(signed.at),
      "webhook-signature": signed.signature,
      "svc-event-id": r.eventId,
      "svc-event-type": r.eventType,
    };
  }

  #subject(request: EventsRequest): { column: "reference" | "link_id" | "subscription_id"; value: string } {
    if ("intent" in request) {
      const intent = readIntent(this.deps.tokens, request.intent);
      if (!intent) throw new DomainError("INVALID_INTENT");
      return { column: "reference", value: intent.reference };
    }
    if ("manage_token" in request) {
      const linkId = this.#links.readManage(request.manage_token);
      if (!linkId) throw new DomainError("INVALID_LINK_TOKEN");
      return { column: "link_id", value: linkId };
    }
    if ("hold" in request) {
      // A hold's events are filed under its id in the reference column (a hash like a payment's reference; the two never meet).
      if (!this.deps.holdIdOf) throw new DomainError("INVALID_HOLD_TOKEN");
      return { column: "reference", value: this.deps.holdIdOf(request.hold) };
    }
    return { column: "subscription_id", value: this.deps.subscriptionIdOf(request.subscription) };
  }
}
