import type { X402SettleResponse, X402VerifyResponse } from "../wire/index.js";
import { exactRefusalMessage, X402_REASONS } from "./reasons.js";

/** Why a payment is refused: x402's reason string, a sentence for people, and the payer when known. */
export type Refusal = { reason: string; message?: string; payer?: string };

/** A refusal as POST /x402/verify answers it (x402's `VerifyResponse`). */
export function verifyRefusal(refusal: Refusal): X402VerifyResponse {
  return {
    isValid: false,
    invalidReason: refusal.reason,
    ...(refusal.message ? { invalidMessage: refusal.message } : {}),
    ...(refusal.payer ? { payer: refusal.payer } : {}),
  };
}

/** A refusal as POST /x402/settle answers it (x402's `SettleResponse`: no transaction). */
export function settleRefusal(network: string, refusal: Refusal): X402SettleResponse {
  return {
    success: false,
    errorReason: refusal.reason,
    ...(refusal.message ? { errorMessage: refusal.message } : {}),
    ...(refusal.payer ? { payer: refusal.payer } : {}),
    transaction: "",
    network,
  };
}

/**
 * @x402/evm's refusal in this service's words: its reason kept (x402's packages read it), its message
 * replaced by the rule that refused ({@link exactRefusalMessage}), never the library's own text.
 */
export function exactRefusal(verdict: X402VerifyResponse, fallback: string = X402_REASONS.unexpectedVerify): Refusal {
  const reason = verdict.invalidReason ?? fallback;
  return { reason, message: exactRefusalMessage(reason), ...(verdict.payer ? { payer: verdict.payer } : {}) };
}

/**
 * Why a payload is not an EIP-3009 authorization, named as what it is: a Permit2 payload, an
 * authorization with a field missing or malformed (the field and its rule, never its value), or
 * something else. `issue` is the first problem the authorization's schema found.
 */
export function payloadRefusalMessage(payload: unknown, issue: { path: PropertyKey[] } | undefined): string {
  const fields = typeof payload === "object" && payload !== null ? payload : {};
  if ("permit2Authorization" in fields) return "a Permit2 payload: this facilitator settles EIP-3009 authorizations (exact on EVM) only";
  if (!("authorization" in fields) && !("signature" in fields))
    return "the payload is not an EIP-3009 authorization (exact on EVM): it has no authorization and no signature";
  const field = issue?.path.map(String).join(".") || "payload";
  return `the EIP-3009 authorization is incomplete or malformed: ${field} is missing or not of its form (addresses 0x and 40 hex digits, value, validAfter and validBefore integers, nonce 0x and 64 hex digits, signature hex bytes)`;
}

/** A payer one of whose settlements (either scheme) reverted on chain lately: none of theirs is sent for now (X402_REVERTED_PAYER_REFUSAL_MS). */
export function payerRefused(payer: string): Refusal {
  return { reason: X402_REASONS.transactionState, message: "a settlement of this payer's reverted on chain lately: none of theirs is sent for now", payer };
}
