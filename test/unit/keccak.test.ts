import { expect } from "chai";
import fc from "fast-check";
import { encodeAbiParameters, getAddress, getContractAddress, keccak256, toHex, type Address, type Hex } from "viem";
import { checksumAddress, create2Address, keccak256Bytes, keccakAbiWords } from "../../src/chain/keccak.js";

// The WebAssembly keccak and what is built on it must give viem's answers, byte for byte: a payment
// key or a payment address that differs from the chain's would send buyers' money to the wrong place.
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n }).map((b) => toHex(b));
const address = bytes(20) as fc.Arbitrary<Address>;
const word = bytes(32) as fc.Arbitrary<Hex>;
const mixedCase = address.chain((a) =>
  fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }).map((up) => `0x${[...a.slice(2)].map((c, i) => (up[i] ? c.toUpperCase() : c)).join("")}`),
);

describe("keccak (WebAssembly) against viem", () => {
  it("hashes any input as viem's keccak256 does", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
        expect(toHex(keccak256Bytes(data))).to.equal(keccak256(data));
      }),
      { numRuns: 500 },
    );
  });

  it("checksums any address (any case) as getAddress does", () => {
    fc.assert(
      fc.property(mixedCase, (a) => {
        expect(checksumAddress(a)).to.equal(getAddress(a));
      }),
      { numRuns: 500 },
    );
  });

  it("derives CREATE2 addresses as getContractAddress does", () => {
    fc.assert(
      fc.property(address, word, word, (from, salt, codeHash) => {
        expect(create2Address(from, salt, codeHash)).to.equal(getContractAddress({ opcode: "CREATE2", from, salt, bytecodeHash: codeHash }));
      }),
      { numRuns: 300 },
    );
  });

  it("hashes abi.encode(address, address, uint256, bytes32) as encodeAbiParameters + keccak256 do", () => {
    fc.assert(
      fc.property(address, address, fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }), word, (token, recipient, amount, reference) => {
        const expected = keccak256(
          encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }], [token, recipient, amount, reference]),
        );
        expect(keccakAbiWords([{ address: token }, { address: recipient }, { uint256: amount }, { bytes32: reference }])).to.equal(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses what viem refuses: malformed addresses and words, a uint256 out of range", () => {
    for (const bad of ["0x12", "0x" + "g".repeat(40), "12".repeat(21), `0x${"1".repeat(41)}`]) {
      expect(() => checksumAddress(bad)).to.throw(/invalid/);
      expect(() => getAddress(bad)).to.throw();
    }
    const a = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Address;
    const w = `0x${"ab".repeat(32)}` as Hex;
    expect(() => keccakAbiWords([{ uint256: -1n }])).to.throw(/range/);
    expect(() => keccakAbiWords([{ uint256: 1n << 256n }])).to.throw(/range/);
    expect(() => keccakAbiWords([{ bytes32: "0x1234" }])).to.throw(/hex/);
    expect(() => create2Address(a, "0x1234", w)).to.throw(/salt/);
    expect(() => create2Address("0x1234" as Address, w, w)).to.throw(/from/);
  });
});
