import { webSocket, type Hex, type RpcLog } from "viem";
import type { OnRpcRequest } from "./client.js";
import type { Head, HeadFeed } from "./follower.js";

/**
 * The follower's feed over a node's WebSocket (`RPC_WS_URL`): `eth_subscribe` `newHeads` (each new
 * header, so the head costs no request) and `logs` over the follower's filter (a log of ours starts a
 * round at once). Two requests when subscribing (told to `onRequest`); what the node pushes is no
 * request. viem reconnects and subscribes again when the socket drops.
 */
export function webSocketFeed(url: string, timeoutMs: number, onRequest: OnRpcRequest): HeadFeed {
  const transport = webSocket(url, { keepAlive: true, reconnect: true, retryCount: 0, timeout: timeoutMs })({});
  const subscriptions: Array<{ unsubscribe(): Promise<unknown> }> = [];
  let opened = false;
  return {
    async subscribe(filter, onHead, onLog) {
      opened = true;
      onRequest("eth_subscribe");
      subscriptions.push(
        await transport.value!.subscribe({
          params: ["newHeads"],
          onData: (data) => {
            const h = data.result as { number: Hex; hash: Hex; timestamp: Hex } | undefined;
            if (h) onHead({ number: BigInt(h.number), hash: h.hash, timestamp: BigInt(h.timestamp) } satisfies Head);
          },
        }),
      );
      onRequest("eth_subscribe");
      subscriptions.push(
        await transport.value!.subscribe({
          params: ["logs", { address: filter.address, topics: [filter.topics] }],
          onData: (data) => {
            if (data.result) onLog(data.result as RpcLog);
          },
        }),
      );
    },
    async close() {
      if (!opened) return;
      opened = false;
      await Promise.all(subscriptions.splice(0).map((s) => s.unsubscribe().catch(() => {})));
      const client = await transport.value!.getRpcClient();
      client.close();
    },
  };
}
