import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestHandler } from "express";
import { maskPath, type Logger } from "../logger.js";

/** Prometheus metrics of one service instance. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests by route, method and status",
    labelNames: ["route", "method", "status"],
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration by route",
    labelNames: ["route"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  /** Stuck relayer transactions not replaced because the next bid would pass RELAYER_MAX_FEE_PER_GAS, each counted once. */
  readonly feeCeiling = new Counter({
    name: "relayer_fee_ceiling_held_total",
    help: "Stuck relayer transactions held at their bid because a replacement would pass the fee ceiling, by kind (settlement, charge)",
    labelNames: ["kind"],
    registers: [this.registry],
  });

  /** Every JSON-RPC request to a node, by method (each of a batch; WebSocket requests too, the keep-alive included; never a pushed notification). */
  readonly rpcRequests = new Counter({
    name: "rpc_requests_total",
    help: "JSON-RPC requests to the chain's node, by method (each request of a batch counts; subscription notifications are not requests)",
    labelNames: ["method"],
    registers: [this.registry],
  });

  /** Counts one JSON-RPC request of `method` (each method's child looked up once). */
  readonly countRpc = (() => {
    const children = new Map<string, { inc(): void }>();
    return (method: string) => {
      let child = children.get(method);
      if (!child) {
        child = this.rpcRequests.labels({ method });
        children.set(method, child);
      }
      child.inc();
    };
  })();

  /** Each WebSocket notification a node pushed, by subscription kind: providers bill them as they bill requests. */
  readonly rpcNotifications = new Counter({
    name: "rpc_notifications_total",
    help: "WebSocket notifications the chain's node pushed, by subscription (newHeads, logs)",
    labelNames: ["subscription"],
    registers: [this.registry],
  });

  /** Counts one pushed notification of `subscription`. */
  readonly countNotification = (() => {
    const children = new Map<string, { inc(): void }>();
    return (subscription: string) => {
      let child = children.get(subscription);
      if (!child) {
        child = this.rpcNotifications.labels({ subscription });
        children.set(subscription, child);
      }
      child.inc();
    };
  })();

  /** JSON-RPC requests per node, by its position in RPC_URLS (never its URL): a batch's elements each count. */
  readonly nodeRequests = new Counter({
    name: "rpc_node_requests_total",
    help: "JSON-RPC requests sent to each node, by its position in RPC_URLS (from 0)",
    labelNames: ["node"],
    registers: [this.registry],
  });
  readonly nodeErrors = new Counter({
    name: "rpc_node_errors_total",
    help: "JSON-RPC requests a node failed (unreachable, timed out, overloaded, garbled), by its position in RPC_URLS",
    labelNames: ["node"],
    registers: [this.registry],
  });
  /** A node whose final answer to a verdict differed from the majority's, counted each time it is set aside for it. */
  readonly disagreements = new Counter({
    name: "rpc_disagreements_total",
    help: "Times a node's answer to a verdict differed from the majority of the nodes, by its position in RPC_URLS",
    labelNames: ["node"],
    registers: [this.registry],
  });

  /** What the relayer paid for its mined calls (L2 gas at the price paid, plus the L1 data fee where the receipt names it), by operation. */
  readonly gasSpent = new Counter({
    name: "relayer_gas_spent_wei_total",
    help: "Wei the relayer paid for its mined transactions (L2 gas and L1 data fee), by operation",
    labelNames: ["operation"],
    registers: [this.registry],
  });
  /** The service's fees in its mined calls, by operation: read against gasSpent, what the relayer's work earns. */
  readonly feesEarned = new Counter({
    name: "relayer_fees_earned_units_total",
    help: "Token micro-units of fee the relayer's mined transactions took for the fee collector, by operation",
    labelNames: ["operation"],
    registers: [this.registry],
  });

  /** The relayer's mined work counted per operation: the ledger the followers of its transactions report to. */
  readonly relayerLedger = {
    spent: (operation: string, wei: bigint) => this.gasSpent.inc({ operation }, Number(wei)),
    earned: (operation: string, units: bigint) => this.feesEarned.inc({ operation }, Number(units)),
  };

  constructor(defaults = false) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }
}

/** Counts every request and logs one line per request: method, path (never a body), status, duration. */
export function observe(metrics: Metrics, logger: Logger): RequestHandler {
  // prom-client hashes a label set on every call: each route, method and status's children are
  // looked up once and kept (a handful: the routes are ours, the statuses few).
  const counters = new Map<string, { inc(): void }>();
  const timers = new Map<string, { observe(seconds: number): void }>();
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const routeName = (req.route?.path as string | undefined) ?? "unmatched";
      const status = String(res.statusCode);
      const key = `${routeName} ${req.method} ${status}`;
      let counter = counters.get(key);
      if (!counter) {
        counter = metrics.requests.labels({ route: routeName, method: req.method, status });
        counters.set(key, counter);
      }
      counter.inc();
      let timer = timers.get(routeName);
      if (!timer) {
        timer = metrics.duration.labels({ route: routeName });
        timers.set(routeName, timer);
      }
      timer.observe(seconds);
      if (logger.isLevelEnabled("info"))
        logger.info({ method: req.method, path: maskPath(req.baseUrl + req.path), status: res.statusCode, ms: Math.round(seconds * 1000) }, "request");
    });
    next();
  };
}
