import { assert } from "chai";
import {
  BATCH_ITEM_OVERHEAD,
  BATCH_SELF_CALL,
  batchedRenewalGas,
  batchFixedGas,
  batchGasLimit,
  LONE_RENEWAL_FIGURE,
  measuredChargeGas,
  renewalGasShares,
  type BatchedRenewalGas,
} from "../../src/recurring/charge-gas.js";
import { batchedReimbursements, l1FeeShares, type BatchPricingItem } from "../../src/recurring/batch-reimbursement.js";
import { weiToUnits } from "../../src/recurring/gas-quote.js";

/** A batch's gas limit: each charge priced by what it touches first in the batch. */
describe("batchGasLimit", () => {
  const figures: BatchedRenewalGas = { warm: 40_000n, newPayer: 9_000n, newRecipient: 4_000n, newSlot: 17_000n };
  const margin = (gas: bigint) => (gas * 12n) / 10n;
  /** A renewal's own limit: the dearest renewal measured alone, with its margin. */
  const alone = 130_000n;
  const renewal = (payer: string, recipient: string, newSlot = false) => ({ payer, recipient, renewal: true, newSlot, gas: alone });

  it("prices the first charge as it costs alone (the batch's base and first touches), plus its self-call", () => {
    assert.equal(batchGasLimit([renewal("0xAA", "0xBB")], figures), alone + BATCH_SELF_CALL);
    assert.equal(batchGasLimit([], figures), 0n);
  });

  it("prices a later renewal's payer and merchant cold only the first time the batch meets them, case-blind", () => {
    const limit = batchGasLimit([renewal("0xAA", "0xBB"), renewal("0xaa", "0xbb"), renewal("0xaa", "0xCC"), renewal("0xDD", "0xcc")], figures);
    const expected =
      alone +
      BATCH_SELF_CALL + // the first: as alone, plus its self-call
      margin(40_000n) + // both met (another spelling of the same addresses)
      margin(40_000n + 4_000n) + // a new merchant
      margin(40_000n + 9_000n); // a new payer
    assert.equal(limit, expected);
  });

  it("adds a new slot of charge records where the period opens one, and a first charge's own estimate less the base, plus its self-call", () => {
    const first = { payer: "0xaa", recipient: "0xbb", renewal: false, newSlot: false, gas: 150_000n };
    const limit = batchGasLimit([first, renewal("0xaa", "0xbb", true)], figures);
    assert.equal(limit, 150_000n + BATCH_SELF_CALL + margin(40_000n + 17_000n), "the first charge made its accounts warm for the renewal after it");
    const later = batchGasLimit([renewal("0xaa", "0xbb"), first], figures);
    assert.equal(
      later,
      alone + BATCH_SELF_CALL + 150_000n + BATCH_ITEM_OVERHEAD,
      "a first charge later in the batch: its estimate less the base, plus its self-call",
    );
  });

  it("sets a contract payer's signature room aside for its first charge, first in the batch or later, and nothing for others", () => {
    const contractFirst = { payer: "0xcc", recipient: "0xbb", renewal: false, newSlot: false, gas: 150_000n, signatureRoom: 200_000n };
    const eoaFirst = { payer: "0xee", recipient: "0xbb", renewal: false, newSlot: false, gas: 140_000n, signatureRoom: 0n };
    assert.equal(batchGasLimit([contractFirst], figures), 150_000n + BATCH_SELF_CALL + 200_000n);
    assert.equal(
      batchGasLimit([eoaFirst, contractFirst, renewal("0xee", "0xbb")], figures),
      140_000n + BATCH_SELF_CALL + (150_000n + BATCH_ITEM_OVERHEAD + 200_000n) + margin(40_000n),
    );
  });
});

/** A batched renewal's gas share (its reimbursement's L2 part) and the split of the batch's L1 data fee. */
describe("renewalGasShares and batchedReimbursements", () => {
  const figures: BatchedRenewalGas = { warm: 40_000n, newPayer: 9_000n, newRecipient: 4_000n, newSlot: 17_000n };
  const renewal = (payer: string, recipient: string, newSlot = false) => ({ payer, recipient, renewal: true, newSlot, gas: 130_000n });
  const first = { payer: "0xaa", recipient: "0xcc", renewal: false, newSlot: false, gas: 150_000n };
  const fixed = 40_000n;

  it("derives the batch's fixed cost from the lone renewal and the cold share (batch of n = fixed + n × marginal)", () => {
    // cold share 53,000 = fixed / 20 + marginal; lone + self-call = fixed + marginal.
    const lone = 100_000n;
    const derived = batchFixedGas(figures, lone);
    assert.equal(derived, ((lone + BATCH_SELF_CALL - 53_000n) * 20n) / 19n);
    const marginal = lone + BATCH_SELF_CALL - derived;
    assert.closeTo(Number(derived / 20n + marginal), 53_000, 2);
  });

  it("a renewal's share: its warm share and new slot its own; the first touches of payers and merchants and the fixed cost shared equally, as over 20 at least; a first charge: none", () => {
    const twentieth = fixed / 20n;
    // Four items, three renewals: first touches 9,000 + 4,000 (AA/BB) and 9,000 (DD; 0xcc met by the first charge);
    // the renewals' part of the fixed cost (3/4 of it), split as over 20.
    const shares = renewalGasShares([renewal("0xAA", "0xBB"), renewal("0xaa", "0xbb", true), first, renewal("0xDD", "0xcc")], figures, fixed);
    const each = ((fixed * 3n) / 4n + 22_000n + 19n) / 20n;
    assert.deepEqual(shares, [40_000n - twentieth + each, 57_000n - twentieth + each, null, 40_000n - twentieth + each]);

    // Fifty renewals of one payer and one merchant: the fixed cost and the first touches split over the fifty.
    const fifty = renewalGasShares(
      Array.from({ length: 50 }, () => renewal("0xaa", "0xbb")),
      figures,
      fixed,
    );
    const over50 = (fixed + 13_000n + 49n) / 50n;
    assert.deepEqual(new Set(fifty), new Set([40_000n - twentieth + over50]), "every renewal pays the same");
    const total = fifty.reduce((sum, share) => sum! + share!, 0n)!;
    assert.closeTo(Number(total), Number(fixed + 50n * (40_000n - twentieth) + 13_000n), 50, "the shares add up to the batch as counted");
    assert.deepEqual(renewalGasShares([first], figures, fixed), [null]);
  });

  it("splits the L1 fee by each item's bytes, rounded up", () => {
    assert.deepEqual(l1FeeShares(1_000n, [100, 100, 200]), [250n, 250n, 500n]);
    assert.deepEqual(l1FeeShares(10n, [1, 2]), [4n, 7n]);
    assert.deepEqual(l1FeeShares(10n, []), []);
  });

  it("prices a renewal at its share with the margin beyond the network fee, never above its lone price; a first charge keeps its own", () => {
    const pricing = { unitsPerEth: 3_000_000_000n, tipWei: 0n }; // 3,000 USDC per ETH
    const feePerGas = 2_000_000_000n; // 2 gwei
    const item = (over: Partial<BatchPricingItem>): BatchPricingItem => ({
      ...renewal("0xaa", "0xbb"),
      lone: 1_000_000n,
      networkFee: 100_000n,
      l1Share: 0n,
      ...over,
    });
    const items = [item({ l1Share: 10n ** 12n }), item({}), item({ ...first, lone: 777_777n })];
    const [a, b, c] = batchedReimbursements(items, figures, fixed, feePerGas, pricing);
    const shares = renewalGasShares(items, figures, fixed);
    const expected = (gas: bigint, l1: bigint) => weiToUnits(((gas * 11n + 9n) / 10n) * feePerGas + (l1 * 11n + 9n) / 10n, pricing) - 100_000n;
    assert.equal(a, expected(shares[0]!, 10n ** 12n));
    assert.equal(b, expected(shares[1]!, 0n));
    assert.equal(c, 777_777n, "a first charge keeps its own price");
    const capped = batchedReimbursements([item({ lone: 5n })], figures, fixed, feePerGas, pricing);
    assert.deepEqual(capped, [5n], "never above the lone price (itself within the signed maximum)");
    const covered = batchedReimbursements([item({})], figures, fixed, 1_000_000n, pricing);
    assert.deepEqual(covered, [0n], "nothing when the network fee covers it");
  });
});

/** The measured figures (snapshots/gas.json), as the service prices with them. */
describe("batched renewals priced from the measured figures", () => {
  const figures = batchedRenewalGas();
  const fixed = batchFixedGas(figures, measuredChargeGas(undefined, LONE_RENEWAL_FIGURE));
  const pricing = { unitsPerEth: 3_000_000_000n, tipWei: 1_000_000n };
  const renewals = (n: number) =>
    Array.from({ length: n }, () => ({
      payer: "0xaa",
      recipient: "0xbb",
      renewal: true,
      newSlot: false,
      gas: 132_949n,
      lone: 1_000_000n,
      networkFee: 100_000n,
      l1Share: 0n,
    }));

  it("a straggler batch of two is priced as a batch of 20 at most: at 0.5 gwei its renewals, like the wave's batches of 50, pay the network fee only", () => {
    const feePerGas = 500_000_000n + pricing.tipWei;
    assert.deepEqual(batchedReimbursements(renewals(2), figures, fixed, feePerGas, pricing), [0n, 0n]);
    assert.deepEqual(new Set(batchedReimbursements(renewals(50), figures, fixed, feePerGas, pricing)), new Set([0n]));
  });

  it("a renewal of a batch of 50 is priced within 1.1-1.2x the batch's measured gas per renewal (the margin and the figures' rounding)", () => {
    const shares = renewalGasShares(renewals(50), figures, fixed) as bigint[];
    // A batch of 50 as counted by the figures: the fixed cost once, 50 marginal warm renewals, the first touches once.
    const marginal = figures.warm - fixed / 20n;
    const batch = fixed + 50n * marginal + figures.newPayer + figures.newRecipient;
    const ratio = (Number(shares[0]!) * 1.1) / (Number(batch) / 50);
    assert.isAtLeast(ratio, 1.1);
    assert.isAtMost(ratio, 1.2);
  });
});
