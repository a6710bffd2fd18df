import { assert } from "chai";
import { createPublicClient, custom, numberToHex, pad, type Address, type Hex } from "viem";
import { baseSepolia } from "viem/chains";
import { ChainFollower, type ChainView } from "../../src/chain/follower.js";

const TOKEN: Address = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const TRANSFER: Hex = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Base's blocks in an hour (200 ms each), and the transfers of a busy chain in each (100 a second). */
const HOUR_BLOCKS = 18_000n;
const PER_BLOCK = 20;

/** A synthetic node: its head where the test puts it, and every block's {@link PER_BLOCK} transfers served by eth_getLogs. */
function syntheticNode() {
  const node = { head: 1_000n, logsServed: 0 };
  const hashOf = (n: bigint) => pad(numberToHex(n), { size: 32 });
  const request = async ({ method, params }: { method: string; params?: unknown[] }) => {
    if (method === "eth_blockNumber") return numberToHex(node.head);
    if (method === "eth_getBlockByNumber")
      return { number: numberToHex(node.head), hash: hashOf(node.head), timestamp: numberToHex(node.head / 5n), transactions: [] };
    if (method === "eth_getLogs") {
      const { fromBlock, toBlock } = params![0] as { fromBlock: Hex; toBlock: Hex };
      const logs = [];
      for (let n = BigInt(fromBlock); n <= BigInt(toBlock) && n <= node.head; n++)
        for (let i = 0; i < PER_BLOCK; i++)
          logs.push({
            address: TOKEN,
            topics: [TRANSFER, pad(numberToHex(i), { size: 32 }), pad(numberToHex(n), { size: 32 })],
            data: pad("0x1", { size: 32 }),
            blockNumber: numberToHex(n),
            blockHash: hashOf(n),
            transactionHash: hashOf(n * 1000n + BigInt(i)),
            transactionIndex: numberToHex(i),
            logIndex: numberToHex(i),
            removed: false,
          });
      node.logsServed += logs.length;
      return logs;
    }
    throw new Error(`unexpected ${method}`);
  };
  return { node, client: createPublicClient({ chain: baseSepolia, transport: custom({ request }) }) };
}

describe("the chain follower catching up", () => {
  it("after an hour of busy blocks with the node unreachable, holds one chunk's logs at a time, and hands every block's logs to its consumers", async () => {
    const { node, client } = syntheticNode();
    const maxRangeBlocks = 2_000n;
    const overlapBlocks = 75n;
    const follower = new ChainFollower({
      client: client as never,
      filter: { address: [TOKEN], topics: [TRANSFER] },
      finality: { kind: "confirmations", confirmations: 5 },
      maxRangeBlocks,
      overlapBlocks,
      keepLong: { address: [], blocks: 4_500n },
      now: () => 0,
    });
    let cursor = -1n;
    let handed = 0;
    let mostHeld = 0;
    // A consumer's failure is the follower's to report (and to survive): kept here, so an assertion
    // that fails inside the consumer fails the test.
    const failures: unknown[] = [];
    follower.add({
      name: "counter",
      follow: async (view: ChainView) => {
        try {
          mostHeld = Math.max(mostHeld, follower.logsHeld);
          const from = cursor < 0n ? view.head.number : cursor + 1n;
          const logs = view.logs(TOKEN, from, view.head.number);
          assert.isNotNull(logs, `blocks ${from}-${view.head.number} in the round's view`);
          handed += logs!.length;
          cursor = view.head.number;
        } catch (error) {
          failures.push(error);
          throw error;
        }
      },
    });
    await follower.connect(); // no feed: the follower only stands ready (rounds are called here)
    await follower.round();
    handed = 0;
    // An hour later, the node reachable again: one call runs the rounds until the follower stands at the head.
    node.head += HOUR_BLOCKS;
    await follower.round();
    assert.deepEqual(failures.map(String), [], "no failure inside the consumer");
    assert.equal(cursor, node.head);
    assert.equal(handed, Number(HOUR_BLOCKS) * PER_BLOCK, "every transfer of the hour, once");
    // One chunk and the transfers kept behind it (two overlaps), never the hour's 360,000.
    assert.isAtMost(mostHeld, Number(maxRangeBlocks + 2n * overlapBlocks) * PER_BLOCK);
  });
});
