import { z } from "zod";
import { Address, AmountUnits, Hash, LinkId, Token, UnixMilliseconds } from "./primitives.js";
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
  created_at: z.number().int().describe("unix seconds: the block's timestamp (the settled block's for a final event, the including block's for a hint)"),
});
const timestampMs = {
  timestamp_ms: UnixMilliseconds.optional().describe(
    "unix milliseconds: the block's time as Base serves it since Denim (several blocks share one created_at second); absent where the node does not serve it",
  ),
};
const paymentData = {
  intent: z.string(),
  tx_hash: Hash,
  reference: Hash,
  link_id: LinkId.optional().describe("only for a payment through a link"),
};
const subscriptionData = {
  link_id: LinkId.nullable(),
  subscription_id: Hash,
  payer: Address,
  state: SubscriptionStateName,
  paid_count: z.number().int().nonnegative(),
};

export const PaymentSettledEvent = z.strictObject({
  ...envelope("payment.settled"),
  data: z.strictObject({ ...paymentData, ...timestampMs }),
});

export const PaymentIncludedEvent = z.strictObject({
  ...envelope("payment.included"),
  data: z.strictObject({ ...paymentData, ...timestampMs, block_hash: Hash.describe("the block that included the transaction (not yet final)") }),
});

export const PaymentReorgedEvent = z.strictObject({
  ...envelope("payment.reorged"),
  data: z.strictObject({ ...paymentData, ...timestampMs, block_hash: Hash.describe("the block that included it and left the chain") }),
});

export const SubscriptionChargedEvent = z.strictObject({
  ...envelope("subscription.charged"),
  data: z.strictObject({ ...subscriptionData, ...timestampMs, period_index: z.number().int().nonnegative(), tx_hash: Hash }),
});

export const SubscriptionCreatedEvent = z.strictObject({
  ...envelope("subscription.created"),
  data: z.strictObject(subscriptionData),
});

export const SubscriptionRevokedEvent = z.strictObject({
  ...envelope("subscription.revoked"),
  data: z.strictObject({ ...subscriptionData, ...timestampMs }),
});

const chargeHint = {
  link_id: LinkId.nullable(),
  subscription_id: Hash,
  payer: Address,
  period_index: z.number().int().nonnegative(),
  tx_hash: Hash,
};

export const SubscriptionChargeIncludedEvent = z.strictObject({
  ...envelope("subscription.charge_included"),
  data: z.strictObject({ ...chargeHint, ...timestampMs, block_hash: Hash.describe("the block that included the charge (not yet final)") }),
});

export const SubscriptionChargeReorgedEvent = z.strictObject({
  ...envelope("subscription.charge_reorged"),
  data: z.strictObject({ ...chargeHint, ...timestampMs, block_hash: Hash.describe("the block that included it and left the chain") }),
});

const holdData = {
  hold_id: Hash.describe("the hold's id (POST /v1/holds answered it)"),
  tx_hash: Hash,
  amount_units: AmountUnits.describe("what the step moved (a capture: fee included)"),
  ...timestampMs,
};
export const HoldAuthorizedEvent = z.strictObject({ ...envelope("hold.authorized"), data: z.strictObject({ ...holdData, payer: Address }) });
export const HoldCapturedEvent = z.strictObject({
  ...envelope("hold.captured"),
  data: z.strictObject({ ...holdData, fee_units: AmountUnits.describe("to the fee collector; amount_units less it reached the recipient") }),
});
export const HoldVoidedEvent = z.strictObject({ ...envelope("hold.voided"), data: z.strictObject(holdData) });
export const HoldReclaimedEvent = z.strictObject({ ...envelope("hold.reclaimed"), data: z.strictObject(holdData) });
export const HoldRefundedEvent = z.strictObject({ ...envelope("hold.refunded"), data: z.strictObject({ ...holdData, payer: Address }) });

const HOLD_HINT = "A hint only: read POST /v1/holds/state (the hold's steps, final) before shipping or refunding.";

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
  "payment.included": {
    schema: PaymentIncludedEvent,
    summary: "Extension: a watched payment's transaction was mined (not yet final)",
    description:
      "Sent only for a payment or link created with notify_included: true, as soon as the Paid event is in a block above the finality head (on Base a block every 200 ms: the early signal). An early hint, weaker than payment.settled: the block may still leave the chain (then payment.reorged follows). Never fulfil on it; verify answers PAYMENT_CONFIRMING until the block is final.",
  },
  "payment.reorged": {
    schema: PaymentReorgedEvent,
    summary: "Extension: a payment announced by payment.included left the chain before it was final",
    description:
      "Retracts the payment.included hint of the same tx_hash and block_hash. The payment may be mined again (a new payment.included with another block_hash) or never; payment.settled follows only if it settles.",
  },
  "subscription.charge_included": {
    schema: SubscriptionChargeIncludedEvent,
    summary: "Extension: a charge of a watched subscription was mined (not yet final)",
    description:
      "Sent only for a subscription created with notify_included: true, as soon as the charge is in a block above the finality head. A hint; subscription.charged follows once the block is final.",
  },
  "subscription.charge_reorged": {
    schema: SubscriptionChargeReorgedEvent,
    summary: "Extension: a charge announced by subscription.charge_included left the chain before it was final",
    description: "Retracts the hint of the same tx_hash and block_hash; read /v1/subscriptions/state.",
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
  "hold.authorized": {
    schema: HoldAuthorizedEvent,
    summary: "The buyer authorized a watched hold: its amount is in escrow (final)",
    description: `Sent once the escrow's PaymentAuthorized is final on a majority of the nodes. ${HOLD_HINT}`,
  },
  "hold.captured": {
    schema: HoldCapturedEvent,
    summary: "A capture of a watched hold reached the recipient (final), one event per capture",
    description: `amount_units less fee_units reached the recipient, fee_units the fee collector. ${HOLD_HINT}`,
  },
  "hold.voided": {
    schema: HoldVoidedEvent,
    summary: "A watched hold was voided: what was left authorized went back to the buyer (final)",
    description: HOLD_HINT,
  },
  "hold.reclaimed": {
    schema: HoldReclaimedEvent,
    summary: "The buyer reclaimed a watched hold after capture_before (final)",
    description: HOLD_HINT,
  },
  "hold.refunded": {
    schema: HoldRefundedEvent,
    summary: "A merchant's refund of a watched hold was verified (POST /v1/holds/refund with refund_tx_hash, final)",
    description: `Sent once per refund transaction, when it is verified. ${HOLD_HINT}`,
  },
} as const;

export type PaymentSettledEvent = z.infer<typeof PaymentSettledEvent>;
export type PaymentIncludedEvent = z.infer<typeof PaymentIncludedEvent>;
export type PaymentReorgedEvent = z.infer<typeof PaymentReorgedEvent>;
export type SubscriptionChargeIncludedEvent = z.infer<typeof SubscriptionChargeIncludedEvent>;
export type SubscriptionChargeReorgedEvent = z.infer<typeof SubscriptionChargeReorgedEvent>;
export type SubscriptionChargedEvent = z.infer<typeof SubscriptionChargedEvent>;
export type SubscriptionRevokedEvent = z.infer<typeof SubscriptionRevokedEvent>;
export type SubscriptionCreatedEvent = z.infer<typeof SubscriptionCreatedEvent>;
export type HoldEventBody =
  | z.infer<typeof HoldAuthorizedEvent>
  | z.infer<typeof HoldCapturedEvent>
  | z.infer<typeof HoldVoidedEvent>
  | z.infer<typeof HoldReclaimedEvent>
  | z.infer<typeof HoldRefundedEvent>;
/** Any webhook body. */
export type WebhookEvent =
  | PaymentSettledEvent
  | SubscriptionCreatedEvent
  | PaymentIncludedEvent
  | PaymentReorgedEvent
  | SubscriptionChargeIncludedEvent
  | SubscriptionChargeReorgedEvent
  | SubscriptionChargedEvent
  | SubscriptionRevokedEvent
  | HoldEventBody;

/** One public key deliveries are signed with (GET /v1/webhooks/keys). */
export const WebhookKey = z.strictObject({
  kid: z.string(),
  alg: z.literal("ed25519"),
  public_key: z.string().describe("the raw 32-byte ed25519 public key, base64"),
  not_before: z.number().int().describe("unix seconds: when this key starts signing"),
  not_after: z
    .number()
    .int()
    .nullable()
    .describe("unix seconds: when this key is no longer published nor accepted (its successor's start plus the overlap); null while it has no successor"),
});
export type WebhookKey = z.infer<typeof WebhookKey>;

export const WebhookKeysResponse = z.strictObject({
  keys: z.array(WebhookKey).describe("every key a delivery may be signed with now: during a rotation's overlap, the old and the new"),
});
export type WebhookKeysResponse = z.infer<typeof WebhookKeysResponse>;

/** The headers a delivery carries, signed (Standard Webhooks' three beside the service's two). */
export const SignedEventHeaders = z.strictObject({
  "webhook-id": z.string(),
  "webhook-timestamp": z.string().regex(/^[0-9]+$/),
  "webhook-signature": z.string().regex(/^v1a,[A-Za-z0-9+/]+=*( v1a,[A-Za-z0-9+/]+=*)*$/),
  "svc-event-id": z.string(),
  "svc-event-type": z.string(),
});

const EventsCursor = z
  .string()
  .regex(/^evt_[0-9a-f]{32}$/)
  .describe("the `next` of the previous page: answers the events after it");

/** POST /v1/events: one capability the caller holds, and where the previous page ended. */
export const EventsRequest = z.union([
  z.strictObject({ intent: Token, after: EventsCursor.optional() }),
  z.strictObject({ manage_token: Token, after: EventsCursor.optional() }),
  z.strictObject({ subscription: Token, after: EventsCursor.optional() }),
  z.strictObject({ hold: Token.describe("the merchant's hold capability (ho)"), after: EventsCursor.optional() }),
]);
export type EventsRequest = z.infer<typeof EventsRequest>;

export const StoredEvent = z.strictObject({
  id: z.string().regex(/^evt_[0-9a-f]{32}$/),
  type: z.enum([
    "payment.settled",
    "payment.included",
    "payment.reorged",
    "subscription.created",
    "subscription.charge_included",
    "subscription.charge_reorged",
    "subscription.charged",
    "subscription.revoked",
    "hold.authorized",
    "hold.captured",
    "hold.voided",
    "hold.reclaimed",
    "hold.refunded",
  ]),
  data: z.record(z.string(), z.unknown()).describe("the body's data"),
  body: z.string().describe("the exact body delivered (or to be delivered)"),
  headers: SignedEventHeaders.describe(
    "as first signed: the webhook-timestamp and webhook-signature of the event's first delivery (or of the first read-back, kept for that delivery); verify the signature with body, the timestamp being the delivery's, not now",
  ),
});

export const EventsResponse = z.strictObject({
  events: z.array(StoredEvent).describe("oldest first, delivered or not, kept for WEBHOOK_RETENTION_SECONDS"),
  next: EventsCursor.nullable().describe(
    "where to continue: the last event answered (or the after given when none): pass it as after later for what came since; a page shorter than 100 events means there is nothing more now",
  ),
});
export type EventsResponse = z.infer<typeof EventsResponse>;
