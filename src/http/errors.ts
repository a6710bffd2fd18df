import type { ErrorRequestHandler, Response } from "express";
import { DomainError } from "../errors.js";
import { ErrorBody } from "../wire/index.js";
import { statusOf } from "./error-status.js";
import { checkAnswer, type ResponseCheck } from "./route.js";
import { maskPath, maskSecrets, type Logger } from "../logger.js";
import { headerSafe } from "./error-detail.js";

/** The header naming the first failing field and its rule on every INVALID_REQUEST. */
export const ERROR_DETAIL_HEADER = "svc-error-detail";

/** The only shape an error body ever has (`senders` on PAYER_UNKNOWN only). */
export function errorBody(error: DomainError): ErrorBody {
  return {
    error: error.code,
    ...(error.action ? { action: error.action } : {}),
    ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    ...(error.senders ? { senders: error.senders.map((s) => ({ address: s.address, amount_units: s.amountUnits.toString() })) } : {}),
  };
}

/**
 * Writes a domain error: its status from the one table, `{ error, action?, retry_after? }`,
 * Retry-After when retryable, and `svc-tx-hash` when the answer is about a transaction.
 */
export function sendError(res: Response, error: DomainError, check?: ResponseCheck): void {
  if (error.retryAfter !== undefined) res.setHeader("Retry-After", String(error.retryAfter));
  if (error.txHash) res.setHeader("svc-tx-hash", error.txHash);
  // Which field failed and the rule, for every refused request (never the value sent).
  if (error.code === "INVALID_REQUEST") res.setHeader(ERROR_DETAIL_HEADER, headerSafe(error.detail ?? "(body): not accepted"));
  // The escrow's own error name: what the caller must change, since the same call never succeeds.
  if (error.code === "ESCROW_REFUSED" && error.detail) res.setHeader(ERROR_DETAIL_HEADER, headerSafe(error.detail));
  const body = errorBody(error);
  if (check) checkAnswer(ErrorBody, body, `error ${error.code}`, check);
  res.status(statusOf(error.code)).json(body);
}

/** The one place any thrown error becomes an HTTP answer. Nothing internal ever reaches the body. */
export function errorHandler(logger: Logger, check?: ResponseCheck): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    let mapped: DomainError;
    if (error instanceof DomainError) {
      mapped = error;
    } else if (isBodyParserError(error)) {
      mapped = new DomainError("INVALID_REQUEST", { detail: bodyProblem(error.type) });
    } else {
      mapped = new DomainError("INTERNAL_ERROR", { cause: error });
    }
    if (statusOf(mapped.code) >= 500) {
      const cause = mapped.cause instanceof Error ? `${mapped.cause.name}: ${mapped.cause.message.split("\n")[0]}` : undefined;
      logger.warn({ path: maskPath(req.path), code: mapped.code, cause: cause && maskSecrets(cause) }, "request failed");
    }
    sendError(res, mapped, check);
  };
}

/**
 * A client fault found while reading the body (http-errors from body-parser: malformed JSON, too
 * large, a corrupt or truncated gzip/deflate/br stream, an unsupported encoding): 4xx, exposed.
 */
function isBodyParserError(error: unknown): error is { type?: string; status: number } {
  if (typeof error !== "object" || error === null) return false;
  const { status, type, expose } = error as { status?: unknown; type?: unknown; expose?: unknown };
  return typeof status === "number" && status >= 400 && status < 500 && (typeof type === "string" || expose === true);
}

/** A body-parser fault as `(body): rule`, from its type (never the body's bytes). */
function bodyProblem(type: string | undefined): string {
  switch (type) {
    case "entity.parse.failed":
      return "(body): not valid JSON";
    case "entity.too.large":
      return "(body): larger than 16 KB";
    case "encoding.unsupported":
      return "(body): unsupported content-encoding";
    default:
      return "(body): unreadable (corrupt, truncated or mis-encoded)";
  }
}
