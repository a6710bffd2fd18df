import type { Address, Hex } from "viem";

/**
 * An EIP-1559 transaction's bytes (0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas,
 * gas, to, value, data, accessList, …signature])), written with Buffers. viem's serializer converts
 * the calldata hex to bytes one character pair at a time, twice per signature, and a batch of renewals
 * carries tens of kilobytes: that was a twentieth of a renewal wave's API thread. Byte for byte
 * viem's serializeTransaction, tested (test/unit/relayer-sign.test.ts). No access list: the relayer
 * sends none.
 */
export interface Eip1559Fields {
  chainId: number;
  nonce: number;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  gas: bigint;
  to: Address;
  value: bigint;
  data: Hex;
}

/** An RLP string's header for `length` bytes (a single byte below 0x80 has none: the caller checks). */
function header(length: number, short: number): Buffer {
  if (length <= 55) return Buffer.from([short + length]);
  const size = uintBytes(BigInt(length));
  return Buffer.concat([Buffer.from([short + 55 + size.length]), size]);
}

/** An unsigned integer's minimal big-endian bytes (zero has none). */
function uintBytes(value: bigint): Buffer {
  if (value < 0n) throw new Error(`not an unsigned integer: ${value}`);
  if (value === 0n) return Buffer.alloc(0);
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex");
}

function rlpString(bytes: Buffer): Buffer {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return Buffer.concat([header(bytes.length, 0x80), bytes]);
}

function rlpList(items: Buffer[]): Buffer {
  const payload = Buffer.concat(items);
  return Buffer.concat([header(payload.length, 0xc0), payload]);
}

const EMPTY_LIST = Buffer.from([0xc0]);

/**
 * The transaction's bytes unsigned (what is signed), and with a signature (what is sent): its fields,
 * the calldata's tens of kilobytes among them, are encoded once for both.
 */
export function eip1559Bytes(tx: Eip1559Fields): { unsigned: Hex; signed(signature: { yParity: number; r: Hex; s: Hex }): Hex } {
  const to = Buffer.from(tx.to.slice(2), "hex");
  if (to.length !== 20) throw new Error(`not an address: ${tx.to}`);
  const fields = [
    rlpString(uintBytes(BigInt(tx.chainId))),
    rlpString(uintBytes(BigInt(tx.nonce))),
    rlpString(uintBytes(tx.maxPriorityFeePerGas)),
    rlpString(uintBytes(tx.maxFeePerGas)),
    rlpString(uintBytes(tx.gas)),
    rlpString(to),
    rlpString(uintBytes(tx.value)),
    rlpString(Buffer.from(tx.data.slice(2), "hex")),
    EMPTY_LIST,
  ];
  return {
    unsigned: `0x02${rlpList(fields).toString("hex")}`,
    signed: (signature) =>
      `0x02${rlpList([
        ...fields,
        rlpString(uintBytes(BigInt(signature.yParity))),
        rlpString(uintBytes(BigInt(signature.r))),
        rlpString(uintBytes(BigInt(signature.s))),
      ]).toString("hex")}`,
  };
}
