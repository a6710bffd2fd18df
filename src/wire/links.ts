import { z } from "zod";
import {
  Address,
  Amount,
  AmountInput,
  CapabilityToken,
  Count,
  Hash,
  LinkId,
  NotifyIncluded,
  NotifyUrl,
  ReturnUrl,
  Signature,
  Token,
  UnixSeconds,
} from "./primitives.js";
import { FinalizeSubscriptionResponse, SubscriptionPeriod } from "./recurring.js";

/**
 * Links: POST /v1/links, /v1/links/close and /v1/links/view-token (DESIGN.md); a subscription link
 * (with `period`) also /v1/links/subscribe, /v1/links/subscriptions, /v1/links/subscribers and
 * /v1/links/subscribers/remove.
 */

export const CreateLinkRequest = z.strictObject({
  recipient: Address,
  amount: AmountInput,
  expires_at: z
    .number()
    .int()
    .positive()
    .max(2 ** 53 - 1)
    .optional(),
  notify_url: NotifyUrl.optional(),
  notify_included: NotifyIncluded.optional(),
  return_url: ReturnUrl.optional(),
  period: SubscriptionPeriod.optional().describe("seconds: makes a subscription link (each visitor signs these terms), as POST /v1/subscriptions takes it"),
  end: Count.optional().describe("subscription links only: unix seconds, exclusive; 0 or absent = no end"),
});
export type CreateLinkRequest = z.infer<typeof CreateLinkRequest>;

export const CloseLinkRequest = z.strictObject({ manage_token: Token });

export const CreateLinkResponse = z.strictObject({
  link_id: LinkId,
  link: CapabilityToken,
  url: z.string(),
  manage_token: CapabilityToken.describe("closes the link; lists (with their capabilities) and removes its subscribers: keep it on your server"),
  view_token: CapabilityToken.describe(
    "read-only (`lv.`): lists a subscription link's subscribers' states and payments, never a capability; what the merchant page asks for",
  ),
  expires_at: UnixSeconds,
  amount: Amount,
  recipient: Address,
  notify_url: z.string().optional(),
  period: z.number().int().optional().describe("a subscription link's period, in seconds"),
  end: z.number().int().optional().describe("a subscription link's end: unix seconds, exclusive; 0 = no end"),
  notify_included: z.literal(true).optional().describe("extension: repeated when notify_url was accepted with it"),
});
export type CreateLinkResponse = z.infer<typeof CreateLinkResponse>;

export const CloseLinkResponse = z.strictObject({ link_id: LinkId, closed: z.literal(true) });
export type CloseLinkResponse = z.infer<typeof CloseLinkResponse>;

/** POST /v1/links/subscribe: a payer's signature on a setup minted by a subscription link (browser-safe answer). */
export const SubscribeLinkRequest = z.strictObject({ setup_token: Token, payer: Address, signature: Signature });

/** Finalize's answer without the capability (kept against the link), with the link's id and where the subscriber stands. */
export const SubscribeLinkResponse = FinalizeSubscriptionResponse.omit({ subscription: true }).extend({
  link_id: LinkId,
  state: z
    .enum(["ACTIVE", "PENDING"])
    .describe(
      "ACTIVE once the first charge (made by the service) is settled: listed, watched, renewed. PENDING while it is confirming: post the same body again until ACTIVE (the service also makes it ACTIVE by itself once the charge is final); a pending subscriber whose first charge is refused or reverted, or with no charge sent within 600 s, is dropped",
    ),
});
export type SubscribeLinkResponse = z.infer<typeof SubscribeLinkResponse>;

/** POST /v1/links/subscriptions: the link's active subscribers (first charge settled), oldest first, a page at a time. */
export const LinkSubscriptionsRequest = z.strictObject({
  manage_token: Token,
  after: z
    .string()
    .regex(/^[0-9]{1,19}$/)
    .optional()
    .describe("the previous page's next"),
});

/** POST /v1/links/view-token: the link's read-only view token, for a link made before it had one or for a page to be handed. */
export const LinkViewTokenRequest = z.strictObject({ manage_token: Token });
export const LinkViewTokenResponse = z.strictObject({ link_id: LinkId, view_token: CapabilityToken });
export type LinkViewTokenResponse = z.infer<typeof LinkViewTokenResponse>;

/** POST /v1/links/subscribers/remove: the merchant drops a subscriber of its link (its listing and its watch; the subscription itself is the payer's). */
export const RemoveLinkSubscriberRequest = z.strictObject({ manage_token: Token, subscription_id: Hash });
export const RemoveLinkSubscriberResponse = z.strictObject({
  link_id: LinkId,
  subscription_id: Hash,
  removed: z.boolean().describe("false when the link had no such subscriber (already removed, or dropped while pending)"),
});
export type RemoveLinkSubscriberResponse = z.infer<typeof RemoveLinkSubscriberResponse>;

export const LinkSubscriptionsResponse = z.strictObject({
  subscriptions: z.array(
    z.strictObject({
      subscription_id: Hash,
      subscription: CapabilityToken.describe("the capability your server charges with: keep it server-side, encrypted"),
      payer: Address,
      created_at: UnixSeconds,
    }),
  ),
  next: z.string().nullable().describe("pass as after for the next page; null on the last page"),
});
export type LinkSubscriptionsResponse = z.infer<typeof LinkSubscriptionsResponse>;
