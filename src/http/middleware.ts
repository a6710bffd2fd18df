import express, { type RequestHandler } from "express";
import { DomainError } from "../errors.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import { callerOf } from "../limits/caller.js";

/** Request bodies are at most 16 KB (spec). */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * Open CORS, never with credentials. The response headers a browser client must read are exposed:
 * Retry-After, and svc-tx-hash (the transaction of a 409 PAYMENT_CONFIRMING at charge recovery).
 */
export const cors: RequestHandler = (req, res, next) => {
  res.setHeader("Access-Control-Allow-Origin", "*");
  res.setHeader("Access-Control-Expose-Headers", "Retry-After, svc-tx-hash, svc-error-detail");
  if (req.method === "OPTIONS") {
    res.setHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", "Content-Type");
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
    return;
  }
  next();
};

/** JSON bodies only, at most 16 KB; a body of any other type is refused. */
export const jsonBody: RequestHandler[] = [
  (req, _res, next) => {
    const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    // The common header is matched as is; any other form (a charset, another case) goes through type-is.
    if (hasBody && req.headers["content-type"] !== "application/json" && !req.is("application/json"))
      return next(new DomainError("INVALID_REQUEST", { detail: "(body): content-type must be application/json" }));
    next();
  },
  express.json({ limit: MAX_BODY_BYTES, strict: true, type: "application/json" }),
];

/** Per-caller (an IPv4 address or an IPv6 /64), per-route limit: past it, 429 RATE_LIMITED with retry_after and Retry-After. */
export function rateLimit(limiter: RateLimiter, scope: string): RequestHandler {
  return (req, _res, next) => {
    Promise.resolve(limiter.hit(`${scope}|${callerOf(req.ip)}`)).then((result) => {
      if (result.allowed) return next();
      next(new DomainError("RATE_LIMITED", { retryAfter: result.retryAfterSeconds }));
    }, next);
  };
}
