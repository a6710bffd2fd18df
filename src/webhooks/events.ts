import type { Hex } from "viem";
import { DomainError } from "../errors.js";
import { LinkTokens } from "../links/tokens.js";
import { readIntent } from "../payments/intent.js";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { EventsRequest, EventsResponse } from "../wire/index.js";
import { Deliveries } from "./deliveries.js";
import type { WebhookSigner } from "./signing.js";

/** Events answered per page of POST /v1/events. */
export const EVENTS_PAGE_SIZE = 100;

export interface EventLogDeps {
  db: Pick<Database, "query">;
  tokens: CapabilityTokens;
  signer: WebhookSigner;
  /** The subscription id a subscription capability names (INVALID_SUBSCRIPTION if it names none); recurring implements it. */
  subscriptionIdOf: (token: string) => Hex;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * POST /v1/events: the events of one capability the caller holds, delivered or not, oldest first,
 * each with the exact body sent and headers signed now, so an endpoint that was down past the last
 * retry reads back what it missed, with the same ids. The capability is the only key: an intent
 * reads its payment's events, a link's manage token those of every payment through the link, a
 * subscription capability its subscription's.
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
    const nowSeconds = Math.floor(this.deps.now() / 1000);
    return {
      events: rows.map((r) => ({
        id: r.eventId,
        type: r.eventType as EventsResponse["events"][number]["type"],
        data: (r.payload.data ?? {}) as Record<string, unknown>,
        body: r.body,
        headers: this.deps.signer.headers(r.eventId, r.eventType, r.body, nowSeconds),
      })),
      next: rows.at(-1)?.eventId ?? after,
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
    return { column: "subscription_id", value: this.deps.subscriptionIdOf(request.subscription) };
  }
}
