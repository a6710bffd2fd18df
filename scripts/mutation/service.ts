// One service module through StrykerJS: its files mutated, its test files run per mutant by the
// mocha-process runner (scripts/mutation/mocha-process-runner.ts).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { PartialStrykerOptions } from "@stryker-mutator/api/core";
import { Stryker } from "@stryker-mutator/core";
import { filesUnder } from "./files.js";
import type { MochaProcessOptions } from "./mocha-process-runner.js";
import type { ServiceModule } from "./modules.js";
import { type ModuleScore, percentKilled } from "./score.js";

const SPEC_DIGESTS = "test/mutation/service-specs.json";

/**
 * A digest of the module's test files and the tests' helpers. Stryker's incremental mode tells
 * changed tests by their position, which this runner does not report: a change to either re-runs the
 * module whole.
 */
function specDigest(module: ServiceModule): string {
  const hash = createHash("sha256");
  for (const file of [...module.spec, ...filesUnder("test/helpers")]) hash.update(file).update(readFileSync(file));
  return hash.digest("hex");
}

export async function mutateService(module: ServiceModule, run: { concurrency: number; full: boolean }): Promise<ModuleScore> {
  const digests: Record<string, string> = existsSync(SPEC_DIGESTS) ? JSON.parse(readFileSync(SPEC_DIGESTS, "utf8")) : {};
  const digest = specDigest(module);
  const force = run.full || digests[module.name] !== digest;
  console.log(`\n== ${module.name}: ${module.what}\n   mutating ${module.mutate.join(", ")}\n   against ${module.spec.join(", ")}`);
  const options: PartialStrykerOptions & { mochaProcess: MochaProcessOptions } = {
    testRunner: "mocha-process",
    plugins: ["./scripts/mutation/mocha-process-runner.ts"],
    testRunnerNodeArgs: ["--import", "tsx"],
    mochaProcess: { spec: module.spec, ...(module.testTimeoutMs ? { timeoutMs: module.testTimeoutMs } : {}) },
    mutate: module.mutate,
    coverageAnalysis: "off",
    concurrency: run.concurrency,
    // Stryker rewrites tsconfig.json through TypeScript's compiler API, which TypeScript 7 (the native
    // compiler this project type-checks with) does not have; the tests load TypeScript through tsx, so
    // no tsconfig is needed in the sandbox. A file that does not exist turns the rewrite off.
    tsconfigFile: "tsconfig.mutation-none.json",
    reporters: ["progress-append-only", "html", "json"],
    htmlReporter: { fileName: `reports/mutation/${module.name}/index.html` },
    jsonReporter: { fileName: `reports/mutation/${module.name}/mutation.json` },
    incremental: true,
    incrementalFile: `test/mutation/${module.name}.incremental.json`,
    force,
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    ignorePatterns: [
      "cache/edr-fork-cache",
      ".coverage",
      ".data",
      "coverage",
      "test-results",
      "reports",
      ".mutation-tmp",
      "client/node_modules",
      "tools/*/node_modules",
    ],
    thresholds: { high: 90, low: 85, break: null },
    timeoutFactor: 2,
    timeoutMS: 30_000,
  };
  const results = await new Stryker(options).runMutationTest();
  digests[module.name] = digest;
  writeFileSync(SPEC_DIGESTS, `${JSON.stringify(digests, null, 2)}\n`);
  const killed = results.filter((r) => r.status === "Killed" || r.status === "Timeout");
  const survived = results
    .filter((r) => r.status === "Survived" || r.status === "NoCoverage")
    .map((r) => ({
      place: `${relative(process.cwd(), r.fileName)}:${r.location.start.line}:${r.location.start.column + 1}`,
      mutator: r.mutatorName,
      replacement: r.replacement ?? "",
    }));
  const equivalent = results.filter((r) => r.status === "Ignored").length;
  const stillborn = results.filter((r) => r.status === "CompileError" || r.status === "RuntimeError").length;
  const score = percentKilled(killed.length, survived.length);
  console.log(`\n${module.name}: ${score.toFixed(1)}% (${killed.length} killed, ${survived.length} survived, ${equivalent} equivalent)`);
  const byTest = new Map<string, number>();
  for (const r of killed) for (const t of r.killedBy ?? []) byTest.set(t, (byTest.get(t) ?? 0) + 1);
  for (const [test, count] of [...byTest].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  killed ${String(count).padStart(3)} × by "${test}"`);
  for (const s of survived) console.log(`  survived ${s.place} ${s.mutator} → ${JSON.stringify(s.replacement)}`);
  return { name: module.name, score, killed: killed.length, survived, equivalent, stillborn };
}
