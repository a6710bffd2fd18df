import { assert } from "chai";
import { formatAmount, mulDivUp, parseAmount, parseUnits } from "../../src/money.js";

describe("money", () => {
  it("parses decimal amounts into micro-units exactly", () => {
    assert.equal(parseAmount("12.5"), 12_500_000n);
    assert.equal(parseAmount("0.000001"), 1n);
    assert.equal(parseAmount("1000000"), 1_000_000_000_000n);
    assert.equal(parseAmount("0.1"), 100_000n);
    assert.equal(parseAmount("123456789012345678.999999"), 123456789012345678999999n);
  });

  it("refuses anything but a plain decimal with at most 6 fractional digits", () => {
    for (const bad of ["", "1.", ".5", "-1", "+1", "1e6", "01", "1.1234567", " 1", "1 ", "0x10", "NaN", "1,5"]) {
      assert.isNull(parseAmount(bad), bad);
    }
  });

  it("formats micro-units with exactly six fractional digits", () => {
    assert.equal(formatAmount(0n), "0.000000");
    assert.equal(formatAmount(1n), "0.000001");
    assert.equal(formatAmount(102_041n), "0.102041");
    assert.equal(formatAmount(12_500_000n), "12.500000");
    assert.throws(() => formatAmount(-1n), RangeError, "negative amount");
  });

  it("round-trips every formatted amount", () => {
    for (const units of [0n, 1n, 999_999n, 1_000_000n, 10n ** 23n + 7n]) assert.equal(parseAmount(formatAmount(units)), units);
  });

  it("parses unit strings and rounds the fee floor up", () => {
    assert.equal(parseUnits("1500000"), 1_500_000n);
    for (const bad of ["", "-1", "1.0", "01", "1e3"]) assert.isNull(parseUnits(bad), bad);
    // network_fee / (1 - fee_bps / 10000) = 100000 / 0.98 = 102040.8… → 102041
    assert.equal(mulDivUp(100_000n, 10_000n, 9_800n), 102_041n);
    assert.equal(mulDivUp(98n, 100n, 98n), 100n);
  });
});
