import express, { type Express } from "express";
import type { Metrics } from "./metrics.js";

/**
 * The operational app: /metrics (Prometheus) and /ready. Served on its own port, bound to
 * 127.0.0.1 only; not part of the interface.
 */
export function createOpsApp(metrics: Metrics, ready: () => Promise<{ ready: boolean; checks: Record<string, boolean> }>): Express {
  const app = express();
  app.disable("x-powered-by");
  app.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });
  app.get("/ready", async (_req, res) => {
    const state = await ready();
    res.status(state.ready ? 200 : 503).json(state);
  });
  return app;
}
