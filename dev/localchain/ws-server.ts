import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { WebSocket, WebSocketServer } from "ws";
import type { NodeEvents, RpcLog } from "./base-node-types.js";
import { handle, jsonRpcText, type JsonRpcRequest, type RequestProvider } from "./rpc-server.js";

const MAX_MESSAGE_BYTES = 1024 * 1024;

/** An eth_subscribe `logs` filter: address and topics, as eth_getLogs reads them. */
export interface LogFilter {
  address?: string | string[];
  topics?: (string | string[] | null)[];
}

/**
 * The WebSocket endpoint on the node's HTTP port (ws://host:port, any path): every JSON-RPC call the
 * HTTP endpoint answers, and `eth_subscribe` as a Base node serves it since Denim:
 * - `newHeads`: each mined block's header (with `timestampMs`);
 * - `logs` [filter]: each mined log matching the filter (address, topics), with `blockTimestampMs`;
 *   a reorg sends the logs it retracted again with `removed: true`.
 * `eth_unsubscribe` answers true or false. Each message is sent after `latencyMs` (a node across the
 * internet), in order.
 */
export function serveWebSocket(server: Server, provider: RequestProvider, node: NodeEvents, options: { latencyMs?: number } = {}): { close(): Promise<void> } {
  const latencyMs = options.latencyMs ?? 0;
  const wss = new WebSocketServer({ server, maxPayload: MAX_MESSAGE_BYTES });
  wss.on("connection", (socket) => {
    const subscriptions = new Map<string, () => void>();
    /** Messages go out in order, each `latencyMs` after it was produced. */
    let outbox: Promise<void> = Promise.resolve();
    const send = (body: unknown) => {
      const text = jsonRpcText(body);
      const delay = latencyMs > 0 ? new Promise((resolve) => setTimeout(resolve, latencyMs)) : null;
      outbox = outbox.then(async () => {
        if (delay) await delay;
        if (socket.readyState === WebSocket.OPEN) socket.send(text);
      });
    };
    const notify = (subscription: string, result: unknown) => send({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription, result } });

    const subscribe = (kind: unknown, argument: unknown): string => {
      const id = `0x${randomBytes(16).toString("hex")}`;
      let stop: () => void;
      switch (kind) {
        case "newHeads":
          stop = node.onBlock((header) => notify(id, header));
          break;
        case "logs": {
          const filter = (argument ?? {}) as LogFilter;
          // Each block's logs in order: a block's are sent before the next block's (one read per block at a time).
          let reading: Promise<void> = Promise.resolve();
          const offBlock = node.onBlock((header) => {
            reading = reading
              .then(async () => {
                const logs = (await provider.request({
                  method: "eth_getLogs",
                  params: [{ address: filter.address, topics: filter.topics, blockHash: header.hash }],
                })) as RpcLog[];
                for (const log of logs) notify(id, log);
              })
              .catch(() => {});
          });
          const offRetracted = node.onRetracted((logs) => {
            reading = reading.then(() => {
              for (const log of logs) if (matches(log, filter)) notify(id, log);
            });
          });
          stop = () => {
            offBlock();
            offRetracted();
          };
          break;
        }
        default:
          throw Object.assign(new Error(`unsupported subscription: ${String(kind)}`), { code: -32602 });
      }
      subscriptions.set(id, stop);
      return id;
    };

    const answer = async (request: JsonRpcRequest): Promise<object> => {
      const id = request.id ?? null;
      const params = Array.isArray(request.params) ? request.params : [];
      try {
        if (request.method === "eth_subscribe") return { jsonrpc: "2.0", id, result: subscribe(params[0], params[1]) };
        if (request.method === "eth_unsubscribe") {
          const stop = subscriptions.get(String(params[0]));
          stop?.();
          return { jsonrpc: "2.0", id, result: subscriptions.delete(String(params[0])) };
        }
      } catch (cause) {
        const error = cause as { code?: number; message?: string };
        return { jsonrpc: "2.0", id, error: { code: error.code ?? -32603, message: error.message ?? "internal error" } };
      }
      return handle(provider, request);
    };

    socket.on("message", (data) => {
      let body: JsonRpcRequest | JsonRpcRequest[];
      try {
        body = JSON.parse(Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
      } catch {
        send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
        return;
      }
      void (Array.isArray(body) ? Promise.all(body.map(answer)) : answer(body)).then(send);
    });
    socket.on("close", () => {
      for (const stop of subscriptions.values()) stop();
      subscriptions.clear();
    });
    socket.on("error", () => {});
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** Whether `log` passes an eth_subscribe `logs` filter (address and topics). */
export function matches(log: RpcLog, filter: LogFilter): boolean {
  if (filter.address !== undefined) {
    const addresses = (Array.isArray(filter.address) ? filter.address : [filter.address]).map((a) => a.toLowerCase());
    if (addresses.length > 0 && !addresses.includes(log.address.toLowerCase())) return false;
  }
  const topics = filter.topics ?? [];
  for (let i = 0; i < topics.length; i++) {
    const wanted = topics[i];
    if (wanted === null || wanted === undefined) continue;
    const options = (Array.isArray(wanted) ? wanted : [wanted]).map((t) => t.toLowerCase());
    if (options.length === 0) continue;
    const topic = log.topics[i]?.toLowerCase();
    if (topic === undefined || !options.includes(topic)) return false;
  }
  return true;
}
