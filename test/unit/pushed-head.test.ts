import { assert } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { numberToHex, pad, type Address, type Hex, type RpcLog } from "viem";
import { ChainFollower, type ChainView } from "../../src/chain/follower.js";
import type { Head } from "../../src/chain/follower-types.js";
import { ChainNodes } from "../../src/chain/nodes.js";

const TOKEN: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const TRANSFER: Hex = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const BASE_SEPOLIA = 84532;

/** A synthetic node over HTTP on its own loopback address: its head where the test puts it, no logs. */
async function syntheticNode(host: string, chain: { head: bigint }): Promise<{ url: string; server: Server }> {
  const answer = (method: string): unknown => {
    if (method === "eth_chainId") return numberToHex(BASE_SEPOLIA);
    if (method === "eth_blockNumber") return numberToHex(chain.head);
    if (method === "eth_getBlockByNumber")
      return { number: numberToHex(chain.head), hash: pad(numberToHex(chain.head), { size: 32 }), timestamp: numberToHex(chain.head / 5n), transactions: [] };
    if (method === "eth_getLogs") return [];
    throw new Error(`unexpected ${method}`);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; method: string } | Array<{ id: number; method: string }>;
      const one = (r: { id: number; method: string }) => ({ jsonrpc: "2.0", id: r.id, result: answer(r.method) });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)));
    });
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, host, resolve));
  return { url: `http://${host}:${(server.address() as AddressInfo).port}`, server };
}

/** Issue 59, case 4: a pushed head is checked against the quorum's head both ways. */
describe("a pushed head far behind what a quorum reached is not taken", () => {
  const chain = { head: 10_000n };
  const servers: Server[] = [];
  after(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
  });

  it("a feed pushing an old head again and again: the round reads the quorum's head, and the rounds go on", async () => {
    const started = await Promise.all(["127.0.0.2", "127.0.0.3", "127.0.0.4"].map((host) => syntheticNode(host, chain)));
    servers.push(...started.map((s) => s.server));
    const nodes = new ChainNodes(
      started.map((s) => s.url),
      { chainId: BASE_SEPOLIA, timeoutMs: 1_000, quorum: 2 },
    );
    await nodes.probeHeads();
    assert.equal(nodes.quorumHead(), chain.head, "the quorum's head known, as at start");
    let push: (head: Head) => void = () => {};
    const stale: Head = { number: chain.head - 5_000n, hash: pad("0x5", { size: 32 }), timestamp: 1n };
    let pushes = 0;
    const follower = new ChainFollower({
      client: nodes.reader(),
      filter: { address: [TOKEN], topics: [TRANSFER] },
      finality: { kind: "confirmations", confirmations: 5 },
      maxRangeBlocks: 2_000n,
      overlapBlocks: 75n,
      keepLong: { address: [], blocks: 100n },
      now: Date.now,
      feed: {
        subscribe: async (_filters, onHead: (head: Head) => void, _onLog: (log: RpcLog) => void) => {
          push = onHead;
        },
        resubscribe: async () => {},
        close: async () => {},
      },
    });
    const heads: bigint[] = [];
    follower.add({ name: "heads", follow: async (view: ChainView) => void heads.push(view.head.number) });
    await follower.connect();
    for (let round = 0; round < 2; round++) {
      push(stale);
      pushes++;
      chain.head += 10n;
      await follower.round();
    }
    assert.equal(follower.pushedHead, stale.number, "the stale head was pushed, and just now");
    assert.equal(pushes, 2);
    assert.deepEqual(heads, [chain.head - 10n, chain.head], "each round at the head the nodes answer, never the pushed one");
  });
});
