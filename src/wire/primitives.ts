import { z } from "zod";

/**
 * Wire primitives: the spec's primitive types (interface.md "Primitive types"), each once. Requests
 * accept what a caller may reasonably send (any hex case, an amount with 1–6 fractional digits);
 * responses carry the canonical form (lower-case hashes, exactly six fractional digits). Where the two
 * differ, the request's schema is named `…Input` (or `Bytes32`), the response's the plain name.
 */

/** Request amounts: digits, optionally a point and 1–6 fractional digits. No sign, exponent or spaces. */
export const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,17})(\.[0-9]{1,6})?$/;
/** An integer string of micro-units; no sign, no leading zeros (except "0"). */
export const UNITS_PATTERN = /^(0|[1-9][0-9]{0,29})$/;
/** The longest capability token any endpoint reads. */
export const MAX_TOKEN_LENGTH = 4096;
/** The longest notify_url or return_url accepted. */
export const MAX_URL_LENGTH = 512;

/** A hex string schema typed as viem's `0x${string}` (the same schema at run time and in the document). */
const hex = (schema: z.ZodString) => schema as unknown as z.ZodType<`0x${string}`, string>;

export const Address = hex(z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x and 40 hex digits"));

/** A 32-byte value in a request (a transaction hash): any hex case. */
export const Bytes32 = hex(z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits"));
/** A 32-byte value in a response (hashes, references, subscription ids): lower case. */
export const Hash = hex(z.string().regex(/^0x[0-9a-f]{64}$/));

/** A request amount (see AMOUNT_PATTERN). */
export const AmountInput = z.string().regex(AMOUNT_PATTERN, "a decimal string with at most 6 fractional digits");
export const Amount = z
  .string()
  .regex(/^(0|[1-9][0-9]*)\.[0-9]{6}$/)
  .describe("Amount: decimal string, six fractional digits");
export const AmountUnits = z
  .string()
  .regex(/^(0|[1-9][0-9]*)$/)
  .describe("AmountUnits: integer string of micro-units");

export const BlockNumber = z
  .string()
  .regex(/^[0-9]+$/)
  .describe("decimal string");
export const UnixSeconds = z.number().int().describe("unix seconds");
/** A block's time in milliseconds, as Base serves it since Denim (`timestampMs`, `blockTimestampMs`): optional, absent where the node does not serve it. */
export const UnixMilliseconds = z.number().int().nonnegative();
export const ChainId = z.number().int();

/** A capability token in a request. */
export const Token = z.string().min(1).max(MAX_TOKEN_LENGTH);
/** A capability token in a response. */
export const CapabilityToken = z.string().describe("Token: kind.key.payload.signature");

/** A link id: 16 random bytes (every reference of a link payment starts with it). */
export const LinkId = hex(z.string().regex(/^0x[0-9a-f]{32}$/));

/** What the caller should do next (spec + DESIGN.md). */
export const Action = z.enum(["SUCCESS", "WAIT", "RETRY", "FIX_REQUEST", "ASK_PAYER", "STOP"]);
export type Action = z.infer<typeof Action>;

/** Calldata for a wallet to send, lower-case hex. */
export const Calldata = hex(z.string().regex(/^0x[0-9a-f]*$/));

/**
 * A payer's signature: 0x and an even number of hex digits, at most 2,048 bytes. An EOA's is 65 bytes
 * with a low `s`; a contract account's (ERC-1271) is whatever its `isValidSignature` accepts, including
 * `0x` (none) for an account that approved the terms on chain.
 */
export const Signature = hex(z.string().regex(/^0x([0-9a-fA-F]{2}){0,2048}$/, "0x and hex bytes (0x alone for an account that approved on chain)"));

export const NotifyUrl = z.string().max(MAX_URL_LENGTH);
/** Extension: also announce a watched payment when it is mined (payment.included, payment.reorged), before the final event. Needs notify_url. */
export const NotifyIncluded = z
  .boolean()
  .describe("extension: with notify_url, also send payment.included when the transaction is mined and payment.reorged if it leaves the chain before final");

/**
 * Extension beyond the spec's request fields (docs/decisions.md): where the checkout offers to send
 * the buyer back after paying. One rule for payments, links and subscriptions (src/rules/return-url.ts):
 * https on the default port, a public DNS name, no credentials; plain http allowed on the local chain.
 */
export const ReturnUrl = z.string().max(MAX_URL_LENGTH).describe("extension: where the checkout sends the buyer back after paying");

/** A non-negative integer that fits a JSON number exactly. */
export const Count = z
  .number()
  .int()
  .nonnegative()
  .max(2 ** 53 - 1);
