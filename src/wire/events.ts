import { z } from "zod";
import { Address, Hash, LinkId } from "./primitives.js";
import { SubscriptionStateName } from "./recurring.js";

/**
 * The webhook events the watcher sends (src/webhooks/watcher.ts): the bodies it builds are typed by
 * these schemas, and they feed the OpenAPI document's `webhooks` section. A body is a hint only: verify before fulfilling.
 */
const envelope = <T extends string>(type: T) => ({
  id: z
    .string()
    .regex(/^evt_[0-9a-f]{32}$/)
    .describe("stable across retries: the svc-event-id header"),
  type: z.literal(type),
  created_at: z.number().int().describe("unix seconds: the settled block's timestamp"),
});
const subscriptionData = {
  link_id: LinkId.nullable(),
  subscription_id: Hash,
  payer: Address,
  state: SubscriptionStateName,
  paid_count: z.number().int().nonnegative(),
};

export const PaymentSettledEvent = z.strictObject({
  ...envelope("payment.settled"),
  data: z.strictObject({ intent: z.string(), tx_hash: Hash, reference: Hash, link_id: LinkId.optional().describe("only for a payment through a link") }),
});

export const SubscriptionChargedEvent = z.strictObject({
  ...envelope("subscription.charged"),
  data: z.strictObject({ ...subscriptionData, period_index: z.number().int().nonnegative(), tx_hash: Hash }),
});

export const SubscriptionCreatedEvent = z.strictObject({
  ...envelope("subscription.created"),
  data: z.strictObject(subscriptionData),
});

export const SubscriptionRevokedEvent = z.strictObject({
  ...envelope("subscription.revoked"),
  data: z.strictObject(subscriptionData),
});

/** Every event type, with its schema and what a receiver must do with it. */
export const WEBHOOK_EVENTS = {
  "payment.settled": {
    schema: PaymentSettledEvent,
    summary: "A watched payment settled (its block is at or below the finality head)",
    description:
      "Sent once the Paid event's block is settled, for a payment or link created with notify_url. A hint only: call /v1/payments/verify with data.intent and data.tx_hash, require valid: true and a reference equal to the one you stored (or starting with link_id for a link), and fulfil once per reference and transaction.",
  },
  "subscription.created": {
    schema: SubscriptionCreatedEvent,
    summary: "A payer subscribed through a subscription link",
    description:
      "Sent when POST /v1/links/subscribe accepts a payer's signature, to the link's notify_url; created_at is the service's clock (no block yet). A hint only: fetch the capability with POST /v1/links/subscriptions (manage_token) and charge with it; state is PENDING until the first charge.",
  },
  "subscription.charged": {
    schema: SubscriptionChargedEvent,
    summary: "A period of a watched subscription was charged and settled",
    description:
      "A hint only: a replayed event is a real past charge, so grant or remove access from /v1/subscriptions/state (state and lastPeriod), never one more period per event.",
  },
  "subscription.revoked": {
    schema: SubscriptionRevokedEvent,
    summary: "The payer revoked a watched subscription (settled)",
    description: "A hint only: read /v1/subscriptions/state and end access from its state.",
  },
} as const;

export type PaymentSettledEvent = z.infer<typeof PaymentSettledEvent>;
export type SubscriptionChargedEvent = z.infer<typeof SubscriptionChargedEvent>;
export type SubscriptionRevokedEvent = z.infer<typeof SubscriptionRevokedEvent>;
export type SubscriptionCreatedEvent = z.infer<typeof SubscriptionCreatedEvent>;
/** Any webhook body. */
export type WebhookEvent = PaymentSettledEvent | SubscriptionCreatedEvent | SubscriptionChargedEvent | SubscriptionRevokedEvent;
