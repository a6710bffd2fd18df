import { z } from "zod";
import { Address, Amount, AmountInput, CapabilityToken, LinkId, NotifyIncluded, NotifyUrl, ReturnUrl, Token, UnixSeconds } from "./primitives.js";

/** Payment links: POST /v1/links and /v1/links/close (DESIGN.md). */

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
  notify_included: z.literal(true).optional().describe("extension: repeated when notify_url was accepted with it"),
});
export type CreateLinkResponse = z.infer<typeof CreateLinkResponse>;

export const CloseLinkResponse = z.strictObject({ link_id: LinkId, closed: z.literal(true) });
export type CloseLinkResponse = z.infer<typeof CloseLinkResponse>;
