import { z } from "zod";
import { Address, Amount, AmountUnits, BlockNumber, Hash, UnixMilliseconds, UnixSeconds } from "./primitives.js";

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
  .enum(["pay", "deposit", "x402", "forward"])
  .describe(
    "pay: the buyer's wallet paid through the Splitter (allowance, permit or authorization); deposit: a plain transfer to the payment address, settled by anyone; x402: an x402 settlement (to a payment address or to the recipient's x402 receiver); forward: funds that reached a payment address other than as its payment (a deposit short of the amount taken by the recipient, a later deposit after the payment settled), forwarded to the recipient with the fee (the Splitter's DepositForwarded)",
  );

export const ListedPayment = z.strictObject({
  reference: Hash.nullable().describe(
    "the payment's reference (a link payment's starts with its link_id); for an x402 receiver payment the authorization's nonce; null for a plain transfer an x402 receiver split and for a forward (no reference exists)",
  ),
  amount: Amount.describe(
    "what the payer moved, excess included: a payment address that held more than the payment's amount moved all of it (its PaidInExcess), with the fee on all of it",
  ),
  amount_units: AmountUnits,
  fee_units: AmountUnits.describe("the fee taken out of amount; amount_units - fee_units is what reached the recipient, unit for unit"),
  payer: Address.nullable().describe(
    "the wallet that paid: the buyer's for a pay or x402 settlement; for a payment address (deposit, forward) the one sender whose own transfers into it reached the amount first, found as the refund target is; for a plain transfer to an x402 receiver, the receiver (the chain names no other sender there). null: the chain cannot say (no one wallet's own transfers reached the amount, or its transfers lie further back than a page reads); refunds answer PAYER_UNKNOWN with the senders, and you name one as to",
  ),
  tx_hash: Hash,
  block_number: z.string().regex(/^[0-9]+$/),
  timestamp: UnixSeconds.describe("the block's time (whole seconds: on Base about five blocks share one)"),
  timestamp_ms: UnixMilliseconds.optional().describe(
    "the block's time in milliseconds, where the node serves it (Base since Denim: blockTimestampMs on logs, timestampMs on blocks); absent otherwise",
  ),
  settled_by: SettledBy,
  final: z.boolean().describe("the block is at or below the finality head (capabilities' finality rule); false: it may still leave the chain"),
});
export type ListedPayment = z.infer<typeof ListedPayment>;

export const ListPaymentsResponse = z.strictObject({
  payments: z.array(ListedPayment).describe("newest first"),
  next_before_block: BlockNumber.nullable().describe(
    "pass as before_block for older payments; null once the search reached the deployment's first block (nothing older exists). A page makes a bounded number of reads, so an empty page can still have a next one",
  ),
  from_timestamp: UnixSeconds.describe(
    "the time of the lowest block this page read (next_before_block's, or the deployment's first block): with to_timestamp, the dates this page covers, every payment between them shown here unless past limit (then the next page starts with them)",
  ),
  to_timestamp: UnixSeconds.describe("the time of the highest block this page read (before_block's predecessor, or the latest block)"),
  as_of_block: BlockNumber.describe("the latest block when this page was read"),
});
export type ListPaymentsResponse = z.infer<typeof ListPaymentsResponse>;
