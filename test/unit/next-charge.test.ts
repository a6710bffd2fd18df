import { assert } from "chai";
import { nextChargeAt } from "../../src/recurring/terms.js";

describe("the next charge a page names (nextChargeAt)", () => {
  const terms = { start: 1000n, period: 100n, end: 0n };
  const none = { revoked: false, paidCount: 0, lastPeriod: 0n };

  it("before the start: the start; never charged: the current period, due now", () => {
    assert.equal(nextChargeAt(terms, none, 500n), 1000n);
    assert.equal(nextChargeAt(terms, none, 1250n), 1200n);
  });

  it("the current period charged: the next period's start; an older charge leaves the current period due", () => {
    assert.equal(nextChargeAt(terms, { revoked: false, paidCount: 3, lastPeriod: 2n }, 1250n), 1300n);
    assert.equal(nextChargeAt(terms, { revoked: false, paidCount: 1, lastPeriod: 0n }, 1250n), 1200n);
  });

  it("none when revoked, or when the next period starts at or after the end", () => {
    assert.isNull(nextChargeAt(terms, { ...none, revoked: true }, 500n));
    const ending = { ...terms, end: 1300n };
    assert.isNull(nextChargeAt(ending, { revoked: false, paidCount: 3, lastPeriod: 2n }, 1250n));
    assert.equal(nextChargeAt(ending, none, 1250n), 1200n);
    assert.isNull(nextChargeAt(ending, none, 1300n));
  });
});
