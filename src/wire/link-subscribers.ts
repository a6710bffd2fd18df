import { z } from "zod";
import { Address, Amount, AmountUnits, BlockNumber, Hash, Token, UnixSeconds } from "./primitives.js";
import { SubscriptionStateName } from "./recurring.js";

/**
 * POST /v1/links/subscribers (extension): a subscription link's subscribers as a browser may see them
 * (the checkout's merchant page), with the link's view token: each active subscriber's state on chain
 * and last charge, never its capability. States are read once per block whatever the callers.
 */
export const LinkSubscribersRequest = z.strictObject({
  view_token: Token.describe("the link's view_token (`lv.`); a manage token is refused here (WRONG_LINK_TOKEN)"),
  after: z
    .string()
    .regex(/^[0-9]{1,19}$/)
    .optional()
    .describe("the previous page's next"),
});
export type LinkSubscribersRequest = z.infer<typeof LinkSubscribersRequest>;

export const LinkSubscribersResponse = z.strictObject({
  subscribers: z.array(
    z.strictObject({
      subscription_id: Hash,
      payer: Address,
      created_at: UnixSeconds.describe("when the subscriber signed through the link"),
      amount: Amount,
      amount_units: AmountUnits,
      period: z.number().int().describe("seconds"),
      state: SubscriptionStateName,
      paid_count: z.number().int().describe("periods charged"),
      last_period: z.number().int().nullable().describe("the last period charged (index from the start), null before the first charge"),
      last_period_start: UnixSeconds.nullable().describe("that period's start: the last charge paid for the period from here"),
      next_period_at: UnixSeconds.nullable(),
    }),
  ),
  next: z.string().nullable().describe("pass as after for the next page; null on the last page"),
  as_of_block: BlockNumber.nullable().describe("the block the states were read at (null for an empty page)"),
});
export type LinkSubscribersResponse = z.infer<typeof LinkSubscribersResponse>;
