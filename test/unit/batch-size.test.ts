import { assert } from "chai";
import {
  batchLength,
  expectedBatchGas,
  fitsOneBatch,
  mostBatchGas,
  mostBatchLimit,
  TRANSACTION_GAS_CAP,
  type BatchRoom,
} from "../../src/recurring/batch-size.js";
import {
  batchedRenewalGas,
  batchFixedGas,
  batchGasLimit,
  LONE_RENEWAL_FIGURE,
  measuredChargeGas,
  RENEWAL_GAS_FIGURE,
  type BatchItemGas,
} from "../../src/recurring/charge-gas.js";

// A batch as large as the block allows: a builder takes a transaction only while its gas limit fits
// what the block has left, and one sender gets at most 16 transactions into a block. The measured
// figures (snapshots/gas.json), as the service prices batches.
const figures = batchedRenewalGas();
const priced = { figures, fixed: batchFixedGas(figures, measuredChargeGas(undefined, LONE_RENEWAL_FIGURE)) };
const renewalGas = (measuredChargeGas(undefined, RENEWAL_GAS_FIGURE) * 12n) / 10n;
/** A renewal wave of one payer and one merchant (the bench's), or of a payer and a merchant each new to the batch. */
const warm = (n: number): BatchItemGas[] =>
  Array.from({ length: n }, () => ({ payer: "0xa1", recipient: "0xb1", renewal: true, newSlot: false, gas: renewalGas }));
const cold = (n: number): BatchItemGas[] =>
  Array.from({ length: n }, (_, i) => ({ payer: `0xa${i}`, recipient: `0xb${i}`, renewal: true, newSlot: i % 6 === 0, gas: renewalGas }));
const base25M: BatchRoom = { maxItems: 1000, blockGasLimit: 25_000_000n, perBlock: 16 };

/**
 * The blocks a wave of `items` needs when cut into batches by `lengthOf`, packed as a builder packs
 * them: in order, a batch taken while its limit fits what the block has left (its expected use
 * counted once taken), at most `perBlock` per block.
 */
function blocksFor(items: BatchItemGas[], room: BatchRoom, lengthOf: (rest: BatchItemGas[]) => number): number {
  const batches: Array<{ limit: bigint; used: bigint }> = [];
  for (let at = 0; at < items.length; ) {
    const batch = items.slice(at, at + lengthOf(items.slice(at)));
    batches.push({ limit: batchGasLimit(batch, figures), used: expectedBatchGas(batch, priced) });
    at += batch.length;
  }
  let blocks = 0;
  while (batches.length > 0) {
    blocks++;
    let used = 0n;
    let taken = 0;
    while (batches.length > 0 && taken < room.perBlock && used + batches[0]!.limit <= room.blockGasLimit) {
      used += batches.shift()!.used;
      taken++;
    }
    if (taken === 0) throw new Error("a batch larger than a block");
  }
  return blocks;
}

describe("batch size: as large as the block and the pool's window allow", () => {
  it("a wave cut by batchLength needs no more blocks than cut in batches of any one size, warm or cold, on a 25M block", () => {
    for (const wave of [warm(10_000), cold(3_000)]) {
      const ours = blocksFor(wave, base25M, (rest) => batchLength(rest, base25M, priced));
      for (let size = 10; size <= 300; size += 2) {
        if (batchGasLimit(wave.slice(0, size), figures) > TRANSACTION_GAS_CAP) break;
        assert.isAtMost(
          ours,
          blocksFor(wave, base25M, () => size),
          `batches of ${size}`,
        );
      }
    }
  });

  it("fills a 25M block with 16 batches of one payer's renewals, where batches of 200 or of the per-transaction cap fill it with far fewer", () => {
    const length = batchLength(warm(1000), base25M, priced);
    assert.isAtLeast(length, 30);
    assert.isAtMost(length, 40);
    const batch = warm(length);
    assert.isTrue(15n * expectedBatchGas(batch, priced) + batchGasLimit(batch, figures) <= base25M.blockGasLimit, "the 16th still fits");
    assert.isAtMost(
      blocksFor(warm(10_000), base25M, () => length),
      18,
    );
    assert.isAtLeast(
      blocksFor(warm(10_000), base25M, () => 200),
      25,
    );
  });

  it("keeps every batch's gas limit under EIP-7825's 2^24 whatever the block allows, and within CHARGE_BATCH_MAX", () => {
    const huge: BatchRoom = { maxItems: 1000, blockGasLimit: 10n ** 12n, perBlock: 16 };
    const length = batchLength(warm(1000), huge, priced);
    assert.isTrue(batchGasLimit(warm(length), figures) <= TRANSACTION_GAS_CAP);
    assert.isTrue(batchGasLimit(warm(length + 1), figures) > TRANSACTION_GAS_CAP);
    assert.equal(batchLength(warm(1000), { ...huge, maxItems: 50 }, priced), 50);
    assert.equal(batchLength(warm(1000), { ...base25M, maxItems: 7 }, priced), 7);
  });

  it("takes a larger block's room: Base mainnet's 150M holds batches several times a 25M block's", () => {
    const length = batchLength(warm(1000), { ...base25M, blockGasLimit: 150_000_000n }, priced);
    assert.isAtLeast(length, 5 * batchLength(warm(1000), base25M, priced));
  });

  it("a single charge always fits, even one larger than a block's share", () => {
    const big: BatchItemGas = { payer: "0xa1", recipient: "0xb1", renewal: false, newSlot: false, gas: 20_000_000n };
    assert.isTrue(fitsOneBatch([big], base25M, priced));
    assert.equal(batchLength([big, ...warm(10)], base25M, priced), 1);
  });

  it("the quick bounds never say a batch fits when it does not", () => {
    for (const wave of [warm(400), cold(400)]) {
      for (let n = 1; n <= wave.length; n++) {
        const items = wave.slice(0, n);
        const most = items.reduce((sum, i) => sum + mostBatchGas(i, priced), 0n);
        const mostLimit = items.reduce((sum, i) => sum + mostBatchLimit(i, priced), 0n);
        assert.isTrue(most >= expectedBatchGas(items, priced), `use, ${n}`);
        assert.isTrue(mostLimit >= batchGasLimit(items, figures), `limit, ${n}`);
      }
    }
  });
});
