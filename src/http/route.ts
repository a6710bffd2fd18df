import type { RequestHandler } from "express";
import type { z } from "zod";
import { DomainError, type ErrorCode } from "../errors.js";
import { issueDetail } from "./error-detail.js";
import { callerOf } from "../limits/caller.js";

/**
 * One integration endpoint: a POST path, the schema of its body, the schema of its answer, the
 * domain call it maps to, and the codes it can answer (for the OpenAPI document). The handler's
 * return type is inferred from the response schema, so the wire contract is written once.
 */
export interface RouteSpec<S extends z.ZodType, R extends z.ZodType> {
  path: string;
  summary: string;
  schema: S;
  response: R;
  /** Codes this endpoint can answer besides INVALID_REQUEST, RATE_LIMITED and INTERNAL_ERROR. */
  errors: ErrorCode[];
  /** Extra limits run before the body is parsed (e.g. recovery's tighter per-IP limit). */
  limits?: RequestHandler[];
  /** `ip` is the caller as limits count it: an IPv4 address or an IPv6 /64 (src/limits/caller.ts). */
  handle(body: z.infer<S>, request: { ip: string }): Promise<z.infer<R>> | z.infer<R>;
}

/** A route with its types erased, as the app and the OpenAPI document hold them. */
export type PostRoute = RouteSpec<z.ZodType, z.ZodType>;

export function route<S extends z.ZodType, R extends z.ZodType>(spec: RouteSpec<S, R>): PostRoute {
  return spec as unknown as PostRoute;
}

/** Reports an answer that does not match its schema (tests fail on any; production passes none). */
export type ResponseCheck = (problem: string) => void;

/**
 * Parses the body with the route's schema (no body counts as `{}`), calls the domain, sends its
 * result. With a check, the result is also parsed with the response schema and a mismatch reported.
 */
export function handlerFor(spec: PostRoute, check?: ResponseCheck): RequestHandler {
  return async (req, res) => {
    const parsed = spec.schema.safeParse(req.body ?? {});
    if (!parsed.success) throw new DomainError("INVALID_REQUEST", { detail: issueDetail(parsed.error.issues[0]) });
    const result = await spec.handle(parsed.data, { ip: callerOf(req.ip) });
    if (check) checkAnswer(spec.response, result, `POST ${spec.path}`, check);
    res.status(200).json(result);
  };
}

/** Parses an answer as its schema would be read by a client (after JSON), reporting any mismatch. */
export function checkAnswer(schema: z.ZodType, body: unknown, what: string, check: ResponseCheck): void {
  const parsed = schema.safeParse(JSON.parse(JSON.stringify(body)));
  if (!parsed.success) check(`${what}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`);
}
