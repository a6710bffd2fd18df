import { assert } from "chai";
import { BATCH_ITEM_OVERHEAD, BATCH_SELF_CALL, batchGasLimit, type BatchedRenewalGas } from "../../src/recurring/charge-gas.js";

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
