import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import type { z } from "zod";
import { DomainError } from "../errors.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import { maskSecrets, type Logger } from "../logger.js";
import { X402FacilitatorRequest, X402SettleResponse, X402SupportedResponse, X402VerifyResponse } from "../wire/index.js";
import type { X402Facilitator } from "../x402/facilitator.js";
import { X402_REASONS } from "../x402/reasons.js";
import { settleRefusal, verifyRefusal } from "../x402/refusals.js";
import { issueDetail } from "./error-detail.js";
import { sendError } from "./errors.js";
import { callerOf } from "../limits/caller.js";
import { jsonBody, rateLimit } from "./middleware.js";
import { checkAnswer, type ResponseCheck } from "./route.js";

/** Where the facilitator is mounted: its URL is `{base_url}/x402` (x402's HTTPFacilitatorClient appends /verify, /settle, /supported). */
export const X402_PATH = "/x402";

export interface X402EndpointDeps {
  facilitator: Pick<X402Facilitator, "supported" | "verify" | "settle" | "network">;
  limiter: RateLimiter;
  logger: Logger;
  check?: ResponseCheck;
}

type Refused = { status: number; body: X402VerifyResponse | X402SettleResponse };

/** One of the facilitator's endpoints, as the app registers it. */
export interface X402Endpoint {
  method: "get" | "post";
  path: string;
  handlers: RequestHandler[];
}

/**
 * The x402 facilitator's three endpoints, in x402's shapes (not this API's error model): a body that
 * is not an x402 request is 400 with `invalid_payload`, an unexpected failure 500 with
 * `unexpected_verify_error` / `unexpected_settle_error`; a refused payment is 200 with
 * `isValid: false` or `success: false`, as x402 clients expect. Rate limited like every endpoint.
 */
export function x402Endpoints(deps: X402EndpointDeps): X402Endpoint[] {
  const { facilitator, check } = deps;
  const answer = (res: Response, schema: z.ZodType, body: unknown, what: string, status = 200) => {
    if (check) checkAnswer(schema, body, what, check);
    res.status(status).json(body);
  };

  const supported: RequestHandler = (_req, res) => {
    answer(res, X402SupportedResponse, facilitator.supported(), `GET ${X402_PATH}/supported`);
  };

  const refusedVerify = (status: number, reason: string, message?: string): Refused => ({ status, body: verifyRefusal({ reason, message }) });
  const refusedSettle = (status: number, reason: string, message?: string): Refused => ({
    status,
    body: settleRefusal(facilitator.network, { reason, message }),
  });

  const endpoint = (
    name: "verify" | "settle",
    schema: z.ZodType,
    refuse: (status: number, reason: string, message?: string) => Refused,
    unexpected: string,
  ): RequestHandler[] => {
    const what = `POST ${X402_PATH}/${name}`;
    const handle: RequestHandler = async (req, res) => {
      const parsed = X402FacilitatorRequest.safeParse(req.body ?? {});
      if (!parsed.success) {
        const refused = refuse(400, X402_REASONS.payload, issueDetail(parsed.error.issues[0]));
        return answer(res, schema, refused.body, what, refused.status);
      }
      try {
        const body = name === "settle" ? await facilitator.settle(parsed.data, callerOf(req.ip)) : await facilitator.verify(parsed.data);
        answer(res, schema, body, what);
      } catch (error) {
        // The relayer's budget for work that earns no fee is spent: 429 and Retry-After, in x402's form.
        if (error instanceof DomainError && error.code === "RELAYER_BUDGET_EXCEEDED") {
          res.setHeader("Retry-After", String(error.retryAfter));
          const refused = refuse(429, X402_REASONS.relayerBudgetExceeded, error.detail);
          return answer(res, schema, refused.body, what, refused.status);
        }
        deps.logger.warn({ path: `${X402_PATH}/${name}`, error: maskSecrets((error as Error).message.split("\n")[0] ?? "") }, "x402 request failed");
        const refused = refuse(500, unexpected);
        answer(res, schema, refused.body, what, refused.status);
      }
    };
    // A body that cannot be read (not JSON, too large) is refused in x402's shape too.
    const unreadable: ErrorRequestHandler = (error, _req, res, next) => {
      if (error instanceof DomainError && error.code === "RATE_LIMITED") return sendError(res, error, check);
      if (error instanceof DomainError || (typeof error === "object" && error !== null && "status" in error && (error as { status: number }).status < 500)) {
        const refused = refuse(400, X402_REASONS.payload, "(body): an x402 request in JSON, at most 16 KB");
        return answer(res, schema, refused.body, what, refused.status);
      }
      next(error);
    };
    return [rateLimit(deps.limiter, `${X402_PATH}/${name}`), ...jsonBody, handle, unreadable as unknown as RequestHandler];
  };

  return [
    { method: "get", path: `${X402_PATH}/supported`, handlers: [rateLimit(deps.limiter, `${X402_PATH}/supported`), supported] },
    { method: "post", path: `${X402_PATH}/verify`, handlers: endpoint("verify", X402VerifyResponse, refusedVerify, X402_REASONS.unexpectedVerify) },
    { method: "post", path: `${X402_PATH}/settle`, handlers: endpoint("settle", X402SettleResponse, refusedSettle, X402_REASONS.unexpectedSettle) },
  ];
}
