/**
 * One error model. Domain code throws {@link DomainError}: a code, the action the caller should take,
 * and, when retryable, the seconds before a retry makes sense. It never picks an HTTP status: the HTTP
 * layer maps codes to statuses in one table (src/http/error-status.ts) and writes
 * `{ error, action?, retry_after? }`, and `senders` on PAYER_UNKNOWN (DESIGN v7).
 */

/** What the caller should do next (spec + DESIGN.md). */
export type Action = "SUCCESS" | "WAIT" | "RETRY" | "FIX_REQUEST" | "ASK_PAYER" | "STOP";

interface CodeRule {
  action?: Action;
  /** Seconds before a retry makes sense; present means retryable (Retry-After is sent). */
  retryAfter?: number;
}

/** Every error code the service answers with, and what the caller should do about it. */
export const ERROR_CODES = {
  INVALID_REQUEST: { action: "FIX_REQUEST" },
  NOT_FOUND: { action: "FIX_REQUEST" },
  METHOD_NOT_ALLOWED: { action: "FIX_REQUEST" },
  AMOUNT_OUT_OF_BOUNDS: { action: "FIX_REQUEST" },
  INVALID_INTENT: { action: "FIX_REQUEST" },
  INTENT_EXPIRED: { action: "FIX_REQUEST" },
  PAYMENT_ALREADY_PROCESSED: { action: "SUCCESS" },
  RATE_LIMITED: { action: "RETRY", retryAfter: 60 },
  CONCURRENCY_LIMIT: { action: "RETRY", retryAfter: 2 },
  INTERNAL_ERROR: { action: "RETRY", retryAfter: 5 },
  RPC_ERROR: { action: "RETRY", retryAfter: 5 },
  RPC_BUSY: { action: "RETRY", retryAfter: 5 },
  PAYMENT_RECOVERY_INCONSISTENT: { action: "RETRY", retryAfter: 30 },
  RECOVERY_UNAVAILABLE: { action: "RETRY", retryAfter: 10 },
  // The token refuses (USDC): checked before anything is sent (src/chain/token-refusals.ts)
  /** The payer, recipient or fee collector is blacklisted by the token: no transfer can succeed. */
  ACCOUNT_BLOCKED: { action: "STOP" },
  /** The token is paused: nothing moves until its pauser unpauses it. */
  TOKEN_PAUSED: { action: "RETRY", retryAfter: 60 },
  // Recurring
  INVALID_SETUP_TOKEN: { action: "FIX_REQUEST" },
  SETUP_TOKEN_EXPIRED: { action: "FIX_REQUEST" },
  INVALID_SIGNATURE: { action: "ASK_PAYER" },
  UNSUPPORTED_SIGNATURE_FORMAT: { action: "ASK_PAYER" },
  SIGNATURE_VALIDATION_TOO_EXPENSIVE: { action: "FIX_REQUEST" },
  INVALID_SUBSCRIPTION: { action: "FIX_REQUEST" },
  PERMISSION_REVOKED: { action: "STOP" },
  INSUFFICIENT_BALANCE: { action: "ASK_PAYER" },
  INSUFFICIENT_ALLOWANCE: { action: "ASK_PAYER" },
  TRANSACTION_REVERTED: { action: "RETRY", retryAfter: 60 },
  NOT_DUE: { action: "RETRY", retryAfter: 60 },
  SUBSCRIPTION_EXPIRED: { action: "STOP" },
  GAS_TOO_HIGH: { action: "RETRY", retryAfter: 60 },
  PAYMENT_CONFIRMING: { action: "WAIT", retryAfter: 5 },
  GAS_QUOTE_UNAVAILABLE: { action: "RETRY", retryAfter: 10 },
  RELAYER_ERROR: { action: "RETRY", retryAfter: 10 },
  RELAYER_UNAVAILABLE: { action: "RETRY", retryAfter: 60 },
  INVALID_CANCEL_TOKEN: { action: "FIX_REQUEST" },
  CANCEL_TOKEN_EXPIRED: { action: "FIX_REQUEST" },
  INVALID_APPROVE_TOKEN: { action: "FIX_REQUEST" },
  APPROVE_TOKEN_EXPIRED: { action: "FIX_REQUEST" },
  // Links
  INVALID_LINK_TOKEN: { action: "FIX_REQUEST" },
  /** One of this deployment's link tokens, of a kind this endpoint does not take (a view token where the manage token is asked, a payment link's where a subscription link's is). */
  WRONG_LINK_TOKEN: { action: "FIX_REQUEST" },
  LINK_CLOSED: { action: "STOP" },
  // Refunds
  REFUND_AMOUNT_INVALID: { action: "FIX_REQUEST" },
  INVALID_REFUND_TOKEN: { action: "FIX_REQUEST" },
  REFUND_TOKEN_EXPIRED: { action: "FIX_REQUEST" },
  REFUND_TRANSACTION_MISMATCH: { action: "FIX_REQUEST" },
  REFUND_CONFIRMING: { action: "WAIT", retryAfter: 5 },
  /** The original settlement a refund names is not (or no longer) on chain. */
  PAYMENT_NOT_FOUND: { action: "FIX_REQUEST" },
  /** The original transaction is not the settlement the identifier describes. */
  PAYMENT_MISMATCH: { action: "FIX_REQUEST" },
  /**
   * A payment address's payer cannot be told from the chain (no one wallet's own transfers reached
   * the amount, or its transfers were not all found): the body lists `senders`, and the merchant
   * names one as the refund's `to`.
   */
  PAYER_UNKNOWN: { action: "FIX_REQUEST" },
  // Holds
  INVALID_HOLD_TOKEN: { action: "FIX_REQUEST" },
  /** The hold's terms break the escrow's rules (expiries out of order, past, or too far), or the hold is not this service's to operate. */
  INVALID_HOLD: { action: "FIX_REQUEST" },
  /** A capture of more than the hold still has authorized. */
  HOLD_AMOUNT_EXCEEDS_AUTHORIZED: { action: "FIX_REQUEST" },
  /** The hold's window for this step has passed (authorize after its deadline, capture at or after `capture_before`, refund at or after `refund_before`). */
  HOLD_EXPIRED: { action: "STOP" },
  /** The hold was already authorized (a replayed or second authorization): nothing was sent. */
  HOLD_ALREADY_AUTHORIZED: { action: "SUCCESS" },
  /** The buyer has not authorized the hold yet: nothing to capture or void. */
  HOLD_NOT_AUTHORIZED: { action: "WAIT", retryAfter: 5 },
  /** Nothing is left authorized (captured in full, voided or reclaimed): nothing to capture or void. */
  HOLD_CLOSED: { action: "STOP" },
  /** Another operator call for this hold is on its way: ask again once it is mined. */
  HOLD_BUSY: { action: "WAIT", retryAfter: 5 },
  /**
   * The escrow refuses the call, and a majority of the chain's nodes agree on its refusal (the escrow's
   * error name in `svc-error-detail`): the same call can never succeed, so it is not retried.
   */
  ESCROW_REFUSED: { action: "FIX_REQUEST" },
  /**
   * The relayer's hourly gas budget for work that earns no fee (RELAYER_BUDGET_WEI_PER_*) is spent for
   * this payer, recipient, caller or in total: new work of that kind waits for the window to turn.
   */
  RELAYER_BUDGET_EXCEEDED: { action: "RETRY", retryAfter: 3600 },
} as const satisfies Record<string, CodeRule>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface DomainErrorOptions {
  /** Overrides the code's default retry delay (seconds), e.g. a rate limiter's own window. */
  retryAfter?: number;
  cause?: unknown;
  /**
   * What went wrong, without any value the caller sent. Logged; for INVALID_REQUEST it is also the
   * caller's `svc-error-detail` header, written `field: rule`.
   */
  detail?: string;
  /** The transaction a WAIT answer is about (a charge recovery's PAYMENT_CONFIRMING). */
  txHash?: `0x${string}`;
  /** PAYER_UNKNOWN's senders into the payment address, each with what they sent (units). */
  senders?: ReadonlyArray<{ address: `0x${string}`; amountUnits: bigint }>;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly action: Action | undefined;
  /** Seconds; set for every retryable error. */
  readonly retryAfter: number | undefined;
  readonly txHash: `0x${string}` | undefined;
  readonly detail: string | undefined;
  readonly senders: ReadonlyArray<{ address: `0x${string}`; amountUnits: bigint }> | undefined;

  constructor(code: ErrorCode, options: DomainErrorOptions = {}) {
    super(options.detail ? `${code}: ${options.detail}` : code, { cause: options.cause });
    const rule: CodeRule = ERROR_CODES[code];
    this.name = "DomainError";
    this.code = code;
    this.action = rule.action;
    this.retryAfter = rule.retryAfter === undefined ? undefined : (options.retryAfter ?? rule.retryAfter);
    this.detail = options.detail;
    this.txHash = options.txHash;
    this.senders = options.senders;
  }
}
