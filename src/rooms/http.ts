import type { Express } from "express";
import { describeCapabilities } from "../capabilities.js";
import type { Refunds } from "../refunds/refunds.js";
import { createApp } from "../http/app.js";
import { builtCheckout, checkoutHandler } from "../http/checkout.js";
import { rateLimit } from "../http/middleware.js";
import { createOpsApp } from "../http/ops.js";
import { readinessProbe } from "../http/readiness.js";
import { integrationRoutes } from "../http/routes/index.js";
import { x402Endpoints } from "../http/x402.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { LinksRoom } from "./links.js";
import type { PaymentsRoom } from "./payments.js";
import type { RecurringRoom } from "./recurring.js";
import type { StoreRoom } from "./store.js";
import type { X402Room } from "./x402.js";
import type { HoldsApi } from "../holds/holds-api.js";

/** The API (integration endpoints, x402 endpoints, the checkout) and the operational app (/metrics, /ready). */
export interface HttpRoom {
  app: Express;
  opsApp: Express;
}

export function httpRoom(
  { config, deps, logger, metrics }: BaseRoom,
  needs: {
    chain: ChainRoom;
    store: StoreRoom;
    webhooks: Webhooks;
    payments: PaymentsRoom;
    recurring: RecurringRoom;
    links: LinksRoom;
    x402: X402Room;
    refunds: Refunds;
    holds: HoldsApi | null;
  },
): HttpRoom {
  const { chain, store, webhooks, recurring } = needs;
  const limiter = store.windowLimiter("api", config.rateLimits.perMinute);
  const app = createApp({
    routes: integrationRoutes({
      payments: needs.payments.payments,
      links: needs.links.links,
      subscriptions: recurring.subscriptions,
      sessions: recurring.sessions,
      charges: recurring.charges,
      chargeRecovery: recurring.chargeRecovery,
      refunds: needs.refunds,
      x402: needs.x402.domains,
      recoverLimit: rateLimit(store.windowLimiter("recover", config.rateLimits.recoverPerMinute), "recover"),
      events: webhooks.events,
      eventsLimit: rateLimit(store.windowLimiter("events", config.rateLimits.eventsPerMinute), "events"),
      paymentsList: {
        list: needs.payments.paymentsList,
        limit: rateLimit(store.windowLimiter("payments-list", config.rateLimits.recoverPerMinute), "payments-list"),
      },
      subscriberStates: needs.links.subscriberStates,
      holds: {
        api: needs.holds,
        listLimit: rateLimit(store.windowLimiter("holds-list", config.rateLimits.recoverPerMinute), "holds-list"),
      },
    }),
    capabilities: () => describeCapabilities(config, chain.deployment),
    webhookKeys: () => webhooks.keys(),
    limiter,
    logger,
    metrics,
    trustProxy: config.trustProxy,
    x402: x402Endpoints({ facilitator: needs.x402.facilitator, limiter, logger, ...(deps.checkResponses ? { check: deps.checkResponses } : {}) }),
    mounts: [{ path: "/checkout", handler: checkoutHandler(builtCheckout(deps.checkoutDir)) }],
    ...(deps.checkResponses ? { checkResponses: deps.checkResponses } : {}),
  });
  return { app, opsApp: createOpsApp(metrics, readinessProbe(chain.client, chain.deployment, store.database)) };
}
