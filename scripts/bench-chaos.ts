// `npm run bench -- --chaos` (and BENCH_ONLY=chaos, and every full run): the chaos property test
// (test/api/chaos-property.test.ts) run longer, BENCH_CHAOS_RUNS seeds (60): payments, a deposit, an
// x402 `exact` payment, a refund, a hold captured and voided and a renewal through three nodes,
// one a chaos node, each answer checked
// against the honest run's. Prints which of the chaos catalogue's lies were told, and how often, and
// settlement p95 as a ratio to the honest run's.
import { spawnSync } from "node:child_process";

export function benchChaos(): string {
  const runs = process.env.BENCH_CHAOS_RUNS ?? "60";
  console.log(`chaos: ${runs} seeds through three nodes, one chaotic…`);
  const run = spawnSync("npx", ["hardhat", "test", "test/api/chaos-property.test.ts"], {
    env: { ...process.env, CHAOS_RUNS: runs, CHAOS_REPORT: "1" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const report = run.stdout
    .split("\n")
    .filter((line) => /^chaos catalogue|^settlement p95|passing|failing/.test(line.trim()))
    .map((line) => line.trim());
  if (run.status !== 0) throw new Error(`the chaos property failed:\n${run.stdout}`);
  return [`Chaos (${runs} seeds, three nodes, one chaotic)`, ...report].join("\n");
}
