import { BATCH_SELF_CALL, batchGasLimit, renewalGasShares, type BatchedRenewalGas, type BatchItemGas } from "./charge-gas.js";

/**
 * EIP-7825: no transaction may ask for more than 2^24 gas (16,777,216; Ethereum's Fusaka, which the
 * OP stack and Base follow). A batch's gas limit stays under it whatever the block allows.
 */
export const TRANSACTION_GAS_CAP = 16_777_216n;

/** What bounds one batch besides its own charges. */
export interface BatchRoom {
  /** At most this many charges (CHARGE_BATCH_MAX). */
  maxItems: number;
  /** The block's gas limit, as the node last reported it. */
  blockGasLimit: bigint;
  /** How many of the relayer's transactions one block may carry: the pool's window (16 per sender). */
  perBlock: number;
}

/** The measured figures a batch is priced from, and its fixed cost (charge-gas.ts). */
export interface BatchFigures {
  figures: BatchedRenewalGas;
  fixed: bigint;
}

/**
 * The gas a batch is expected to use, as its renewals are priced (`renewalGasShares`: the measured
 * figures of what each touches, the batch's fixed cost spread over them) and each first charge its
 * own estimate without the limit's 1.2 margin.
 */
export function expectedBatchGas(items: readonly BatchItemGas[], { figures, fixed }: BatchFigures): bigint {
  const shares = renewalGasShares(items, figures, fixed);
  return items.reduce((sum, item, i) => sum + (shares[i] ?? (item.gas * 10n) / 12n), 0n);
}

/**
 * Whether `items` fit one batch. A block builder takes a transaction only while its gas limit fits
 * what the block has left (the gas the block's earlier transactions used), and one sender gets at
 * most `perBlock` transactions into a block: so a batch is as large as lets `perBlock` like it fill
 * one block, the last one's limit fitting after the others' use, and its limit stays under the
 * per-transaction cap. A larger batch leaves the end of every block empty (a 25M block takes one
 * batch of 300 renewals, 12.5M used under a 15.8M limit, and the next does not fit; 16 batches of
 * 36 take 576), a smaller one leaves the window short of gas. A single charge always fits.
 */
export function fitsOneBatch(items: readonly BatchItemGas[], room: BatchRoom, priced: BatchFigures): boolean {
  if (items.length <= 1) return true;
  if (items.length > room.maxItems) return false;
  const limit = batchGasLimit(items, priced.figures);
  if (limit > TRANSACTION_GAS_CAP) return false;
  return expectedBatchGas(items, priced) * BigInt(room.perBlock - 1) + limit <= room.blockGasLimit;
}

/** How many of `items`, from the first, one batch takes (at least one): the longest prefix that fits. */
export function batchLength(items: readonly BatchItemGas[], room: BatchRoom, priced: BatchFigures): number {
  // Adding a charge never lowers a batch's count, limit or use: the prefixes that fit are the short ones.
  let fits = 1;
  let overflows = items.length + 1;
  while (overflows - fits > 1) {
    const middle = Math.floor((fits + overflows) / 2);
    if (fitsOneBatch(items.slice(0, middle), room, priced)) fits = middle;
    else overflows = middle;
  }
  return fits;
}

/**
 * The most gas a charge can add to a batch's expected use, whatever else the batch holds: a renewal's
 * share when nothing of it is warm (a new payer, a new merchant, a new slot; the fixed cost it
 * carries is what its warm figure already spread over 20, rounded up), a first charge its estimate.
 * While a batch's sum of these stays within the block's share it surely fits, and the exact (dearer)
 * check can wait.
 */
export function mostBatchGas(item: BatchItemGas, { figures }: BatchFigures): bigint {
  if (!item.renewal) return item.gas;
  return figures.warm + figures.newPayer + figures.newRecipient + figures.newSlot + 1n;
}

/**
 * The most gas limit a charge can add to a batch: `batchGasLimit`'s first item (its own limit and
 * self-call) or a cold renewal's share with its margin, whichever is more; a first charge its
 * estimate, overhead and signature room.
 */
export function mostBatchLimit(item: BatchItemGas, { figures }: BatchFigures): bigint {
  const alone = item.gas + BATCH_SELF_CALL + (item.signatureRoom ?? 0n);
  if (!item.renewal) return alone;
  const cold = ((figures.warm + figures.newPayer + figures.newRecipient + figures.newSlot) * 12n) / 10n;
  return alone > cold ? alone : cold;
}
