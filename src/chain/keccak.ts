import { createKeccak } from "hash-wasm";
import type { Address, Hex } from "viem";

/**
 * Keccak-256 in WebAssembly, for the hashes every create computes (the payment key, the payment
 * address by CREATE2 and its checksum): about a tenth of the cost of viem's JS keccak on short input,
 * and those three hashes were most of a create's own work. Same results as viem's, checked by
 * property tests (test/unit/keccak.test.ts). One instance, used synchronously (init, update, digest
 * with no await between), so concurrent requests never share a half-fed state.
 */
const hasher = await createKeccak(256);

/** keccak256 of `data`, as a 32-byte buffer. */
export function keccak256Bytes(data: Uint8Array): Buffer {
  hasher.init();
  hasher.update(data);
  return Buffer.from(hasher.digest("binary"));
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const WORD = /^0x[0-9a-fA-F]{64}$/;

/** The bytes of a 0x-prefixed hex string of `bytes` bytes; throws on anything else. */
function hexBytes(value: string, pattern: RegExp, what: string): Buffer {
  if (!pattern.test(value)) throw new Error(`${what}: not a valid hex value: ${value}`);
  return Buffer.from(value.slice(2), "hex");
}

/** EIP-55: the address in its checksummed form (throws on anything but 0x and 40 hex digits). */
export function checksumAddress(address: string): Address {
  if (!ADDRESS.test(address)) throw new Error(`Address "${address}" is invalid.`);
  const lower = address.slice(2).toLowerCase();
  const hash = keccak256Bytes(Buffer.from(lower, "ascii"));
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out as Address;
}

/** CREATE2: the address `from` deploys code of hash `codeHash` at under `salt`, checksummed. */
export function create2Address(from: Address, salt: Hex, codeHash: Hex): Address {
  const preimage = Buffer.concat([Buffer.of(0xff), hexBytes(from, ADDRESS, "from"), hexBytes(salt, WORD, "salt"), hexBytes(codeHash, WORD, "codeHash")]);
  return checksumAddress(`0x${keccak256Bytes(preimage).subarray(12).toString("hex")}`);
}

const MAX_UINT256 = (1n << 256n) - 1n;

/** One 32-byte ABI word per value: an address left-padded, a uint256 big-endian, a bytes32 as is. */
export type AbiWord = { address: Address } | { uint256: bigint } | { bytes32: Hex };

/** keccak256(abi.encode(...words)) for static words (address, uint256, bytes32), as 0x hex. */
export function keccakAbiWords(words: AbiWord[]): Hex {
  const buffer = Buffer.alloc(32 * words.length);
  words.forEach((word, i) => {
    if ("address" in word) hexBytes(word.address, ADDRESS, "address").copy(buffer, 32 * i + 12);
    else if ("bytes32" in word) hexBytes(word.bytes32, WORD, "bytes32").copy(buffer, 32 * i);
    else {
      if (word.uint256 < 0n || word.uint256 > MAX_UINT256) throw new Error(`uint256 out of range: ${word.uint256}`);
      Buffer.from(word.uint256.toString(16).padStart(64, "0"), "hex").copy(buffer, 32 * i);
    }
  });
  return `0x${keccak256Bytes(buffer).toString("hex")}`;
}
