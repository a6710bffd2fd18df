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

/** keccak256 of the bytes `data` spells in hex, as hex (a signed transaction's hash, its signing hash). */
export function keccak256Hex(data: Hex): Hex {
  return `0x${keccak256Bytes(Buffer.from(data.slice(2), "hex")).toString("hex")}`;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const WORD = /^0x[0-9a-fA-F]{64}$/;

/** Writes the hex value (checked against `pattern` first) into `into` at `at`; throws on anything else. */
function writeHex(into: Buffer, at: number, value: string, pattern: RegExp, what: string): void {
  if (!pattern.test(value)) throw new Error(`${what}: not a valid hex value: ${value}`);
  into.write(value.slice(2), at, "hex");
}

/** Checksummed forms of addresses seen lately (a merchant's recipient comes again and again), as viem keeps its own. */
const checksummed = new Map<string, Address>();
const CHECKSUMMED_MAX = 4096;

/** EIP-55: the address in its checksummed form (throws on anything but 0x and 40 hex digits). */
export function checksumAddress(address: string): Address {
  const known = checksummed.get(address);
  if (known) return known;
  if (!ADDRESS.test(address)) throw new Error(`Address "${address}" is invalid.`);
  const result = checksumOf(address.slice(2).toLowerCase());
  if (checksummed.size >= CHECKSUMMED_MAX) checksummed.delete(checksummed.keys().next().value!);
  checksummed.set(address, result);
  return result;
}

/** EIP-55 of 40 lowercase hex digits. */
function checksumOf(lower: string): Address {
  hasher.init();
  hasher.update(lower);
  const hash = hasher.digest("binary");
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out as Address;
}

/** The CREATE2 preimage, 0xff ‖ deployer ‖ salt ‖ code hash: one buffer, the salt written in place each time. */
const create2Preimage = Buffer.alloc(85);

/** CREATE2: the address `from` deploys code of hash `codeHash` at under `salt`, checksummed. */
export function create2Address(from: Address, salt: Hex, codeHash: Hex): Address {
  create2Preimage[0] = 0xff;
  writeHex(create2Preimage, 1, from, ADDRESS, "from");
  writeHex(create2Preimage, 21, salt, WORD, "salt");
  writeHex(create2Preimage, 53, codeHash, WORD, "codeHash");
  hasher.init();
  hasher.update(create2Preimage);
  // A fresh address each time (the salt is a new payment's key): checksummed without the cache.
  return checksumOf(hasher.digest("hex").slice(24));
}

const MAX_UINT256 = (1n << 256n) - 1n;

/** One 32-byte ABI word per value: an address left-padded, a uint256 big-endian, a bytes32 as is. */
export type AbiWord = { address: Address } | { uint256: bigint } | { bytes32: Hex };

/** keccak256(abi.encode(...words)) for static words (address, uint256, bytes32), as 0x hex. */
export function keccakAbiWords(words: AbiWord[]): Hex {
  const buffer = Buffer.alloc(32 * words.length);
  words.forEach((word, i) => {
    if ("address" in word) writeHex(buffer, 32 * i + 12, word.address, ADDRESS, "address");
    else if ("bytes32" in word) writeHex(buffer, 32 * i, word.bytes32, WORD, "bytes32");
    else {
      if (word.uint256 < 0n || word.uint256 > MAX_UINT256) throw new Error(`uint256 out of range: ${word.uint256}`);
      buffer.write(word.uint256.toString(16).padStart(64, "0"), 32 * i, "hex");
    }
  });
  hasher.init();
  hasher.update(buffer);
  return `0x${hasher.digest("hex")}`;
}
