import { z } from "zod";
import { Address, Amount, AmountUnits, BlockNumber, Hash, UnixSeconds } from "./primitives.js";

/** POST /v1/payments/list (extension): the payments to one recipient, from the chain's logs, newest first. */

/** The most payments one page answers (a page may end early: see next_before_block). */
export const MAX_PAYMENTS_PER_PAGE = 100;
export const DEFAULT_PAYMENTS_PER_PAGE = 50;

export const ListPaymentsRequest = z.strictObject({
  recipient: Address.describe("the wallet paid: payments whose Paid (or x402 receiver event) names it as recipient"),
  before_block: z
    .string()
    .regex(/^[1-9][0-9]{0,19}$/)
    .optional()
    .describe("the previous page's next_before_block: only payments in blocks below it. Omitted: from the latest block"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_PAYMENTS_PER_PAGE)
    .optional()
    .describe(`payments per page, 1 to ${MAX_PAYMENTS_PER_PAGE} (default ${DEFAULT_PAYMENTS_PER_PAGE}); a page may hold fewer and still have a next page`),
});
export type ListPaymentsRequest = z.infer<typeof ListPaymentsRequest>;

/** How the money reached the recipient. */
export const SettledBy = z
  .enum(["pay", "deposit", "x402"])
  .describe(
    "pay: the buyer's wallet paid through the Splitter (allowance, permit or authorization); deposit: a plain transfer to the payment address, settled by anyone; x402: an x402 settlement (to a payment address or to the recipient's x402 receiver)",
  );

export const ListedPayment = z.strictObject({
  reference: Hash.nullable().describe(
    "the payment's reference (a link payment's starts with its link_id); for an x402 receiver payment the authorization's nonce; null for a plain transfer an x402 receiver split (no reference exists)",
  ),
  amount: Amount.describe("what the payer paid"),
  amount_units: AmountUnits,
  fee_units: AmountUnits.describe("the service's fee out of amount, as the event emitted it; the recipient got amount_units - fee_units"),
  payer: Address.describe("the buyer's wallet, or the payment address (x402 receiver) for a plain transfer: the chain names no other sender there"),
  tx_hash: Hash,
  block_number: z.string().regex(/^[0-9]+$/),
  timestamp: UnixSeconds.describe("the block's time"),
  settled_by: SettledBy,
  final: z.boolean().describe("the block is at or below the finality head (capabilities' finality rule); false: it may still leave the chain"),
});
export type ListedPayment = z.infer<typeof ListedPayment>;

export const ListPaymentsResponse = z.strictObject({
  payments: z.array(ListedPayment).describe("newest first"),
  next_before_block: BlockNumber.nullable().describe(
    "pass as before_block for older payments; null once the search reached the chain's first block. A page covers a bounded block range, so an empty page can still have a next one",
  ),
  as_of_block: BlockNumber.describe("the latest block when this page was read"),
});
export type ListPaymentsResponse = z.infer<typeof ListPaymentsResponse>;
