import { assert } from "chai";
import { getAddress, type Address } from "viem";
import { fundedBy, fundedUnits } from "../../src/x402/receiver-funding.js";

/** Issue 44: a receiver counts as funded only with at least the smallest amount a split pays a fee on. */
describe("an x402 receiver's funded rule (src/x402/receiver-funding.ts)", () => {
  it("the smallest amount a split pays a fee on: the least amount with floor(amount × fee_bps / 10,000) ≥ 1", () => {
    for (const feeBps of [1, 3, 30, 200, 333, 9_999, 10_000]) {
      const least = fundedUnits(feeBps);
      assert.isTrue((least * BigInt(feeBps)) / 10_000n >= 1n, `${feeBps} bps: ${least} pays a fee`);
      assert.equal(((least - 1n) * BigInt(feeBps)) / 10_000n, 0n, `${feeBps} bps: ${least - 1n} pays none`);
    }
    assert.equal(fundedUnits(200), 50n);
    assert.equal(fundedUnits(0), 1n, "with no fee, every unit counts");
  });

  it("a round's transfers to one receiver count together; dust funds nothing; addresses compare whatever their case", () => {
    const a = getAddress("0x00000000000000000000000000000000000000a1");
    const b = getAddress("0x00000000000000000000000000000000000000b2");
    const transfers = [
      { to: a.toLowerCase() as Address, value: 30n },
      { to: a, value: 20n },
      { to: b, value: 1n },
    ];
    assert.deepEqual(fundedBy([a, b], transfers, 50n), [a]);
    assert.deepEqual(fundedBy([a, b], transfers, 51n), []);
  });
});
