import { assert } from "chai";
import { maxUint256 } from "viem";
import { allowanceSentence, allowanceTotal, allowanceWords, suggestedPeriods, UNLIMITED_ALLOWANCE } from "../../src/checkout/allowance.js";
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

  it("the subscribe sentence: the most the contract can take, one charge per period on chain, nothing now, revocable", () => {
    const usdc = (units: bigint) => displayAmount(units, "USDC");
    assert.equal(
      allowanceSentence(9_990_000n, 0n, 12n, usdc),
      "This allowance lets the subscription contract take up to 119.88 USDC from your wallet: one charge of 9.99 USDC per period, for 12 periods. The contract enforces one charge per period on chain, nothing is taken now, and you can revoke the allowance at any time.",
    );
    assert.include(
      allowanceSentence(9_990_000n, 50_000n, 1n, usdc),
      "up to 10.04 USDC from your wallet: one charge of 9.99 USDC plus at most 0.05 USDC toward the network fee per period, for 1 period.",
    );
  });

  it("suggests every period of a plan with an end, and 12 for one without", () => {
    assert.deepEqual(suggestedPeriods({ start: 0, end: 0, period: 30 }), { suggested: 12n, max: 1000n });
    assert.deepEqual(suggestedPeriods({ start: 100, end: 100 + 3 * 30 + 1, period: 30 }), { suggested: 4n, max: 4n });
  });
});
