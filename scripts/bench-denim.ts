// `npm run bench -- --denim`: `npm start`'s chain (dev/localchain/base-node.ts as npm start runs it:
// no latency, a block every 200 ms, Base after Denim): how many blocks it mines in 5 s with no
// transaction (counted by the blocks' own `timestampMs` and by the wall clock), how many of them
// share a `timestamp`, and how soon it serves a transaction's receipt after its broadcast (p50, p95).
// BENCH_DENIM_TRANSFERS (24) transfers. `--write` puts the table into docs/benchmarks.md (between
// the bench-denim markers).
import { readFileSync, writeFileSync } from "node:fs";
import { startBaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { LATENCY_HEADER, latencyRow, measureReceiptLatency } from "./lib/receipt-latency.js";

const COUNT = Number(process.env.BENCH_DENIM_TRANSFERS ?? 24);
const IDLE_MS = 5_000;

console.log("starting the local chain…");
const chain = await startLocalChain({ fork: null, sameSecondBlocks: true });
const node = await startBaseNode(chain, { latencyMs: 0 });

console.log(`${IDLE_MS / 1000} s with no transaction…`);
const first = await chain.publicClient.getBlockNumber();
const wallStart = Date.now();
await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
const wallMs = Date.now() - wallStart;
const last = await chain.publicClient.getBlockNumber();
const blocks: { timestamp: bigint; timestampMs: number }[] = [];
for (let n = first + 1n; n <= last; n++) {
  const block = (await chain.provider.request({ method: "eth_getBlockByNumber", params: [`0x${n.toString(16)}`, false] })) as {
    timestamp: `0x${string}`;
    timestampMs: `0x${string}`;
  };
  blocks.push({ timestamp: BigInt(block.timestamp), timestampMs: Number(BigInt(block.timestampMs)) });
}
const windowStart = blocks[0]!.timestampMs;
const inWindow = blocks.filter((b) => b.timestampMs < windowStart + IDLE_MS).length;
const perSecond = new Map<bigint, number>();
for (const b of blocks) perSecond.set(b.timestamp, (perSecond.get(b.timestamp) ?? 0) + 1);
const sharing = Math.max(...perSecond.values());

console.log(`${COUNT} transfers…`);
const latency = await measureReceiptLatency(chain, node.url, {
  sender: chain.accounts[LOCAL_ROLES.firstUser + 5]!,
  to: chain.accounts[LOCAL_ROLES.firstUser + 1]!.address,
  count: COUNT,
  blockMs: DENIM_BLOCK_MS,
});
await node.close();
await chain.close();

const table = [
  `Idle: ${inWindow} blocks whose \`timestampMs\` falls in ${IDLE_MS / 1000} s (${blocks.length} mined in ${(wallMs / 1000).toFixed(1)} s of wall time); at most ${sharing} share one \`timestamp\`.`,
  "",
  LATENCY_HEADER,
  latencyRow(`npm start's chain: a block every ${DENIM_BLOCK_MS} ms (Base after Denim)`, latency, DENIM_BLOCK_MS),
].join("\n");
console.log("");
console.log(table);
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(
    doc,
    readFileSync(doc, "utf8").replace(
      /<!-- bench-denim:begin -->[\s\S]*<!-- bench-denim:end -->/,
      `<!-- bench-denim:begin -->\n${table}\n<!-- bench-denim:end -->`,
    ),
  );
  console.log("docs/benchmarks.md updated");
}
