import { assert } from "chai";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { numberToHex, pad, type Hex } from "viem";
import { WebSocketServer, type WebSocket } from "ws";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import { sentSettlement, transferPayment } from "../helpers/deposits.js";
import { headsRead } from "../helpers/read-first.js";
import { useService } from "../helpers/service.js";
import { until } from "../helpers/until.js";

/** How far the pushed head lies: far past what the follower may take (LAG_BLOCKS). */
const LIE_BLOCKS = 5_000n;

/**
 * A node's WebSocket (RPC_WS_URL) on its own loopback address that answers subscriptions and pushes
 * only the heads the test gives it: a node whose push is stale, or runs ahead of the chain.
 */
async function lyingFeed(): Promise<{ url: string; push(number: bigint): void; close(): Promise<void> }> {
  const http = createServer();
  await new Promise<void>((resolve, reject) => http.once("error", reject).listen(0, "127.0.0.9", resolve));
  const server = new WebSocketServer({ server: http });
  const heads = new Map<WebSocket, string>();
  let next = 1;
  server.on("connection", (socket) => {
    socket.on("message", (data) => {
      const request = JSON.parse(data.toString()) as { id: number; method: string; params?: unknown[] };
      let result: unknown = true;
      if (request.method === "eth_subscribe") {
        result = numberToHex(next++);
        if (request.params?.[0] === "newHeads") heads.set(socket, result as string);
      } else if (request.method === "net_version") result = "84532";
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }));
    });
    socket.on("close", () => heads.delete(socket));
  });
  return {
    url: `ws://127.0.0.9:${(http.address() as AddressInfo).port}`,
    push(number) {
      const head = { number: numberToHex(number), hash: pad(numberToHex(number), { size: 32 }) as Hex, timestamp: numberToHex(1n), parentHash: pad("0x0") };
      for (const [socket, subscription] of heads)
        socket.send(JSON.stringify({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription, result: head } }));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of server.clients) socket.terminate();
        server.close(() => http.close(() => resolve()));
      }),
  };
}

/**
 * Issue 59, case 4, end to end: the service follows the chain through three honest nodes while its
 * WebSocket pushes a head far behind what they reached (a stale push), or far ahead. The pushed head is
 * checked against the quorum's both ways, so the follower reads the quorum's head, and a deposit is settled.
 */
describe("a pushed head far from what a quorum of the nodes reached: the follower still moves", function () {
  this.timeout(90_000);
  const h = useService({}, { nodes: 3 });
  let feed: Awaited<ReturnType<typeof lyingFeed>> | null = null;
  afterEach(async () => {
    await feed?.close();
    feed = null;
  });

  for (const [what, lie] of [
    ["far behind (a stale push)", (head: bigint) => (head > LIE_BLOCKS ? head - LIE_BLOCKS : 1n)],
    ["far ahead", (head: bigint) => head + LIE_BLOCKS],
  ] as const) {
    it(`every pushed head ${what}: the rounds read the quorum's head, and a plain transfer to a payment address is settled`, async () => {
      feed = await lyingFeed();
      const s: Service = await h.another({ RPC_WS_URL: feed.url });
      await headsRead(s);
      await s.follower.connect();
      const pushAndRound = async () => {
        const lied = lie(await h.chain.publicClient.getBlockNumber());
        feed!.push(lied);
        await until(() => s.follower.pushedHead === lied, `the lying head ${lied} pushed`);
        await s.follower.round();
      };
      await pushAndRound(); // the cursors
      const { pay } = await transferPayment(h, s, h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address);
      await pushAndRound();
      h.clock.advance(3);
      await pushAndRound(); // the round that reads the transfer's block sends the settlement
      const { receipt } = await sentSettlement(h, s, pay.deposit_address, `the settlement sent while every pushed head was ${what}`);
      assert.equal(receipt.status, "success");
    });
  }
});
