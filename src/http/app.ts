import express, { type Express, type RequestHandler } from "express";
import { ServiceError } from "../errors.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import type { Logger } from "../logger.js";
import { errorHandler } from "./errors.js";
import { observe, type Metrics } from "./metrics.js";
import { cors, jsonBody, rateLimit } from "./middleware.js";
import { handlerFor, type PostRoute } from "./route.js";
import { EmptyRequest } from "./schemas.js";

export interface AppDeps {
  routes: PostRoute[];
  /** The body of /v1/capabilities. */
  capabilities: () => unknown;
  limiter: RateLimiter;
  logger: Logger;
  metrics: Metrics;
  trustProxy: number;
  /** Extra mounts (the checkout's static files). */
  mounts?: Array<{ path: string; handler: RequestHandler }>;
}

/** The public HTTP API: thin routes over the domain, one error mapping, open CORS. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", deps.trustProxy);
  app.use(observe(deps.metrics, deps.logger));
  app.use(cors);

  app.get("/health", (_req, res) => {
    res.json({ ok: true });
  });

  const capabilitiesLimit = rateLimit(deps.limiter, "/v1/capabilities");
  app.get("/v1/capabilities", capabilitiesLimit, (_req, res) => {
    res.json(deps.capabilities());
  });
  app.post("/v1/capabilities", capabilitiesLimit, ...jsonBody, (req, res) => {
    if (!EmptyRequest.safeParse(req.body ?? {}).success) throw new ServiceError("INVALID_REQUEST");
    res.json(deps.capabilities());
  });

  for (const spec of deps.routes) {
    app.post(spec.path, rateLimit(deps.limiter, spec.path), ...(spec.limits ?? []), ...jsonBody, handlerFor(spec));
  }
  for (const mount of deps.mounts ?? []) app.use(mount.path, mount.handler);

  const known = new Set(["/health", "/v1/capabilities", ...deps.routes.map((r) => r.path)]);
  app.get("/", (_req, res) => {
    res.redirect(302, "/checkout/");
  });
  app.use((req, _res, next) => {
    next(new ServiceError(known.has(req.path) ? "METHOD_NOT_ALLOWED" : "NOT_FOUND"));
  });
  app.use(errorHandler(deps.logger));
  return app;
}
