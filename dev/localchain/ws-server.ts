import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import { WebSocket, WebSocketServer } from "ws";
import { matches, type FlashblockBuilder, type LogFilter } from "./flashblocks.js";
import { handle, jsonRpcText, type JsonRpcRequest, type RequestProvider } from "./rpc-server.js";

const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * The WebSocket endpoint on the node's HTTP port (ws://host:port, any path): every JSON-RPC call the
 * HTTP endpoint answers, and `eth_subscribe` as a Flashblocks-aware Base node serves it:
 * - `newFlashblocks`: the block being built after each Flashblock (full transactions; the number it
 *   will be sealed as);
 * - `newFlashblockTransactions`: each preconfirmed transaction's hash (with `true`: the transaction
 *   and its logs), one per message;
 * - `pendingLogs` [filter]: each preconfirmed log matching the filter (address, topics), one per message;
 * - `newHeads`: each sealed block's header; `logs` [filter]: each sealed log matching the filter.
 * `eth_unsubscribe` answers true or false. Each message is sent after `latencyMs` (a node across the
 * internet), in order.
 */
export function serveWebSocket(
  server: Server,
  provider: RequestProvider,
  builder: FlashblockBuilder,
  options: { latencyMs?: number } = {},
): { close(): Promise<void> } {
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
        case "newFlashblocks":
          stop = builder.onFlashblock((f) => notify(id, f.block));
          break;
        case "newFlashblockTransactions":
          stop = builder.onFlashblock((f) => {
            for (const { transaction, receipt } of f.transactions) notify(id, argument === true ? { ...transaction, logs: receipt.logs } : transaction.hash);
          });
          break;
        case "pendingLogs": {
          const filter = (argument ?? {}) as LogFilter;
          stop = builder.onFlashblock((f) => {
            for (const { receipt } of f.transactions) for (const log of receipt.logs) if (matches(log, filter)) notify(id, log);
          });
          break;
        }
        case "logs": {
          // Sealed logs, each sealed block's in order (the standard subscription).
          const filter = (argument ?? {}) as LogFilter;
          stop = builder.onSeal((block) => {
            void (
              provider.request({ method: "eth_getLogs", params: [{ address: filter.address, topics: filter.topics, blockHash: block.hash }] }) as Promise<
                unknown[]
              >
            )
              .then((logs) => {
                for (const log of logs) notify(id, log);
              })
              .catch(() => {});
          });
          break;
        }
        case "newHeads":
          stop = builder.onSeal(({ transactions: _transactions, ...header }) => notify(id, header));
          break;
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
