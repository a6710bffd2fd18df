// `npm run bench -- --flashblocks`: how soon `npm start`'s chain serves a transaction's receipt
// after its broadcast (dev/localchain/base-node.ts as npm start runs it: no latency, a block every
// 2 s, a Flashblock every 200 ms), with Flashblocks on and then off in the same run, p50 and p95 as
// a ratio to the block time, and how many receipts came while the latest sealed block was still
// below the block they name. BENCH_FLASHBLOCK_TRANSFERS (24) transfers each way.
// `--write` puts the table into docs/benchmarks.md (between the bench-flashblocks markers).
import { readFileSync, writeFileSync } from "node:fs";
import { BASE_BLOCK_MS, BASE_FLASHBLOCK_MS, startBaseNode } from "../dev/localchain/base-node.js";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { LATENCY_HEADER, latencyRow, measureReceiptLatency, quantile } from "./lib/receipt-latency.js";

const COUNT = Number(process.env.BENCH_FLASHBLOCK_TRANSFERS ?? 24);

console.log("starting the local chain…");
const chain = await startLocalChain({ fork: null });
const node = await startBaseNode(chain, { latencyMs: 0 });
const options = {
  sender: chain.accounts[LOCAL_ROLES.firstUser + 5]!,
  to: chain.accounts[LOCAL_ROLES.firstUser + 1]!.address,
  count: COUNT,
  blockMs: BASE_BLOCK_MS,
};
console.log(`${COUNT} transfers with Flashblocks on…`);
const on = await measureReceiptLatency(chain, node.url, options);
await node.setPreconfirmations(false);
console.log(`${COUNT} transfers with Flashblocks off…`);
const off = await measureReceiptLatency(chain, node.url, options);
await node.close();
await chain.close();

const setting = `npm start's chain: a block every ${BASE_BLOCK_MS / 1000} s`;
const table = [
  LATENCY_HEADER,
  latencyRow(`${setting}, a Flashblock every ${BASE_FLASHBLOCK_MS} ms`, on, BASE_BLOCK_MS),
  latencyRow(`${setting}, Flashblocks off (FLASHBLOCK_MS=0)`, off, BASE_BLOCK_MS),
  "",
  `Target (issue 36): p50 within 600 ms with the block still to be sealed: ${quantile(on.samples, 0.5).toFixed(0)} ms, ${on.ahead} of ${COUNT} ahead of their block.`,
].join("\n");
console.log("");
console.log(table);
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(
    doc,
    readFileSync(doc, "utf8").replace(
      /<!-- bench-flashblocks:begin -->[\s\S]*<!-- bench-flashblocks:end -->/,
      `<!-- bench-flashblocks:begin -->\n${table}\n<!-- bench-flashblocks:end -->`,
    ),
  );
  console.log("docs/benchmarks.md updated");
}
