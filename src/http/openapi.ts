import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { API_VERSION } from "../capabilities.js";
import type { PostRoute } from "./route.js";
import { CapabilitiesResponse, ErrorBody, HealthResponse } from "./responses.js";
import { EmptyRequest } from "./schemas.js";

/** Codes every integration endpoint can answer. */
const COMMON: ErrorCode[] = ["INVALID_REQUEST", "RATE_LIMITED", "INTERNAL_ERROR"];

const schema = (s: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(s, { target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
};

function errorResponses(codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...new Set([...COMMON, ...codes])]) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retryable = list.some((c) => "retryAfter" in ERROR_CODES[c]);
    responses[String(status)] = {
      description: list.join(", "),
      ...(retryable ? { headers: { "Retry-After": { description: "seconds; present on every retryable error", schema: { type: "integer" } } } } : {}),
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/ErrorBody" },
          examples: Object.fromEntries(
            list.map((code) => {
              const rule = ERROR_CODES[code] as { action?: string; retryAfter?: number };
              return [code, { value: { error: code, ...(rule.action ? { action: rule.action } : {}), ...(rule.retryAfter !== undefined ? { retry_after: rule.retryAfter } : {}) } }];
            }),
          ),
        },
      },
    };
  }
  return responses;
}

function post(route: { summary: string; operationId: string; request: z.ZodType; requestRequired: boolean; response: z.ZodType; errors: ErrorCode[] }) {
  return {
    summary: route.summary,
    operationId: route.operationId,
    requestBody: { required: route.requestRequired, content: { "application/json": { schema: schema(route.request) } } },
    responses: { "200": { description: "OK", content: { "application/json": { schema: schema(route.response) } } }, ...errorResponses(route.errors) },
  };
}

const operationId = (path: string) => path.replace(/^\/v1\//, "").replace(/[/_](\w)/g, (_m, c: string) => c.toUpperCase());

/** The OpenAPI 3.1 document of the API, from the same zod schemas the routes validate with. */
export function buildOpenApi(routes: PostRoute[]): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    "/health": { get: { summary: "Liveness only; not rate limited", operationId: "health", responses: { "200": { description: "OK", content: { "application/json": { schema: schema(HealthResponse) } } } } } },
    "/v1/capabilities": {
      post: post({ summary: "What a client needs to know about this deployment", operationId: "capabilities", request: EmptyRequest, requestRequired: false, response: CapabilitiesResponse, errors: [] }),
      get: { summary: "The same, by GET", operationId: "capabilitiesGet", responses: { "200": { description: "OK", content: { "application/json": { schema: schema(CapabilitiesResponse) } } }, ...errorResponses([]) } },
    },
  };
  for (const r of routes) {
    paths[r.path] = { post: post({ summary: r.summary, operationId: operationId(r.path), request: r.schema, requestRequired: r.path !== "/v1/allowances/revoke/prepare", response: r.response, errors: r.errors }) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Non-custodial stablecoin payment service",
      version: API_VERSION,
      description:
        "All integration endpoints are POST with a JSON body (capabilities travel in bodies, never in URLs). Error bodies are { error, action?, retry_after? }; branch on error and action. Retryable errors carry Retry-After.",
    },
    servers: [{ url: "http://127.0.0.1:8787", description: "the local stack (npm start)" }],
    paths,
    components: { schemas: { ErrorBody: schema(ErrorBody) } },
  };
}
