// Measures gas per operation on the local chain and prints it next to the committed snapshot
// (snapshots/gas.json). `--update` rewrites the snapshot and the table in docs/gas.md.
import { readFileSync, writeFileSync } from "node:fs";
import { startLocalChain } from "../dev/localchain/harness.js";
import { GAS_TARGETS, measureGas } from "../test/gas/scenarios.js";

const SNAPSHOT = new URL("../snapshots/gas.json", import.meta.url);
const chain = await startLocalChain();
const figures = await measureGas(chain);
await chain.close();

const previous: Record<string, number> = (() => {
  try {
    return JSON.parse(readFileSync(SNAPSHOT, "utf8"));
  } catch {
    return {};
  }
})();
const rows = Object.entries(figures).map(([op, gas]) => {
  const was = previous[op];
  const delta = was === undefined ? "new" : gas === was ? "=" : `${gas - was > 0 ? "+" : ""}${gas - was}`;
  const target = GAS_TARGETS[op] ? `≤ ${GAS_TARGETS[op]!.toLocaleString("en")}` : "";
  return { op, gas, delta, target };
});
console.log("operation                 gas      vs snapshot  target");
for (const r of rows) console.log(`${r.op.padEnd(25)} ${String(r.gas).padStart(7)}  ${r.delta.padStart(11)}  ${r.target}`);
if (process.argv.includes("--update")) {
  writeFileSync(SNAPSHOT, JSON.stringify(figures, null, 2) + "\n");
  const doc = new URL("../docs/gas.md", import.meta.url);
  const text = readFileSync(doc, "utf8");
  const table = ["| Operation | Gas | Target |", "|---|---:|---|", ...rows.map((r) => `| ${r.op} | ${r.gas.toLocaleString("en")} | ${r.target} |`)].join("\n");
  writeFileSync(doc, text.replace(/<!-- gas:begin -->[\s\S]*<!-- gas:end -->/, `<!-- gas:begin -->\n${table}\n<!-- gas:end -->`));
  console.log("snapshots/gas.json and docs/gas.md updated");
}
