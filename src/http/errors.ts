import type { ErrorRequestHandler, Response } from "express";
import { ServiceError, errorBody } from "../errors.js";
import { maskPath, maskSecrets, type Logger } from "../logger.js";

/** Writes a service error: status, `{ error, action?, retry_after? }`, and Retry-After when retryable. */
export function sendError(res: Response, error: ServiceError): void {
  if (error.retryAfter !== undefined) res.setHeader("Retry-After", String(error.retryAfter));
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.status(error.status).json(errorBody(error));
}

/** The one place any thrown error becomes an HTTP answer. Nothing internal ever reaches the body. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    let mapped: ServiceError;
    if (error instanceof ServiceError) {
      mapped = error;
    } else if (isBodyParserError(error)) {
      mapped = new ServiceError("INVALID_REQUEST", { detail: error.type ?? "unreadable body" });
    } else {
      mapped = new ServiceError("INTERNAL_ERROR", { cause: error });
    }
    if (mapped.status >= 500) {
      const cause = mapped.cause instanceof Error ? `${mapped.cause.name}: ${mapped.cause.message.split("\n")[0]}` : undefined;
      logger.warn({ path: maskPath(req.path), code: mapped.code, cause: cause && maskSecrets(cause) }, "request failed");
    }
    sendError(res, mapped);
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
