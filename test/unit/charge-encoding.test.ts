import { assert } from "chai";
import fc from "fast-check";
import { encodeFunctionData, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { chargeBatchCalldata, chargeCalldata, termsWords } from "../../src/recurring/charge-encoding.js";
import { subscriptionIdOf, subscriptionIdOfWords, type Terms } from "../../src/recurring/terms.js";

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex);
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
const terms: fc.Arbitrary<Terms> = fc.record({
  payer: hex(20),
  recipient: hex(20),
  token: hex(20),
  amount: uint(256),
  period: uint(64),
  start: uint(64),
  end: uint(64),
  salt: hex(32),
  feeBps: fc.integer({ min: 0, max: 65_535 }),
  networkFee: uint(256),
  maxGasReimbursement: uint(256),
}) as unknown as fc.Arbitrary<Terms>;
// Renewals go with no signature, an EOA's first charge with 65 bytes, a contract wallet's with any length.
const signature = fc.oneof(fc.constant("0x" as Hex), hex(65), fc.integer({ min: 0, max: 300 }).chain(hex));
const item = fc.record({ terms, signature, gasReimbursement: uint(256), expectedPeriod: uint(64) });

// The encoder is checked against viem's encodeFunctionData of the generated ABI: byte for byte, for
// any terms, signatures of any length and batches of any size.
describe("charge calldata, encoded from the terms' words", () => {
  it("charge(...) is viem's encoding, byte for byte", () => {
    fc.assert(
      fc.property(item, (c) => {
        const ours = chargeCalldata({ ...c, terms: termsWords(c.terms) });
        const viems = encodeFunctionData({
          abi: recurringChargesAbi,
          functionName: "charge",
          args: [c.terms, c.signature, c.gasReimbursement, c.expectedPeriod],
        });
        assert.equal(ours, viems);
      }),
      { numRuns: 300 },
    );
  });

  it("chargeBatch(...) is viem's encoding, byte for byte, empty and long batches too", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 12 }), (items) => {
        const ours = chargeBatchCalldata(items.map((c) => ({ ...c, terms: termsWords(c.terms) })));
        const viems = encodeFunctionData({ abi: recurringChargesAbi, functionName: "chargeBatch", args: [items] });
        assert.equal(ours, viems);
      }),
      { numRuns: 200 },
    );
  });

  it("the terms' words give the subscription id the EIP-712 digest gives (RecurringCharges' own id)", () => {
    const contract = "0x00000000000000000000000000000000000000c1" as Hex;
    fc.assert(
      fc.property(terms, fc.integer({ min: 1, max: 2 ** 31 }), (t, chainId) => {
        assert.equal(subscriptionIdOfWords(chainId, contract, termsWords(t)), subscriptionIdOf(chainId, contract, t));
      }),
      { numRuns: 200 },
    );
    assert.throws(() => subscriptionIdOfWords(1, contract, "00".repeat(32)), /not the words of Terms/);
  });

  it("refuses a value its type cannot hold rather than encode something else", () => {
    const valid = fc.sample(item, { numRuns: 1, seed: 7 })[0]!;
    for (const [field, value] of [
      ["feeBps", 65_536],
      ["period", 1n << 64n],
      ["amount", -1n],
      ["payer", "0x1234"],
      ["salt", `0x${"g".repeat(64)}`],
    ] as const) {
      const broken = { ...valid.terms, [field]: value } as Terms;
      assert.throws(() => termsWords(broken), new RegExp(field));
    }
    assert.throws(() => chargeCalldata({ ...valid, terms: termsWords(valid.terms), expectedPeriod: 1n << 64n }), /expectedPeriod/);
  });
});
