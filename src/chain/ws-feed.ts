import { webSocket, type Hex, type RpcLog } from "viem";
import type { OnRpcRequest } from "./client.js";
import type { Head, HeadFeed, LogFilter } from "./follower.js";

/** The socket's keep-alive: one `net_version` this often (a request the node bills, so counted). */
export const KEEP_ALIVE_MS = 30_000;
/** After the socket drops, it is opened again (and every subscription made again) this long after. */
const RECONNECT_AFTER_MS = 1_000;

/** What the feed tells the operator: each request it sends, and each notification the node pushes. */
export interface FeedCounters {
  onRequest: OnRpcRequest;
  /** One pushed message of a subscription (`newHeads`, `logs`): billed per notification by providers. */
  onNotification: (subscription: "newHeads" | "logs") => void;
}

type Subscription = { unsubscribe(): Promise<unknown> };

/**
 * The follower's feed over a node's WebSocket (`RPC_WS_URL`): `eth_subscribe` `newHeads` (each new
 * header, so the head costs no request) and `logs` over the follower's filters (a log of ours starts
 * a round at once). Every message it sends is a request counted in `onRequest` (each subscribe and
 * unsubscribe, the keep-alive's `net_version`, the subscriptions made again after a reconnect); each
 * notification the node pushes is counted in `onNotification`. The socket is opened again here, not
 * inside viem, so that nothing it sends goes uncounted.
 */
export function webSocketFeed(url: string, timeoutMs: number, counters: FeedCounters, keepAliveMs = KEEP_ALIVE_MS): HeadFeed {
  let transport = open();
  let heads: Subscription | null = null;
  let logs: Subscription[] = [];
  let filters: LogFilter[] = [];
  let onHead: (head: Head) => void = () => {};
  let onLog: (log: RpcLog) => void = () => {};
  let opened = false;
  let keepAlive: NodeJS.Timeout | null = null;
  let reconnecting: NodeJS.Timeout | null = null;
  /** Which socket the subscriptions belong to: an old socket's closing is no drop of the new one. */
  let generation = 0;

  function open() {
    return webSocket(url, { keepAlive: false, reconnect: false, retryCount: 0, timeout: timeoutMs })({});
  }
  const dropped = () => {
    if (!opened || reconnecting) return;
    reconnecting = setTimeout(() => {
      reconnecting = null;
      void reopen();
    }, RECONNECT_AFTER_MS).unref();
  };
  async function reopen(): Promise<void> {
    if (!opened) return;
    heads = null;
    logs = [];
    generation++;
    await transport
      .value!.getRpcClient()
      .then((c) => c.close())
      .catch(() => {});
    transport = open();
    await subscribeAll().catch(dropped);
  }
  async function subscribeOne(params: unknown[], kind: "newHeads" | "logs", onData: (result: unknown) => void): Promise<Subscription> {
    counters.onRequest("eth_subscribe");
    const of = generation;
    return transport.value!.subscribe({
      params: params as never,
      onData: (data: { result?: unknown }) => {
        counters.onNotification(kind);
        if (data.result) onData(data.result);
      },
      onError: () => {
        if (of === generation) dropped();
      },
    });
  }
  async function subscribeLogs(): Promise<void> {
    for (const filter of filters)
      logs.push(await subscribeOne(["logs", { address: filter.address, topics: filter.topics }], "logs", (r) => onLog(r as RpcLog)));
  }
  async function subscribeAll(): Promise<void> {
    heads = await subscribeOne(["newHeads"], "newHeads", (r) => {
      const h = r as { number: Hex; hash: Hex; timestamp: Hex };
      onHead({ number: BigInt(h.number), hash: h.hash, timestamp: BigInt(h.timestamp) });
    });
    await subscribeLogs();
  }
  async function unsubscribe(subscriptions: Subscription[]): Promise<void> {
    await Promise.all(
      subscriptions.map((s) => {
        counters.onRequest("eth_unsubscribe");
        return s.unsubscribe().catch(() => {});
      }),
    );
  }

  return {
    async subscribe(initial, head, log) {
      opened = true;
      filters = initial;
      onHead = head;
      onLog = log;
      keepAlive = setInterval(() => {
        counters.onRequest("net_version");
        void transport
          .value!.getRpcClient()
          .then((c) => c.requestAsync({ body: { method: "net_version" }, timeout: timeoutMs }))
          .catch(dropped);
      }, keepAliveMs).unref();
      try {
        await subscribeAll();
      } catch (error) {
        dropped(); // opened again shortly; meanwhile the follower reads the head itself
        throw error;
      }
    },
    async resubscribe(next) {
      filters = next;
      if (!opened || reconnecting) return;
      const old = logs;
      logs = [];
      await unsubscribe(old);
      await subscribeLogs();
    },
    async close() {
      if (!opened) return;
      opened = false;
      if (keepAlive) clearInterval(keepAlive);
      if (reconnecting) clearTimeout(reconnecting);
      await unsubscribe([...(heads ? [heads] : []), ...logs.splice(0)]);
      const client = await transport.value!.getRpcClient().catch(() => null);
      client?.close();
    },
  };
}
