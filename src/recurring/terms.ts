import { hashDomain, keccak256, toHex, type Address, type Hex } from "viem";
import { EIP712_DOMAIN_TYPE } from "../chain/token-authorizations.js";
import { keccak256Bytes, keccakAbiWords } from "../chain/keccak.js";

/** The subscription terms a payer signs; mirrors `IRecurringCharges.Terms`. Amounts in token units. */
export interface Terms {
  payer: Address;
  recipient: Address;
  token: Address;
  amount: bigint;
  /** Seconds. */
  period: bigint;
  /** Unix seconds, inclusive. */
  start: bigint;
  /** Unix seconds, exclusive; 0 = no end. */
  end: bigint;
  salt: Hex;
  feeBps: number;
  networkFee: bigint;
  maxGasReimbursement: bigint;
}

/** The EIP-712 type of `Terms`, field for field as `RecurringCharges.TERMS_TYPEHASH` hashes it. */
export const TERMS_TYPES = {
  Terms: [
    { name: "payer", type: "address" },
    { name: "recipient", type: "address" },
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "period", type: "uint64" },
    { name: "start", type: "uint64" },
    { name: "end", type: "uint64" },
    { name: "salt", type: "bytes32" },
    { name: "feeBps", type: "uint16" },
    { name: "networkFee", type: "uint256" },
    { name: "maxGasReimbursement", type: "uint256" },
  ],
} as const;

/**
 * The types a wallet is handed for `Terms` (resolve's `typed_data.types`): `Terms` with `EIP712Domain`,
 * which `eth_signTypedData_v4` wallets hash the domain with (ethers v6 callers drop it: ethers derives
 * it from the domain and refuses it in `types`).
 */
export const TERMS_WALLET_TYPES = { EIP712Domain: EIP712_DOMAIN_TYPE, ...TERMS_TYPES } as const;

/** The EIP-712 domain of a RecurringCharges deployment. */
export function recurringDomain(chainId: number, contract: Address) {
  return { name: "RecurringCharges", version: "1", chainId, verifyingContract: contract } as const;
}

/** The exact typed data a payer's wallet signs for `terms`. */
export function termsTypedData(chainId: number, contract: Address, terms: Terms) {
  return {
    domain: recurringDomain(chainId, contract),
    types: TERMS_TYPES,
    primaryType: "Terms" as const,
    message: terms,
  };
}

/**
 * The subscription id from the terms' ABI words (charge-encoding.ts's termsWords): every field of
 * `Terms` is static, in the same order in the ABI struct as in the EIP-712 type (charge-encoding.ts
 * checks it when loaded), so the words are the struct's EIP-712 encoding after its type hash. A charge
 * encodes its terms once, for its id and every call it rides in.
 */
export function subscriptionIdOfWords(chainId: number, contract: Address, words: string): Hex {
  if (words.length !== 64 * TERMS_TYPES.Terms.length) throw new Error(`not the words of Terms: ${words.length / 64} words`);
  const digest = Buffer.alloc(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  domainSeparator(chainId, contract).copy(digest, 2);
  keccak256Bytes(Buffer.from(`${TERMS_TYPEHASH.slice(2)}${words}`, "hex")).copy(digest, 34);
  return `0x${keccak256Bytes(digest).toString("hex")}`;
}

/** `TERMS_TYPES`' EIP-712 type hash: keccak256 of `Terms(address payer,…)`. */
const TERMS_TYPEHASH = keccak256(toHex(`Terms(${TERMS_TYPES.Terms.map((f) => `${f.type} ${f.name}`).join(",")})`));

/** Each deployment's EIP-712 domain separator, hashed once (a service serves one, tests a few). */
const domainSeparators = new Map<string, Buffer>();

function domainSeparator(chainId: number, contract: Address): Buffer {
  const key = `${chainId}:${contract.toLowerCase()}`;
  let separator = domainSeparators.get(key);
  if (!separator) {
    const domain = recurringDomain(chainId, contract);
    separator = Buffer.from(hashDomain({ domain: { ...domain, chainId: BigInt(chainId) }, types: { EIP712Domain: EIP712_DOMAIN_TYPE } }).slice(2), "hex");
    domainSeparators.set(key, separator);
  }
  return separator;
}

/** A uint field of `Terms` narrower than 256 bits, checked against its width as viem's typed-data check does. */
function uintOf(value: bigint | number, bits: number, name: string): bigint {
  const n = BigInt(value);
  if (n < 0n || n >= 1n << BigInt(bits)) throw new Error(`Terms.${name}: ${n} is not a uint${bits}`);
  return n;
}

/**
 * The subscription id: the EIP-712 digest of the terms, as the contract computes it (viem's
 * `hashTypedData` of `termsTypedData`, property-tested against it). Every charge computes it, so it
 * hashes with the WebAssembly keccak and the domain separator hashed once: a tenth of viem's cost.
 */
export function subscriptionIdOf(chainId: number, contract: Address, terms: Terms): Hex {
  const structHash = keccakAbiWords([
    { bytes32: TERMS_TYPEHASH },
    { address: terms.payer },
    { address: terms.recipient },
    { address: terms.token },
    { uint256: terms.amount },
    { uint256: uintOf(terms.period, 64, "period") },
    { uint256: uintOf(terms.start, 64, "start") },
    { uint256: uintOf(terms.end, 64, "end") },
    { bytes32: terms.salt },
    { uint256: uintOf(terms.feeBps, 16, "feeBps") },
    { uint256: terms.networkFee },
    { uint256: terms.maxGasReimbursement },
  ]);
  const digest = Buffer.alloc(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  domainSeparator(chainId, contract).copy(digest, 2);
  digest.write(structHash.slice(2), 34, "hex");
  return `0x${keccak256Bytes(digest).toString("hex")}`;
}

/** `typed_data.message` as resolve returns it: every field but `payer`, integers as decimal strings. */
export type WireTermsMessage = Record<string, string | number>;

/** The terms a wallet signs: resolve's message with the signing account as `payer`. */
export function termsFromWireMessage(message: WireTermsMessage, payer: Address): Terms {
  const field = (name: string) => {
    const value = message[name];
    if (value === undefined) throw new Error(`typed_data.message has no ${name}`);
    return value;
  };
  return {
    payer,
    recipient: field("recipient") as Address,
    token: field("token") as Address,
    amount: BigInt(field("amount")),
    period: BigInt(field("period")),
    start: BigInt(field("start")),
    end: BigInt(field("end")),
    salt: field("salt") as Hex,
    feeBps: Number(field("feeBps")),
    networkFee: BigInt(field("networkFee")),
    maxGasReimbursement: BigInt(field("maxGasReimbursement")),
  };
}

export type SubscriptionState = "PENDING" | "ACTIVE" | "REVOKED" | "ENDED";

/**
 * A subscription's state at chain time `now` (unix seconds), from what the contract records:
 * REVOKED (final), else ENDED (at or after a non-zero `end`), else ACTIVE (charged at least once),
 * else PENDING (signed, never charged).
 */
/**
 * When the next charge can be taken: the start of the first period not yet charged, never before the
 * current period (a period that passed uncharged cannot be charged any more); at or before `now` means
 * due now. Null when no further charge can be taken: revoked, or the next period starts at or after `end`.
 */
export function nextChargeAt(
  terms: { start: bigint; period: bigint; end: bigint },
  recorded: { revoked: boolean; paidCount: number; lastPeriod: bigint },
  now: bigint,
): bigint | null {
  if (recorded.revoked) return null;
  let next = terms.start;
  if (now >= terms.start) {
    const current = (now - terms.start) / terms.period;
    const currentCharged = recorded.paidCount > 0 && recorded.lastPeriod >= current;
    next = terms.start + (currentCharged ? recorded.lastPeriod + 1n : current) * terms.period;
  }
  return terms.end !== 0n && next >= terms.end ? null : next;
}

export function subscriptionState(recorded: { revoked: boolean; paidCount: number }, end: bigint, now: bigint): SubscriptionState {
  if (recorded.revoked) return "REVOKED";
  if (end !== 0n && now >= end) return "ENDED";
  return recorded.paidCount > 0 ? "ACTIVE" : "PENDING";
}
