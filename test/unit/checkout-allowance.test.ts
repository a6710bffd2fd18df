import { assert } from "chai";
import { maxUint256 } from "viem";
import { allowanceTotal, allowanceWords, UNLIMITED_ALLOWANCE } from "../../src/checkout/allowance.js";
import { displayAmount } from "../../src/checkout/format.js";

describe("checkout allowance: one allowance serves all of a payer's subscriptions", () => {
  it("adds this subscription's share to the current allowance, never replaces it", () => {
    assert.equal(allowanceTotal(0n, 60_000_000n), 60_000_000n);
    assert.equal(allowanceTotal(60_000_000n, 12_000_000n), 72_000_000n);
  });

  it("sends nothing when the allowance is already unlimited (at or above 2^255), and saturates at max uint256", () => {
    assert.isNull(allowanceTotal(maxUint256, 1n));
    assert.isNull(allowanceTotal(UNLIMITED_ALLOWANCE, 5_000_000n));
    assert.equal(allowanceTotal(UNLIMITED_ALLOWANCE - 1n, 5_000_000n), UNLIMITED_ALLOWANCE - 1n + 5_000_000n);
    assert.equal(allowanceTotal(UNLIMITED_ALLOWANCE - 1n, maxUint256), maxUint256);
  });

  it("tells the buyer the total and why: what this subscription adds to the existing allowance", () => {
    const amount = (units: bigint) => displayAmount(units, "USDC");
    assert.equal(allowanceWords(0n, 60_000_000n, 60_000_000n, amount), "Allow the subscription contract to charge up to 60.00 USDC for this subscription.");
    assert.equal(
      allowanceWords(7_000_000n, 5_000_000n, 12_000_000n, amount),
      "Allow the subscription contract to charge up to 12.00 USDC in all: this adds 5.00 USDC for this subscription to your existing allowance of 7.00 USDC, which your other subscriptions rely on.",
    );
    assert.include(allowanceWords(UNLIMITED_ALLOWANCE - 1n, maxUint256, maxUint256, amount), "charge up to the maximum in all");
  });
});
