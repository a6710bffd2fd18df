import { getAbiItem, toFunctionSelector, type AbiFunction, type AbiParameter, type Hex } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import { TERMS_TYPES, type Terms } from "./terms.js";

/**
 * The calldata of RecurringCharges' `charge` and `chargeBatch`, ABI-encoded from words computed once
 * per charge. A renewal wave encodes each charge three times (its trial, its batch's L1 fee quote, the
 * signed batch) and viem's general encoder was a tenth of the wave's API thread; here a charge's terms
 * are encoded once into their words and every call is string concatenation. The layout is the ABI's
 * (the Terms tuple is static, so it lies inline; the signature is the only dynamic part), the
 * components and their order are read from the generated ABI, and the output is property-tested
 * against viem's encodeFunctionData (test/unit/charge-encoding.test.ts).
 */

const charge = getAbiItem({ abi: recurringChargesAbi, name: "charge" }) as AbiFunction;
const chargeBatch = getAbiItem({ abi: recurringChargesAbi, name: "chargeBatch" }) as AbiFunction;
const CHARGE_SELECTOR = toFunctionSelector(charge).slice(2);
const CHARGE_BATCH_SELECTOR = toFunctionSelector(chargeBatch).slice(2);
const TERMS = (charge.inputs[0] as AbiParameter & { components: readonly AbiParameter[] }).components;
// The terms' words are also their EIP-712 encoding (subscriptionIdOfWords): the ABI struct and the
// EIP-712 type must list the same fields, of the same types, in the same order.
if (TERMS.map((c) => `${c.type} ${c.name}`).join(",") !== TERMS_TYPES.Terms.map((f) => `${f.type} ${f.name}`).join(","))
  throw new Error("RecurringCharges' Terms struct and its EIP-712 type differ: the charge encoder's words are not the typed data's");

/** The item's words before its signature's bytes: the terms, the signature's offset, the reimbursement, the period. */
const HEAD_WORDS = TERMS.length + 3;

/** One 32-byte word, as 64 hex digits. */
function uintWord(value: bigint, bits: number, what: string): string {
  if (value < 0n || value >= 1n << BigInt(bits)) throw new Error(`${what}: not a uint${bits}: ${value}`);
  return value.toString(16).padStart(64, "0");
}

function hexWord(value: unknown, digits: number, what: string): string {
  if (typeof value !== "string" || !new RegExp(`^0x[0-9a-fA-F]{${digits}}$`).test(value))
    throw new Error(`${what}: not ${digits / 2} bytes of hex: ${String(value)}`);
  return value.slice(2).toLowerCase().padStart(64, "0");
}

/** The terms' words, in the ABI's order (every component is a static type). */
export function termsWords(terms: Terms): string {
  let words = "";
  for (const { name, type } of TERMS) {
    const value = (terms as unknown as Record<string, unknown>)[name!];
    if (type === "address") words += hexWord(value, 40, name!);
    else if (type === "bytes32") words += hexWord(value, 64, name!);
    else if (type.startsWith("uint")) words += uintWord(BigInt(value as bigint | number), Number(type.slice(4)), name!);
    else throw new Error(`Terms.${name}: ${type} is not a static type the charge encoder knows`);
  }
  return words;
}

/** A charge as both calls take it: its terms' words (termsWords), its signature, its reimbursement and period. */
export interface EncodedCharge {
  terms: string;
  signature: Hex;
  gasReimbursement: bigint;
  expectedPeriod: bigint;
}

/** The charge's tuple (terms, signature, gasReimbursement, expectedPeriod): its head, then its signature's length and bytes. */
function chargeTuple(c: EncodedCharge): string {
  const bytes = (c.signature.length - 2) / 2;
  const padded = c.signature.slice(2).padEnd(Math.ceil(bytes / 32) * 64, "0");
  return (
    c.terms +
    uintWord(BigInt(HEAD_WORDS * 32), 256, "offset") +
    uintWord(c.gasReimbursement, 256, "gasReimbursement") +
    uintWord(c.expectedPeriod, 64, "expectedPeriod") +
    uintWord(BigInt(bytes), 256, "signature length") +
    padded
  );
}

/** `charge(terms, signature, gasReimbursement, expectedPeriod)`'s calldata. */
export function chargeCalldata(c: EncodedCharge): Hex {
  return `0x${CHARGE_SELECTOR}${chargeTuple(c)}`;
}

/** `chargeBatch(charges)`'s calldata. */
export function chargeBatchCalldata(charges: readonly EncodedCharge[]): Hex {
  const tuples = charges.map(chargeTuple);
  let offsets = "";
  let at = 32 * tuples.length;
  for (const tuple of tuples) {
    offsets += uintWord(BigInt(at), 256, "offset");
    at += tuple.length / 2;
  }
  return `0x${CHARGE_BATCH_SELECTOR}${uintWord(32n, 256, "offset")}${uintWord(BigInt(tuples.length), 256, "length")}${offsets}${tuples.join("")}`;
}
