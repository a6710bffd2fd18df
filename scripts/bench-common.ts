import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { decodeErrorResult, type Hex } from "viem";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import { createLogger } from "../src/logger.js";

/** Listens with `app` on a free loopback port. */
export function serve(app: Express): Promise<{ url: string; server: Server }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }));
  });
}

export const postJson = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));
export const ratio = (a: number, b: number) => (a / b).toFixed(2);
export const byMethod = (calls: Map<string, number>) => [...calls].map(([m, n]) => `${m} ${n}`).join(", ");
export const seconds = (ms: number) => (ms / 1000).toFixed(2);
export const countOf = (counts: Map<string, number>) => [...counts].map(([s, n]) => `${s} ${n}`).join(", ") || "none";
export const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
export const quiet = { logger: createLogger("silent") };
/** Limits a bench's load would otherwise hit (it measures the service, not its rate limits). */
export const unlimited = {
  RPC_TIMEOUT_MS: "30000",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  RECOVER_LIMIT_PER_MINUTE: "1000000",
  RECOVER_INTENT_LIMIT_PER_MINUTE: "1000000",
  WEBHOOK_WATCH_CAP_PER_CALLER: "100000000",
  WEBHOOK_WATCH_CAP_TOTAL: "100000000",
};
/** What a remote node adds to every JSON-RPC round trip in the charges' benches. */
export const RPC_LATENCY_MS = 50;

/**
 * Why `chargeBatch` skipped an item, from its `ChargeSkipped` reason: the error's name (with its
 * arguments when `withArgs`), "out of gas (empty revert)" for no data, the raw data when no known
 * error decodes it.
 */
export function chargeSkippedReason(reason: Hex, withArgs = false): string {
  if (reason === "0x") return "out of gas (empty revert)";
  try {
    const { errorName, args } = decodeErrorResult({ abi: recurringChargesAbi, data: reason });
    return withArgs ? `${errorName}(${(args ?? []).map(String).join(", ")})` : errorName;
  } catch {
    return reason;
  }
}
