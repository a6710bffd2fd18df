import { concat, type Hex, toHex } from "./bytes.js";
/**
 * A merchant's x402 receiver, derived offline (no call, no dependency): the CREATE2 address of the
 * deployment's X402Receivers for (recipient, token), exactly as the contract and POST
 * /v1/x402/receivers compute it: `keccak256(0xff ++ X402Receivers ++ keccak256(abi.encode(recipient,
 * token)) ++ X402_RECEIVER_CODE_HASH)[12:]`.
 */

/** keccak256 of X402Receiver's creation code (X402Receivers.RECEIVER_CODE_HASH on every deployment built from this release). */
export const X402_RECEIVER_CODE_HASH = "0x1c66326433a14bbdc7b1a47553c4257769874c3320f50bf29842629a2c9c900b";

/** The receiver of `recipient` for `token` under `receivers` (deployments' X402Receivers address), checksummed. */
export function x402ReceiverAddress(args: { receivers: string; recipient: string; token: string; codeHash?: string }): Hex {
  const salt = keccak256(concat(word(args.recipient), word(args.token)));
  const hash = keccak256(concat(Uint8Array.of(0xff), bytesOf(args.receivers, 20), salt, bytesOf(args.codeHash ?? X402_RECEIVER_CODE_HASH, 32)));
  return checksum(toHex(hash.subarray(12)));
}

/** An address left-padded to a 32-byte ABI word. */
function word(address: string): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytesOf(address, 20), 12);
  return out;
}

function bytesOf(hex: string, length: number): Uint8Array {
  if (!new RegExp(`^0x[0-9a-fA-F]{${length * 2}}$`).test(hex)) throw new TypeError(`expected 0x and ${length * 2} hex digits, got ${hex}`);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number.parseInt(hex.slice(2 + 2 * i, 4 + 2 * i), 16);
  return out;
}

/** EIP-55 checksum of a lower-case address. */
function checksum(address: Hex): Hex {
  const lower = address.slice(2).toLowerCase();
  const hash = toHex(keccak256(new TextEncoder().encode(lower))).slice(2);
  let out = "0x";
  for (let i = 0; i < 40; i++) out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  return out as Hex;
}

const MASK = (1n << 64n) - 1n;
const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14];
const ROUND_CONSTANTS: bigint[] = (() => {
  const out: bigint[] = [];
  let r = 1;
  for (let round = 0; round < 24; round++) {
    let c = 0n;
    for (let j = 0; j < 7; j++) {
      r = ((r << 1) ^ ((r >> 7) * 0x71)) % 256;
      if (r & 2) c ^= 1n << ((1n << BigInt(j)) - 1n);
    }
    out.push(c);
  }
  return out;
})();

const rotl = (x: bigint, n: number) => (n === 0 ? x : ((x << BigInt(n)) | (x >> BigInt(64 - n))) & MASK);

function keccakF(a: bigint[]): void {
  for (let round = 0; round < 24; round++) {
    const c = [0, 1, 2, 3, 4].map((x) => a[x]! ^ a[x + 5]! ^ a[x + 10]! ^ a[x + 15]! ^ a[x + 20]!);
    for (let x = 0; x < 5; x++) {
      const d = c[(x + 4) % 5]! ^ rotl(c[(x + 1) % 5]!, 1);
      for (let y = 0; y < 25; y += 5) a[x + y]! ^= d;
    }
    const b = new Array<bigint>(25);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y]!, ROTATIONS[x + 5 * y]!);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 25; y += 5) a[x + y] = b[x + y]! ^ (~b[((x + 1) % 5) + y]! & MASK & b[((x + 2) % 5) + y]!);
    a[0] = a[0]! ^ ROUND_CONSTANTS[round]!;
  }
}

/** Keccak-256 (Ethereum's, the original padding), for the offline derivation above. */
export function keccak256(data: Uint8Array): Uint8Array {
  const rate = 136;
  const padded = new Uint8Array(Math.floor(data.length / rate + 1) * rate);
  padded.set(data);
  padded[data.length]! ^= 0x01;
  padded[padded.length - 1]! ^= 0x80;
  const state = new Array<bigint>(25).fill(0n);
  for (let block = 0; block < padded.length; block += rate) {
    for (let i = 0; i < rate / 8; i++) {
      let lane = 0n;
      for (let k = 7; k >= 0; k--) lane = (lane << 8n) | BigInt(padded[block + 8 * i + k]!);
      state[i] = state[i]! ^ lane;
    }
    keccakF(state);
  }
  const out = new Uint8Array(32);
  for (let i = 0; i < 4; i++) for (let k = 0; k < 8; k++) out[8 * i + k] = Number((state[i]! >> BigInt(8 * k)) & 0xffn);
  return out;
}
