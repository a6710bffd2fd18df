/**
 * One error model. Domain code throws {@link ServiceError} with a code; the HTTP layer maps it in
 * one place to `{ error, action?, retry_after? }`, a status, and a Retry-After header when retryable.
 */

/** What the caller should do next (spec + DESIGN.md). */
export type Action = "SUCCESS" | "WAIT" | "RETRY" | "FIX_REQUEST" | "ASK_PAYER" | "STOP";

interface CodeRule {
  status: number;
  action?: Action;
  /** Seconds before a retry makes sense; present means retryable (Retry-After is sent). */
  retryAfter?: number;
}

/** Every error code the service answers with, its HTTP status and action. */
export const ERROR_CODES = {
  INVALID_REQUEST: { status: 400, action: "FIX_REQUEST" },
  NOT_FOUND: { status: 404, action: "FIX_REQUEST" },
  METHOD_NOT_ALLOWED: { status: 405, action: "FIX_REQUEST" },
  AMOUNT_OUT_OF_BOUNDS: { status: 400, action: "FIX_REQUEST" },
  INVALID_INTENT: { status: 400, action: "FIX_REQUEST" },
  INTENT_EXPIRED: { status: 400, action: "FIX_REQUEST" },
  PAYMENT_ALREADY_PROCESSED: { status: 409, action: "SUCCESS" },
  RATE_LIMITED: { status: 429, action: "RETRY", retryAfter: 60 },
  CONCURRENCY_LIMIT: { status: 429, action: "RETRY", retryAfter: 2 },
  INTERNAL_ERROR: { status: 500, action: "RETRY", retryAfter: 5 },
  RPC_ERROR: { status: 502, action: "RETRY", retryAfter: 5 },
  RPC_BUSY: { status: 503, action: "RETRY", retryAfter: 5 },
  PAYMENT_RECOVERY_INCONSISTENT: { status: 502, action: "RETRY", retryAfter: 30 },
  RECOVERY_UNAVAILABLE: { status: 503, action: "RETRY", retryAfter: 10 },
  // The token refuses (USDC): checked before anything is sent (src/chain/token-refusals.ts)
  /** The payer, recipient or fee collector is blacklisted by the token: no transfer can succeed. */
  ACCOUNT_BLOCKED: { status: 400, action: "STOP" },
  /** The token is paused: nothing moves until its pauser unpauses it. */
  TOKEN_PAUSED: { status: 503, action: "RETRY", retryAfter: 60 },
  // Recurring
  INVALID_SETUP_TOKEN: { status: 400, action: "FIX_REQUEST" },
  SETUP_TOKEN_EXPIRED: { status: 400, action: "FIX_REQUEST" },
  INVALID_SIGNATURE: { status: 400, action: "ASK_PAYER" },
  UNSUPPORTED_SIGNATURE_FORMAT: { status: 400, action: "ASK_PAYER" },
  SIGNATURE_VALIDATION_TOO_EXPENSIVE: { status: 400, action: "FIX_REQUEST" },
  INVALID_SUBSCRIPTION: { status: 400, action: "FIX_REQUEST" },
  PERMISSION_REVOKED: { status: 400, action: "STOP" },
  INSUFFICIENT_BALANCE: { status: 400, action: "ASK_PAYER" },
  INSUFFICIENT_ALLOWANCE: { status: 400, action: "ASK_PAYER" },
  TRANSACTION_REVERTED: { status: 400, action: "RETRY", retryAfter: 60 },
  NOT_DUE: { status: 409, action: "RETRY", retryAfter: 60 },
  SUBSCRIPTION_EXPIRED: { status: 409, action: "STOP" },
  GAS_TOO_HIGH: { status: 409, action: "RETRY", retryAfter: 60 },
  PAYMENT_CONFIRMING: { status: 409, action: "WAIT", retryAfter: 5 },
  GAS_QUOTE_UNAVAILABLE: { status: 502, action: "RETRY", retryAfter: 10 },
  RELAYER_ERROR: { status: 502, action: "RETRY", retryAfter: 10 },
  RELAYER_UNAVAILABLE: { status: 503, action: "RETRY", retryAfter: 60 },
  INVALID_CANCEL_TOKEN: { status: 400, action: "FIX_REQUEST" },
  CANCEL_TOKEN_EXPIRED: { status: 400, action: "FIX_REQUEST" },
  INVALID_APPROVE_TOKEN: { status: 400, action: "FIX_REQUEST" },
  APPROVE_TOKEN_EXPIRED: { status: 400, action: "FIX_REQUEST" },
  // Links
  INVALID_LINK_TOKEN: { status: 400, action: "FIX_REQUEST" },
  LINK_CLOSED: { status: 400, action: "STOP" },
  // Refunds
  REFUND_AMOUNT_INVALID: { status: 400, action: "FIX_REQUEST" },
  INVALID_REFUND_TOKEN: { status: 400, action: "FIX_REQUEST" },
  REFUND_TOKEN_EXPIRED: { status: 400, action: "FIX_REQUEST" },
  REFUND_TRANSACTION_MISMATCH: { status: 400, action: "FIX_REQUEST" },
  REFUND_CONFIRMING: { status: 409, action: "WAIT", retryAfter: 5 },
  /** The original settlement a refund names is not (or no longer) on chain. */
  PAYMENT_NOT_FOUND: { status: 400, action: "FIX_REQUEST" },
  /** The original transaction is not the settlement the identifier describes. */
  PAYMENT_MISMATCH: { status: 400, action: "FIX_REQUEST" },
} as const satisfies Record<string, CodeRule>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly action: Action | undefined;
  /** Seconds; set for every retryable error. */
  readonly retryAfter: number | undefined;

  /** Extra response headers (e.g. the transaction hash of a PAYMENT_CONFIRMING). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: { retryAfter?: number; cause?: unknown; detail?: string; headers?: Record<string, string> } = {}) {
    super(options.detail ? `${code}: ${options.detail}` : code, { cause: options.cause });
    const rule: CodeRule = ERROR_CODES[code];
    this.name = "ServiceError";
    this.code = code;
    this.status = rule.status;
    this.action = rule.action;
    this.retryAfter = rule.retryAfter === undefined ? undefined : (options.retryAfter ?? rule.retryAfter);
    this.headers = options.headers ?? {};
  }
}

/** The only shape an error body ever has. */
export interface ErrorBody {
  error: string;
  action?: Action;
  retry_after?: number;
}

export function errorBody(error: ServiceError): ErrorBody {
  return {
    error: error.code,
    ...(error.action ? { action: error.action } : {}),
    ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
  };
}
