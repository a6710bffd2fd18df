import express, { type Express, type RequestHandler } from "express";
import { DomainError } from "../errors.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import type { Logger } from "../logger.js";
import { errorHandler } from "./errors.js";
import { observe, type Metrics } from "./metrics.js";
import { cors, jsonBody, rateLimit } from "./middleware.js";
import { issueDetail } from "./error-detail.js";
import { checkAnswer, handlerFor, type PostRoute, type ResponseCheck } from "./route.js";
import { CapabilitiesResponse, EmptyRequest, HealthResponse, WebhookKeysResponse } from "../wire/index.js";
import type { X402Endpoint } from "./x402.js";

export interface AppDeps {
  routes: PostRoute[];
  /** The body of /v1/capabilities. */
  capabilities: () => CapabilitiesResponse;
  /** The body of GET /v1/webhooks/keys: the public keys deliveries are signed with. */
  webhookKeys?: () => WebhookKeysResponse;
  limiter: RateLimiter;
  logger: Logger;
  metrics: Metrics;
  trustProxy: number;
  /** The x402 facilitator's endpoints (x402.ts), at /x402. */
  x402?: X402Endpoint[];
  /** Extra mounts (the checkout's static files). */
  mounts?: Array<{ path: string; handler: RequestHandler }>;
  /** Checks every answer against its wire schema and reports a mismatch (tests). */
  checkResponses?: ResponseCheck;
}

/** The public HTTP API: thin routes over the domain, one error mapping, open CORS. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  // No answer of the API is cacheable by validation (a create is new every time; the rest are POSTs
  // or change with the chain): no ETag to hash for each answer. The checkout's files keep theirs.
  app.set("etag", false);
  app.set("trust proxy", deps.trustProxy);
  // Every answer is JSON (or the checkout's own files): no browser may sniff it into anything else.
  app.use((_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    next();
  });
  app.use(observe(deps.metrics, deps.logger));
  app.use(cors);

  const check = deps.checkResponses;
  const health: HealthResponse = { ok: true };
  app.get("/health", (_req, res) => {
    if (check) checkAnswer(HealthResponse, health, "GET /health", check);
    res.json(health);
  });

  const capabilities = () => {
    const body = deps.capabilities();
    if (check) checkAnswer(CapabilitiesResponse, body, "/v1/capabilities", check);
    return body;
  };
  const capabilitiesLimit = rateLimit(deps.limiter, "/v1/capabilities");
  app.get("/v1/capabilities", capabilitiesLimit, (_req, res) => {
    res.json(capabilities());
  });
  app.post("/v1/capabilities", capabilitiesLimit, ...jsonBody, (req, res) => {
    const parsed = EmptyRequest.safeParse(req.body ?? {});
    if (!parsed.success) throw new DomainError("INVALID_REQUEST", { detail: issueDetail(parsed.error.issues[0]) });
    res.json(capabilities());
  });

  const webhookKeys = deps.webhookKeys;
  if (webhookKeys) {
    app.get("/v1/webhooks/keys", rateLimit(deps.limiter, "/v1/webhooks/keys"), (_req, res) => {
      const body = webhookKeys();
      if (check) checkAnswer(WebhookKeysResponse, body, "GET /v1/webhooks/keys", check);
      // Public keys: a receiver may cache them, but not past a rotation's overlap.
      res.setHeader("Cache-Control", "public, max-age=300");
      res.json(body);
    });
  }

  for (const spec of deps.routes) {
    app.post(spec.path, rateLimit(deps.limiter, spec.path), ...(spec.limits ?? []), ...jsonBody, handlerFor(spec, check));
  }
  for (const endpoint of deps.x402 ?? []) app[endpoint.method](endpoint.path, ...endpoint.handlers);
  for (const mount of deps.mounts ?? []) app.use(mount.path, mount.handler);

  const known = new Set(["/health", "/v1/capabilities", "/v1/webhooks/keys", ...deps.routes.map((r) => r.path), ...(deps.x402 ?? []).map((e) => e.path)]);
  app.get("/", (_req, res) => {
    res.redirect(302, "/checkout/");
  });
  app.use((req, _res, next) => {
    next(new DomainError(known.has(req.path) ? "METHOD_NOT_ALLOWED" : "NOT_FOUND"));
  });
  app.use(errorHandler(deps.logger, check));
  return app;
}
