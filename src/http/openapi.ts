import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { API_VERSION } from "../capabilities.js";
import { TOKEN_KINDS } from "../tokens/capability.js";
import * as E from "../webhooks/events.js";
import { WEBHOOK_EVENTS } from "../webhooks/events.js";
import { OPERATIONS, TAGS, type OperationDoc } from "./operations.js";
import type { PostRoute } from "./route.js";
import * as R from "./responses.js";
import * as Q from "./schemas.js";

/** Codes every integration endpoint can answer. */
export const COMMON_ERRORS: ErrorCode[] = ["INVALID_REQUEST", "RATE_LIMITED", "INTERNAL_ERROR"];

type Schema = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Exports that are not components: each operation has its own error schema instead of ErrorBody. */
const UNNAMED = new Set(["ErrorBody"]);

/**
 * Every exported wire schema, named like its export: requests (schemas.ts), responses
 * (responses.ts) and webhook events. Where a request and a response export share a name for
 * different shapes, the request's gets the suffix `Input`.
 */
function namedSchemas(): Map<z.ZodType, string> {
  const names = new Map<z.ZodType, string>();
  const add = (module: Record<string, unknown>, rename: (name: string) => string) => {
    for (const [name, value] of Object.entries(module))
      if (value instanceof z.ZodType && !names.has(value) && !UNNAMED.has(name)) names.set(value, rename(name));
  };
  add(R, (n) => n);
  add(Q, (n) => (n in R ? `${n}Input` : n));
  add(E, (n) => n);
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

// ---------------------------------------------------------------------------------------------
// Examples: made from the schemas, with field-name hints, so they stay true when a schema changes
// (the OpenAPI test validates every example against its schema).

const SAMPLE_TIME = 1795349274;
const TOKEN_FIELDS: Record<string, string> = {
  intent: TOKEN_KINDS.intent,
  link: TOKEN_KINDS.link,
  manage_token: TOKEN_KINDS.linkManage,
  setup_token: TOKEN_KINDS.setup,
  subscription: TOKEN_KINDS.subscription,
  cancel_token: TOKEN_KINDS.cancel,
  refund_token: TOKEN_KINDS.refund,
  approve_token: TOKEN_KINDS.approve,
};
const INTEGERS: Record<string, number> = {
  period: 2_592_000,
  chain_id: 84532,
  end: 0,
  period_index: 0,
  fee_bps: 100,
  decimals: 6,
  confirmations: 2,
  paid_count: 1,
  min_period: 3600,
  lastPeriod: 0,
  retry_after: 5,
};

function sample(schema: Schema, components: Record<string, Schema>, key: string, depth = 0): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") return sample(components[schema.$ref.split("/").pop()!]!, components, key, depth + 1);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return sample(branches.find((b) => b.type !== "null") ?? branches[0]!, components, key, depth + 1);
  switch (schema.type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (!required.has(name) && !["notify_url", "intent", "period_index"].includes(name)) continue;
        out[name] = sample(property, components, name, depth + 1);
      }
      return out;
    }
    case "array":
      return [sample((schema.items ?? {}) as Schema, components, key, depth + 1)];
    case "boolean":
      return true;
    case "integer":
    case "number":
      if (key in INTEGERS) return INTEGERS[key];
      if (/_at$|^start$/.test(key)) return SAMPLE_TIME;
      return typeof schema.minimum === "number" && schema.minimum > 1 ? schema.minimum : 1;
    case "string":
      return sampleString(schema, key);
    default:
      return null;
  }
}

function sampleString(schema: Schema, key: string): string {
  const pattern = typeof schema.pattern === "string" ? schema.pattern : "";
  if (pattern.includes("{40}")) return key === "payer" ? "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" : "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
  if (pattern.includes("{64}")) return `0x${(key === "reference" ? "5d1ce0f2" : key.includes("hash") ? "b413b500" : "7a2e91c4").repeat(8)}`;
  if (pattern.includes("{32}")) return key === "id" ? `evt_${"4f0e3556".repeat(4)}` : `0x${"7e1b4c2a".repeat(4)}`;
  if (/\{2\}\)\{[01],/.test(pattern)) return `0x${"ab".repeat(65)}`; // hex bytes (a signature)
  if (pattern.startsWith("^0x[0-9a-f]*")) return "0x095ea7b3";
  if (pattern.includes("\\.[0-9]{6}")) return "12.500000";
  if (pattern.includes("[0-9]{1,6}")) return "12.50";
  if (pattern === "^(0|[1-9][0-9]*)$" || key === "amount" || key === "refund_amount") return "12500000";
  if (pattern === "^[0-9]+$") return "32";
  if (key in TOKEN_FIELDS) return `${TOKEN_FIELDS[key]}.local.eyJlbnYiOiJ0ZXN0In0.aPVYf6bKipkHqDKfhmD_1FwyJ1RgV7WBWtu7IxRklO0`;
  if (key === "notify_url") return "https://shop.example.com/hooks";
  if (key === "return_url") return "https://shop.example.com/subscribed";
  if (key.endsWith("url")) return "http://127.0.0.1:8787/checkout/";
  if (key === "symbol") return "USDC";
  return key === "description" ? "Revoke the subscription" : "string";
}

// ---------------------------------------------------------------------------------------------

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function errorExample(code: ErrorCode) {
  const rule = ERROR_CODES[code] as { action?: string; retryAfter?: number };
  return { error: code, ...(rule.action ? { action: rule.action } : {}), ...(rule.retryAfter !== undefined ? { retry_after: rule.retryAfter } : {}) };
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
    },
    required: ["error"],
    additionalProperties: false,
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  const responses: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retryable = list.some((c) => "retryAfter" in ERROR_CODES[c]);
    responses[String(status)] = {
      description: list.join(", "),
      ...(retryable ? { headers: { "Retry-After": { description: "seconds; present on every retryable error", schema: { type: "integer" } } } } : {}),
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
    if (!name) throw new Error(`${what}: its schema is not exported from schemas.ts or responses.ts`);
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
        "All integration endpoints are POST with a JSON body: capabilities (intents, subscription and other tokens) travel in bodies, never in URLs or headers, so there is no authentication scheme. Error bodies are { error, action?, retry_after? }; branch on error and action, not on the status. Retryable errors (action RETRY) carry Retry-After. WAIT means the transaction exists and the money may have moved: poll the same transaction and start no other. Fulfil only on verify's valid: true with your stored reference, once per reference.",
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
