import type { RequestHandler } from "express";
import type { Payments } from "../../payments/payments.js";
import type { Links } from "../../links/links.js";
import type { Subscriptions } from "../../recurring/subscriptions.js";
import type { Charges } from "../../recurring/charges.js";
import type { ChargeRecovery } from "../../recurring/charge-recovery.js";
import type { SubscriptionSessions } from "../../recurring/sessions.js";
import type { Refunds } from "../../refunds/refunds.js";
import type { PostRoute } from "../route.js";
import { linkRoutes } from "./links.js";
import { paymentRoutes } from "./payments.js";
import { recurringRoutes } from "./recurring.js";
import { refundRoutes } from "./refunds.js";
import { x402Routes, type X402Domains } from "./x402.js";
import { eventRoutes } from "./events.js";
import type { EventLog } from "../../webhooks/events.js";
import type { PaymentsList } from "../../payments/payments-list.js";
import { paymentsListRoutes } from "./payments-list.js";
import type { SubscriberStates } from "../../links/subscriber-states.js";
import { linkSubscriberRoutes } from "./link-subscribers.js";
import type { HoldsApi } from "../../holds/holds-api.js";
import { holdRoutes } from "./holds.js";

export interface Domains {
  payments: Payments;
  links: Links;
  subscriptions: Subscriptions;
  sessions: SubscriptionSessions;
  charges: Charges;
  chargeRecovery: ChargeRecovery;
  refunds: Refunds;
  x402: X402Domains;
  recoverLimit: RequestHandler;
  events: EventLog;
  eventsLimit: RequestHandler;
  /** POST /v1/payments/list and its per-IP limit. */
  paymentsList: { list: Pick<PaymentsList, "list">; limit: RequestHandler };
  /** POST /v1/links/subscribers: subscribers' states for a browser holding the manage token. */
  subscriberStates: Pick<SubscriberStates, "list">;
  /** Holds (null without an escrow in the deployment), with the authorize and list limits per IP. */
  holds: { api: HoldsApi | null; listLimit: RequestHandler };
}

/** Every integration endpoint but /v1/capabilities (served by the app itself). */
export function integrationRoutes(d: Domains): PostRoute[] {
  return [
    ...paymentRoutes(d.payments, d.links, d.recoverLimit),
    ...paymentsListRoutes(d.paymentsList.list, d.paymentsList.limit),
    ...linkRoutes(d.links),
    ...linkSubscriberRoutes(d.subscriberStates),
    ...recurringRoutes(d.subscriptions, d.sessions, d.charges, d.chargeRecovery, d.links),
    ...refundRoutes(d.refunds),
    ...x402Routes(d.x402),
    ...eventRoutes(d.events, d.eventsLimit),
    ...holdRoutes(d.holds.api, { list: d.holds.listLimit }),
  ];
}

/** The routes with no domain behind them: for describing the API (OpenAPI), never for serving it. */
export function describedRoutes(): PostRoute[] {
  const unavailable = new Proxy({}, { get: () => () => Promise.reject(new Error("description only")) });
  return integrationRoutes({
    payments: unavailable,
    links: unavailable,
    subscriptions: unavailable,
    sessions: unavailable,
    charges: unavailable,
    chargeRecovery: unavailable,
    refunds: unavailable,
    x402: { receivers: unavailable, verdict: () => Promise.reject(new Error("description only")) },
    recoverLimit: ((_req, _res, next) => next()) as RequestHandler,
    events: unavailable,
    eventsLimit: ((_req, _res, next) => next()) as RequestHandler,
    paymentsList: { list: unavailable, limit: ((_req, _res, next) => next()) as RequestHandler },
    subscriberStates: unavailable,
    holds: { api: unavailable, listLimit: ((_req, _res, next) => next()) as RequestHandler },
  } as never);
}
