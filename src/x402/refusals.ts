import type { X402SettleResponse, X402VerifyResponse } from "../wire/index.js";

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
