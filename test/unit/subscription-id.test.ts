import { expect } from "chai";
import fc from "fast-check";
import { hashTypedData, toHex, type Address, type Hex } from "viem";
import { subscriptionIdOf, termsTypedData, type Terms } from "../../src/recurring/terms.js";

// The subscription id is what the contract keys every charge by: the fast digest must be viem's
// EIP-712 digest of the same terms, byte for byte, for any terms and any deployment.
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => toHex(b));
const address = bytes(20) as fc.Arbitrary<Address>;
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
const terms: fc.Arbitrary<Terms> = fc.record({
  payer: address,
  recipient: address,
  token: address,
  amount: uint(256),
  period: uint(64),
  start: uint(64),
  end: uint(64),
  salt: bytes(32) as fc.Arbitrary<Hex>,
  feeBps: fc.integer({ min: 0, max: 65_535 }),
  networkFee: uint(256),
  maxGasReimbursement: uint(256),
});

describe("subscription id", () => {
  it("is viem's hashTypedData of the terms, for any terms and deployment", () => {
    fc.assert(
      fc.property(terms, fc.integer({ min: 1, max: 2 ** 32 }), address, (t, chainId, contract) => {
        expect(subscriptionIdOf(chainId, contract, t)).to.equal(hashTypedData(termsTypedData(chainId, contract, t)));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a value wider than its field, as viem's typed-data check does", () => {
    const t = fc.sample(terms, { numRuns: 1, seed: 39 })[0]!;
    const contract = "0x0000000000000000000000000000000000000039" as Address;
    for (const wide of [{ period: 1n << 64n }, { start: -1n }, { end: 1n << 64n }, { feeBps: 65_536 }]) {
      const bad = { ...t, ...wide };
      expect(() => hashTypedData(termsTypedData(84532, contract, bad))).to.throw();
      expect(() => subscriptionIdOf(84532, contract, bad)).to.throw(/is not a uint/);
    }
  });
});
