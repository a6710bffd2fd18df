import { assert } from "chai";
import { encodeAbiParameters, encodeEventTopics, erc20Abi, getAddress, type Address, type Log } from "viem";
import { paidOutOf } from "../../src/x402/receiver-funding.js";

/** Issue 50: a receiver is funded only when a payment through it settles, never by what arrives in it. */
describe("an x402 receiver's funded rule (src/x402/receiver-funding.ts)", () => {
  const token = getAddress("0x00000000000000000000000000000000000000f0");
  const other = getAddress("0x00000000000000000000000000000000000000f1");
  const receiver = getAddress("0x00000000000000000000000000000000000000a1");
  const buyer = getAddress("0x00000000000000000000000000000000000000b2");
  const merchant = getAddress("0x00000000000000000000000000000000000000c3");
  const transfer = (address: Address, from: Address, to: Address, value: bigint): Log =>
    ({
      address,
      topics: encodeEventTopics({ abi: erc20Abi, eventName: "Transfer", args: { from, to } }),
      data: encodeAbiParameters([{ type: "uint256" }], [value]),
      blockNumber: 1n,
      logIndex: 0,
      transactionHash: `0x${"11".repeat(32)}`,
      transactionIndex: 0,
      blockHash: `0x${"22".repeat(32)}`,
      removed: false,
    }) as Log;

  it("a settlement's transfers name the receiver it paid out of; the buyer's transfer into it names only the buyer", () => {
    const settled = [transfer(token, buyer, receiver, 1_000_000n), transfer(token, receiver, merchant, 980_000n), transfer(token, receiver, other, 20_000n)];
    assert.sameMembers(paidOutOf(settled, token), [buyer, receiver]);
  });

  it("funds arriving in a receiver (50 units, or any amount) name no receiver; another token's transfers count for nothing", () => {
    assert.deepEqual(paidOutOf([transfer(token, buyer, receiver, 50n)], token), [buyer]);
    assert.deepEqual(paidOutOf([transfer(other, receiver, merchant, 50n)], token), []);
  });
});
