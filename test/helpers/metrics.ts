import supertest from "supertest";
import type { Service } from "../../src/service.js";

/** `rpc_requests_total{method}` from the ops port's /metrics, by method. */
export async function rpcRequestsOf(s: Service): Promise<Record<string, number>> {
  const text = (await supertest(s.opsApp).get("/metrics")).text;
  const counts: Record<string, number> = {};
  for (const [, method, n] of text.matchAll(/^rpc_requests_total\{method="([^"]+)"\} (\d+)$/gm)) counts[method!] = Number(n);
  return counts;
}

/** `rpc_notifications_total{subscription}` from the ops port's /metrics, by subscription. */
export async function rpcNotificationsOf(s: Service): Promise<Record<string, number>> {
  const text = (await supertest(s.opsApp).get("/metrics")).text;
  const counts: Record<string, number> = {};
  for (const [, kind, n] of text.matchAll(/^rpc_notifications_total\{subscription="([^"]+)"\} (\d+)$/gm)) counts[kind!] = Number(n);
  return counts;
}
