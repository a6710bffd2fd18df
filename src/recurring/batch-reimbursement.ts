import { reimbursementFor, transactionCostUnits, type GasPricing } from "./gas-quote.js";
import { renewalGasShares, type BatchedRenewalGas, type BatchItemGas } from "./charge-gas.js";

/**
 * The margin a batched renewal's reimbursement carries, on its L2 share and its L1 share alike: 1.1.
 * The base fee may move by 12.5% between the quote and the block (an EIP-1559 step): one step down
 * leaves the payer at most 1.1 / 0.875 = 1.26× the cost, one step up at least 1.1 / 1.125 = 0.98×,
 * inside the promised band (0.95× to 1.3× of what the relayer paid, or the network fee).
 */
export const BATCHED_RENEWAL_MARGIN = { numerator: 11n, denominator: 10n } as const;

/** A charge of a batch as its reimbursement is decided: where it sits, what it was priced alone, and its share of the batch's calldata. */
export interface BatchPricingItem extends BatchItemGas {
  /** The reimbursement the charge was priced at alone (never above the signed maximum). */
  lone: bigint;
  /** The signed network fee, which covers ordinary gas. */
  networkFee: bigint;
  /** Its part of the batch's L1 data fee, wei. */
  l1Share: bigint;
}

/**
 * The batch's L1 data fee (`l1FeeWei`, quoted on the calldata sent) split over its items by the bytes
 * each takes in that calldata (a first charge carries a signature, a renewal none), rounded up.
 */
export function l1FeeShares(l1FeeWei: bigint, itemBytes: readonly number[]): bigint[] {
  const total = BigInt(itemBytes.reduce((sum, n) => sum + n, 0));
  if (total === 0n) return itemBytes.map(() => 0n);
  return itemBytes.map((n) => (l1FeeWei * BigInt(n) + total - 1n) / total);
}

/**
 * Each charge's reimbursement as it rides in the batch, in the batch's order. A renewal pays what it
 * costs there: its gas share (`renewalGasShares`: the measured figures of what the batch's renewals
 * touch, its fixed cost spread over them) at `feePerGas`, plus its share of the batch's L1 data fee,
 * both with `BATCHED_RENEWAL_MARGIN`, converted as the service converts gas to the token, beyond
 * the network fee; never more than it was priced alone, so never above the signed maximum. A first
 * charge keeps its own price (its signature check's gas is its own estimate).
 */
export function batchedReimbursements(
  items: readonly BatchPricingItem[],
  figures: BatchedRenewalGas,
  fixed: bigint,
  feePerGas: bigint,
  pricing: GasPricing,
): bigint[] {
  const shares = renewalGasShares(items, figures, fixed);
  const { numerator, denominator } = BATCHED_RENEWAL_MARGIN;
  return items.map((item, i) => {
    const share = shares[i];
    if (share === null || share === undefined) return item.lone;
    const gas = (share * numerator + denominator - 1n) / denominator;
    const l1 = (item.l1Share * numerator + denominator - 1n) / denominator;
    const priced = reimbursementFor(transactionCostUnits(gas, feePerGas, l1, pricing), item.networkFee);
    return priced < item.lone ? priced : item.lone;
  });
}
