import type { RequestHandler } from "express";
import type { z } from "zod";
import { ServiceError, type ErrorCode } from "../errors.js";

/**
 * One integration endpoint: a POST path, the schema of its body, the domain call it maps to, and
 * what it answers (response schema and error codes, for the OpenAPI document).
 */
export interface PostRoute {
  path: string;
  summary: string;
  schema: z.ZodType;
  response: z.ZodType;
  /** Codes this endpoint can answer besides INVALID_REQUEST, RATE_LIMITED and INTERNAL_ERROR. */
  errors: ErrorCode[];
  /** Extra limits run before the body is parsed (e.g. recovery's tighter per-IP limit). */
  limits?: RequestHandler[];
  handle(body: never, request: { ip: string }): Promise<unknown> | unknown;
}

export function route<S extends z.ZodType>(spec: {
  path: string;
  summary: string;
  schema: S;
  response: z.ZodType;
  errors: ErrorCode[];
  limits?: RequestHandler[];
  handle(body: z.infer<S>, request: { ip: string }): Promise<unknown> | unknown;
}): PostRoute {
  return spec as PostRoute;
}

/** Parses the body with the route's schema (no body counts as `{}`), calls the domain, sends its result. */
export function handlerFor(spec: PostRoute): RequestHandler {
  return async (req, res) => {
    const parsed = spec.schema.safeParse(req.body ?? {});
    if (!parsed.success) throw new ServiceError("INVALID_REQUEST", { detail: parsed.error.issues[0]?.message });
    const result = await spec.handle(parsed.data as never, { ip: req.ip ?? "unknown" });
    res.status(200).json(result);
  };
}
