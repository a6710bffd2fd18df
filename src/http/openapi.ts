import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { HTTP_STATUS } from "./error-status.js";
import { API_VERSION } from "../capabilities.js";
import * as W from "../wire/index.js";
import { WEBHOOK_EVENTS } from "../wire/index.js";
import { sample, type Schema } from "./openapi-examples.js";
import { CAPABILITY_EXPIRY, OPERATIONS, TAGS, type OperationDoc } from "./operations.js";
import type { PostRoute } from "./route.js";

/** Codes every integration endpoint can answer. */
export const COMMON_ERRORS: ErrorCode[] = ["INVALID_REQUEST", "RATE_LIMITED", "INTERNAL_ERROR"];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Wire exports kept inline in the document rather than named as components: the error body (each
 * operation has its own error schema) and the small shared pieces that were always written inline.
 */
const INLINE = new Set([
  "ErrorBody",
  "TokenDomain",
  "VerifyCode",
  "ChargeStatus",
  "SubscriptionStateName",
  "LinkId",
  "ChainId",
  "Calldata",
  "NotifyUrl",
  "Count",
]);

/** Every exported wire schema (src/wire), named like its export. */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  for (const [name, value] of Object.entries(W)) if (value instanceof z.ZodType && !names.has(value) && !INLINE.has(name)) names.set(value, name);
  return names;
}

/** The components' schemas, with $refs between them, as JSON Schema 2020-12 (what OpenAPI 3.1 uses). */
function componentSchemas(names: Map<z.ZodType, string>): Record<string, Schema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: "draft-2020-12", unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Schema>;
  };
  const out: Record<string, Schema> = {};
  for (const [id, { $schema: _s, $id: _i, ...rest }] of Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) out[id] = rest;
  return out;
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function errorExample(code: ErrorCode) {
  const rule = ERROR_CODES[code] as { action?: string; retryAfter?: number };
  return {
    error: code,
    ...(rule.action ? { action: rule.action } : {}),
    ...(rule.retryAfter !== undefined ? { retry_after: rule.retryAfter } : {}),
    ...(code === "PAYER_UNKNOWN"
      ? {
          senders: [
            { address: "0x1111111111111111111111111111111111111111", amount_units: "5000000" },
            { address: "0x2222222222222222222222222222222222222222", amount_units: "5000000" },
          ],
        }
      : {}),
  };
}

/** The error responses of one operation: one named schema with `error` as the enum of its codes. */
function errorResponses(operationId: string, codes: ErrorCode[], components: Record<string, Schema>) {
  const all = [...new Set([...COMMON_ERRORS, ...codes])];
  const name = `${pascal(operationId)}Error`;
  components[name] = {
    type: "object",
    description: `An error answer of ${operationId}: branch on error and action.`,
    properties: {
      error: { type: "string", enum: all },
      action: ref("Action"),
      retry_after: { type: "integer", description: "seconds; on every retryable error, with the Retry-After header" },
      ...(all.includes("PAYER_UNKNOWN")
        ? {
            senders: {
              type: "array",
              description: "on PAYER_UNKNOWN only: each wallet that sent into the payment address, with what it sent; name one as to and ask again",
              items: ref("PaymentSender"),
            },
          }
        : {}),
    },
    required: ["error"],
    additionalProperties: false,
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retryable = list.some((c) => "retryAfter" in ERROR_CODES[c]);
    const headers = {
      ...(retryable ? { "Retry-After": { description: "seconds; present on every retryable error", schema: { type: "integer" } } } : {}),
      ...(list.includes("INVALID_REQUEST")
        ? {
            "svc-error-detail": {
              description:
                "On every INVALID_REQUEST: the first field that failed and the rule it broke, `field: rule` (`(body): rule` for the body itself), e.g. `refund_tx_hash: 0x and 64 hex digits`. Never the value sent.",
              schema: { type: "string", maxLength: 200 },
            },
          }
        : {}),
    };
    responses[String(status)] = {
      description: list.join(", "),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { "application/json": { schema: ref(name), examples: Object.fromEntries(list.map((code) => [code, { value: errorExample(code) }])) } },
    };
  }
  return responses;
}

function operation(
  doc: OperationDoc,
  summary: string,
  spec: { request?: string; requestRequired?: boolean; response: string; errors: ErrorCode[] | null },
  components: Record<string, Schema>,
) {
  const body = (name: string, key = "") => ({ schema: ref(name), example: sample(ref(name), components, key) });
  return {
    tags: [doc.tag],
    summary,
    description: doc.description,
    operationId: doc.operationId,
    ...(spec.request ? { requestBody: { required: spec.requestRequired ?? true, content: { "application/json": body(spec.request) } } } : {}),
    responses: {
      "200": { description: "OK", content: { "application/json": body(spec.response) } },
      ...(spec.errors ? errorResponses(doc.operationId, spec.errors, components) : {}),
    },
  };
}

function docFor(key: string): OperationDoc {
  const doc = OPERATIONS[key];
  if (!doc) throw new Error(`no OpenAPI description for ${key}: add it to src/http/operations.ts`);
  return doc;
}

/** The OpenAPI 3.1 document of the API, from the same zod schemas and error tables the routes use. */
export function buildOpenApi(routes: PostRoute[]): Record<string, unknown> {
  const names = namedSchemas();
  const components = componentSchemas(names);
  components.Action = {
    type: "string",
    enum: ["SUCCESS", "WAIT", "RETRY", "FIX_REQUEST", "ASK_PAYER", "STOP"],
    description: "What to do next. WAIT: the transaction exists and the money may have moved; poll the same transaction and start no other.",
  };
  const nameOf = (schema: z.ZodType, what: string) => {
    const name = names.get(schema);
    if (!name) throw new Error(`${what}: its schema is not exported from src/wire`);
    return name;
  };
  const paths: Record<string, Record<string, unknown>> = {
    "/health": { get: operation(docFor("GET /health"), "Liveness only; not rate limited", { response: "HealthResponse", errors: null }, components) },
    "/v1/capabilities": {
      post: operation(
        docFor("POST /v1/capabilities"),
        "What a client needs to know about this deployment",
        { request: "EmptyRequest", requestRequired: false, response: "CapabilitiesResponse", errors: [] },
        components,
      ),
      get: operation(docFor("GET /v1/capabilities"), "The same, by GET", { response: "CapabilitiesResponse", errors: [] }, components),
    },
    "/v1/webhooks/keys": {
      get: operation(
        docFor("GET /v1/webhooks/keys"),
        "The public keys webhook deliveries are signed with",
        { response: "WebhookKeysResponse", errors: [] },
        components,
      ),
    },
  };
  // The x402 facilitator: x402's shapes, every answer (refusals included) in its own response schema;
  // only a rate limit answers in this API's error model.
  components.X402RateLimited = {
    type: "object",
    description: "x402 endpoints' one answer in this API's error model: 429 past the per-IP limit, with Retry-After.",
    properties: { error: { type: "string", enum: ["RATE_LIMITED"] }, action: ref("Action"), retry_after: { type: "integer" } },
    required: ["error"],
    additionalProperties: false,
  };
  const x402 = (key: string, summary: string, spec: { request?: string; response: string; refusals?: Record<string, Record<string, unknown>> }) => {
    const op = operation(docFor(key), summary, { ...spec, errors: null }, components) as { responses: Record<string, unknown> };
    for (const [status, example] of Object.entries(spec.refusals ?? {})) {
      op.responses[status] = {
        description: status === "400" ? "not an x402 request: invalid_payload" : "an unexpected failure",
        content: { "application/json": { schema: ref(spec.response), example } },
      };
    }
    op.responses["429"] = {
      description: "RATE_LIMITED",
      headers: { "Retry-After": { description: "seconds", schema: { type: "integer" } } },
      content: { "application/json": { schema: ref("X402RateLimited"), examples: { RATE_LIMITED: { value: errorExample("RATE_LIMITED") } } } },
    };
    return op;
  };
  const network = "eip155:84532";
  paths["/x402/supported"] = { get: x402("GET /x402/supported", "x402: what this facilitator settles", { response: "X402SupportedResponse" }) };
  paths["/x402/verify"] = {
    post: x402("POST /x402/verify", "x402: verify a payment", {
      request: "X402FacilitatorRequest",
      response: "X402VerifyResponse",
      refusals: {
        "400": { isValid: false, invalidReason: "invalid_payload", invalidMessage: "paymentPayload: required" },
        "500": { isValid: false, invalidReason: "unexpected_verify_error" },
      },
    }),
  };
  paths["/x402/settle"] = {
    post: x402("POST /x402/settle", "x402: settle a payment, fee split included", {
      request: "X402FacilitatorRequest",
      response: "X402SettleResponse",
      refusals: {
        "400": { success: false, errorReason: "invalid_payload", errorMessage: "paymentPayload: required", transaction: "", network },
        "500": { success: false, errorReason: "unexpected_settle_error", transaction: "", network },
      },
    }),
  };

  for (const r of routes) {
    paths[r.path] = {
      post: operation(
        docFor(`POST ${r.path}`),
        r.summary,
        {
          request: nameOf(r.schema, r.path),
          requestRequired: r.path !== "/v1/allowances/revoke/prepare",
          response: nameOf(r.response, r.path),
          errors: r.errors,
        },
        components,
      ),
    };
  }

  const webhooks: Record<string, unknown> = {};
  for (const [type, event] of Object.entries(WEBHOOK_EVENTS)) {
    const schema = nameOf(event.schema, type);
    webhooks[type] = {
      post: {
        tags: ["Webhooks"],
        summary: event.summary,
        description: `${event.description} Sent as POST JSON with svc-event-id and svc-event-type headers; answer 2xx within 10 s, anything else is retried after 1 m, 5 m, 30 m, 2 h, 6 h and 12 h, then dropped. Order is not guaranteed and duplicates happen.`,
        operationId: `on${type.split(".").map(pascal).join("")}`,
        parameters: [
          { name: "svc-event-id", in: "header", required: true, description: "the event id, stable across retries", schema: { type: "string" } },
          { name: "svc-event-type", in: "header", required: true, description: "the event type", schema: { type: "string", const: type } },
        ],
        requestBody: { required: true, content: { "application/json": { schema: ref(schema), example: sample(ref(schema), components, "") } } },
        responses: {
          "200": { description: "Any 2xx acknowledges the event." },
          "400": { description: "Any other answer, a redirect or no answer within 10 s: delivered again later." },
        },
      },
    };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Non-custodial stablecoin payment service",
      version: API_VERSION,
      description:
        "All integration endpoints are POST with a JSON body: capabilities (intents, subscription and other tokens) travel in bodies, never in URLs or headers, so there is no authentication scheme. Error bodies are { error, action?, retry_after? }; branch on error and action, not on the status. Retryable errors (action RETRY) carry Retry-After. WAIT means the transaction exists and the money may have moved: poll the same transaction and start no other. Fulfil only on verify's valid: true with your stored reference, once per reference. " +
        CAPABILITY_EXPIRY,
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [
      { url: "http://127.0.0.1:8787", description: "local: the embedded stack (npm start)" },
      {
        url: "https://{host}",
        description: "test: Base Sepolia (chain 84532); the host your operator gives you",
        variables: { host: { default: "payments-test.invalid" } },
      },
      {
        url: "https://{host}",
        description: "production: Base (chain 8453); the host your operator gives you",
        variables: { host: { default: "payments.invalid" } },
      },
    ],
    security: [],
    tags: [...TAGS, { name: "Webhooks", description: "Events POSTed to a notify_url: hints to verify, never proof of payment." }],
    paths,
    webhooks,
    components: { schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))) },
  };
}
