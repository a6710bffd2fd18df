import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The part of an EIP-1193 provider the bridge needs. */
export interface RequestProvider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>;
}

export interface JsonRpcRequest {
  jsonrpc?: string;
  id?: string | number | null;
  method?: unknown;
  params?: unknown;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * Serves an in-process provider (the Hardhat simulated chain) as JSON-RPC over HTTP, single and
 * batch requests, so the service reaches the local chain exactly as it reaches a real node;
 * `latencyMs` is added to every round trip (a node across the internet).
 */
export async function serveJsonRpc(
  provider: RequestProvider,
  host = "127.0.0.1",
  port = 0,
  options: { latencyMs?: number } = {},
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const latencyMs = options.latencyMs ?? 0;
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on("end", async () => {
      let body: JsonRpcRequest | JsonRpcRequest[];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return send(res, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      }
      // A remote node: every round trip (a single request or a whole batch) takes `latencyMs` more.
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      const answer = Array.isArray(body) ? await Promise.all(body.map((r) => handle(provider, r))) : await handle(provider, body);
      send(res, answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers one JSON-RPC request with `provider` (also the WebSocket endpoint's answer to a plain call). */
export async function handle(provider: RequestProvider, request: JsonRpcRequest): Promise<object> {
  const id = request.id ?? null;
  if (typeof request.method !== "string") return { jsonrpc: "2.0", id, error: { code: -32600, message: "invalid request" } };
  try {
    const params = (request.params ?? []) as unknown[] | object;
    const result = await provider.request({ method: request.method, params });
    return { jsonrpc: "2.0", id, result: result ?? null };
  } catch (cause) {
    const error = cause as { code?: unknown; message?: string; data?: unknown };
    return {
      jsonrpc: "2.0",
      id,
      error: {
        code: typeof error.code === "number" ? error.code : -32603,
        message: error.message ?? "internal error",
        ...(error.data !== undefined ? { data: error.data } : {}),
      },
    };
  }
}

/** JSON with bigints as 0x quantities, as JSON-RPC carries them. */
export function jsonRpcText(body: unknown): string {
  return JSON.stringify(body, (_k, v) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v));
}

function send(res: import("node:http").ServerResponse, body: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(jsonRpcText(body));
}
