/**
 * What a client call throws: {@link ApiError} when the service answered with its error model,
 * {@link ApiConnectionError} when no answer came (after the network retries), and
 * {@link InvalidResponseError} when something answered, but not in the service's shape (not JSON, or
 * JSON that is not an object / not `{ error }`): a proxy's page, a wrong base URL.
 */
import type { Action, ErrorCode, PaymentSender } from "./types.js";

/** An error answer: branch on `error` and `action`, not on the status. */
export class ApiError<Code extends string = ErrorCode> extends Error {
  constructor(
    readonly status: number,
    readonly error: Code,
    readonly action: Action | undefined,
    /** Seconds, from the body or the Retry-After header; set on every retryable error. */
    readonly retryAfter: number | undefined,
    /** On INVALID_REQUEST, the `svc-error-detail` header: the first failing field and its rule (`field: rule`). */
    readonly detail?: string,
    /** On PAYER_UNKNOWN: each wallet that sent into the payment address, with what it sent; name one as the refund's `to`. */
    readonly senders?: PaymentSender[],
  ) {
    super(`${status} ${error}${action ? ` (${action})` : ""}`);
    this.name = "ApiError";
  }

  /** Whether asking again later, unchanged, makes sense (action RETRY). */
  get retryable(): boolean {
    return this.action === "RETRY";
  }
}

/**
 * No answer from the service: the connection failed, was dropped, or the call took longer than
 * `timeoutMs`, on every attempt (`attempts`, the first included). The request may or may not have
 * reached the service: ask again about the same thing (the same intent, the same transaction).
 */
export class ApiConnectionError extends Error {
  constructor(
    message: string,
    /** Calls made, the first included. */
    readonly attempts: number,
    /** Whether the last attempt ended on the timeout (else the connection failed). */
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "ApiConnectionError";
  }
}

/** An answer that is not the service's: not JSON, or JSON of another shape. Nothing in it is trusted. */
export class InvalidResponseError extends Error {
  constructor(
    readonly status: number,
    /** The answer's content type, as sent. */
    readonly contentType: string | null,
    /** The first 200 characters of the body, for the log. */
    readonly bodyStart: string,
  ) {
    super(`${status}: not an answer of the payment service (${contentType ?? "no content type"}): ${JSON.stringify(bodyStart.slice(0, 80))}`);
    this.name = "InvalidResponseError";
  }
}
