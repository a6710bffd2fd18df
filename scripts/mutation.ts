// `npm run mutation [-- <name>…] [--service|--contracts] [--concurrency N] [--full]`: mutation testing
// of the code that releases money or verdicts. StrykerJS mutates the service's modules (each run
// against the test files scripts/mutation/modules.ts names for it, a fresh mocha process per
// mutant); the project's own mutator (scripts/mutation/solidity-mutants.ts) mutates the contracts,
// each mutant compiled with the npm solc and run against the contract's tests. Prints a score per
// module and contract, each surviving mutant's place and the test that killed each one; HTML and JSON
// under reports/mutation/. A later run tries only what changed: Stryker's incremental files and the
// contracts' results are kept in test/mutation/ (`--full` runs everything again).
import { cpus } from "node:os";
import { CONTRACT_MODULES, MUTATION_SCORE_FLOOR, SERVICE_MODULES } from "./mutation/modules.js";
import { mutateContract } from "./mutation/contracts.js";
import type { ModuleScore } from "./mutation/score.js";
import { mutateService } from "./mutation/service.js";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const concurrencyArg = args.indexOf("--concurrency");
const concurrency = concurrencyArg === -1 ? Math.max(1, Math.min(2, cpus().length)) : Number(args[concurrencyArg + 1]);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error("--concurrency takes a whole number ≥ 1");
  process.exit(2);
}
const names = args.filter((a, i) => !a.startsWith("--") && args[i - 1] !== "--concurrency");
const known = new Set([...SERVICE_MODULES.map((m) => m.name), ...CONTRACT_MODULES.map((m) => m.name)]);
const unknown = names.filter((n) => !known.has(n));
if (unknown.length) {
  console.error(`unknown module ${unknown.join(", ")}; known: ${[...known].join(", ")}`);
  process.exit(2);
}
const picked = (name: string) => names.length === 0 || names.includes(name);
const full = flag("--full");

const scores: ModuleScore[] = [];
if (!flag("--contracts")) {
  for (const module of SERVICE_MODULES.filter((m) => picked(m.name))) scores.push(await mutateService(module, { concurrency, full }));
}
if (!flag("--service")) {
  for (const module of CONTRACT_MODULES.filter((m) => picked(m.name))) scores.push(await mutateContract(module, { concurrency, full }));
}

console.log("\nMutation scores (killed ÷ (killed + survived); equivalent mutants left out):");
for (const s of scores) {
  const mark = s.score >= MUTATION_SCORE_FLOOR ? "ok " : "LOW";
  console.log(
    `  ${mark} ${s.name.padEnd(20)} ${s.score.toFixed(1).padStart(5)}%  killed ${s.killed}, survived ${s.survived.length}, equivalent ${s.equivalent}, not compiled ${s.stillborn}`,
  );
}
const low = scores.filter((s) => s.score < MUTATION_SCORE_FLOOR);
if (low.length) {
  console.log(`\nBelow ${MUTATION_SCORE_FLOOR}%: ${low.map((s) => s.name).join(", ")}`);
  process.exit(1);
}
