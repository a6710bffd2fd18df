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

/** Links: POST /v1/links and /v1/links/close (DESIGN.md); a subscription link (with `period`) also /v1/links/subscribe and /v1/links/subscriptions. */

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
  manage_token: CapabilityToken,
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

/** Finalize's answer without the capability (kept against the link), with the link's id. */
export const SubscribeLinkResponse = FinalizeSubscriptionResponse.omit({ subscription: true }).extend({ link_id: LinkId });
export type SubscribeLinkResponse = z.infer<typeof SubscribeLinkResponse>;

/** POST /v1/links/subscriptions: the link's subscribers, oldest first, a page at a time. */
export const LinkSubscriptionsRequest = z.strictObject({
  manage_token: Token,
  after: z
    .string()
    .regex(/^[0-9]{1,19}$/)
    .optional()
    .describe("the previous page's next"),
});

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
