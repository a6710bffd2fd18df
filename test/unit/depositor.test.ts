import { assert } from "chai";
import type { Address } from "viem";
import { payerAmong, type DepositTransfer } from "../../src/payments/depositor.js";

/** The payer rule alone (DESIGN v7): the one sender whose own transfers reach the amount first, in chain order. */
describe("the payer of a payment address (payerAmong)", () => {
  const buyer = "0x00000000000000000000000000000000000000b1" as Address;
  const stranger = "0x00000000000000000000000000000000000000e5" as Address;
  const other = "0x00000000000000000000000000000000000000c3" as Address;
  let block = 100n;
  const t = (from: Address, value: bigint): DepositTransfer => ({ from, value, blockNumber: block++, logIndex: 0 });

  it("a stranger's part before the buyer's whole amount: the buyer", () => {
    assert.deepEqual(payerAmong([t(stranger, 6n), t(buyer, 10n)], 10n), { payer: buyer });
  });

  it("a stranger's part after the buyer's whole amount: the buyer", () => {
    assert.deepEqual(payerAmong([t(buyer, 10n), t(stranger, 6n)], 10n), { payer: buyer });
  });

  it("a sender's own transfers add up; a stranger's in between never count for them", () => {
    assert.deepEqual(payerAmong([t(buyer, 4n), t(stranger, 9n), t(buyer, 6n)], 10n), { payer: buyer });
    assert.deepEqual(payerAmong([t(buyer, 4n), t(stranger, 10n), t(buyer, 6n)], 10n), { payer: stranger }, "the stranger who paid it all is the buyer");
  });

  it("a top-up of exactly half, or parts from three wallets: no payer, every sender with what it sent, in the order of its first transfer", () => {
    assert.deepEqual(payerAmong([t(buyer, 5n), t(stranger, 5n)], 10n), {
      payer: null,
      senders: [
        { address: buyer, amountUnits: 5n },
        { address: stranger, amountUnits: 5n },
      ],
      reason: "no one sender's transfers reached the amount",
    });
    const three = payerAmong([t(other, 3n), t(buyer, 4n), t(other, 1n), t(stranger, 3n)], 10n);
    assert.deepEqual(three.payer === null && three.senders, [
      { address: other, amountUnits: 4n },
      { address: buyer, amountUnits: 4n },
      { address: stranger, amountUnits: 3n },
    ]);
  });

  it("units before the transfers read: a payer only where no unread sender could have reached the amount first", () => {
    assert.deepEqual(payerAmong([t(buyer, 10n)], 10n, 1n), { payer: buyer }, "1 unread unit cannot have reached 10");
    assert.isNull(payerAmong([t(stranger, 9n), t(buyer, 10n)], 10n, 1n).payer, "the stranger's 9 and an unread 1 of theirs would reach it first");
    assert.isNull(payerAmong([t(buyer, 10n)], 10n, 10n).payer, "the unread units alone may be a whole payment");
  });
});
