// One contract through the project's Solidity mutator: every mutant of its source run against the
// contract's tests, `concurrency` sandboxes at a time. Results are kept in
// test/mutation/contracts.incremental.json under a digest of the contracts, the contract's tests, their
// helpers and the mutator, so a later run re-runs a contract only when one of them changed. Mutants judged equivalent (no test
// can tell them from the original) are listed with the reason in test/mutation/equivalent-solidity.json.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { filesUnder } from "./files.js";
import type { ContractModule } from "./modules.js";
import { type SolidityMutant, solidityMutants } from "./solidity-mutants.js";
import { dryRun, runMutant, Sandbox, type SolidityOutcome } from "./solidity-run.js";
import { type ModuleScore, percentKilled, type Survivor } from "./score.js";

const INCREMENTAL_FILE = "test/mutation/contracts.incremental.json";
const EQUIVALENT_FILE = "test/mutation/equivalent-solidity.json";

type Stored = Record<string, { digest: string; outcomes: Record<string, SolidityOutcome> }>;

function readJson<T>(file: string, empty: T): T {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : empty;
}

/** What a contract's outcomes depend on: every contract (the test tokens included), its tests and their helpers, and the mutator. */
function digestOf(module: ContractModule): string {
  const hash = createHash("sha256");
  const files = [
    ...filesUnder("contracts"),
    ...module.spec,
    ...filesUnder("test/helpers"),
    "scripts/mutation/solidity-mutants.ts",
    "scripts/mutation/solidity-run.ts",
  ];
  for (const file of files) hash.update(file).update(readFileSync(file));
  return hash.digest("hex");
}

export async function mutateContract(module: ContractModule, run: { concurrency: number; full: boolean }): Promise<ModuleScore> {
  const source = readFileSync(module.file, "utf8");
  const mutants = solidityMutants(module.file, source);
  const equivalents = readJson<Record<string, string>>(EQUIVALENT_FILE, {});
  const stored = readJson<Stored>(INCREMENTAL_FILE, {});
  const digest = digestOf(module);
  const kept = !run.full && stored[module.name]?.digest === digest ? stored[module.name]!.outcomes : {};
  const todo = mutants.filter((m) => !equivalents[m.id] && !kept[m.id]);
  console.log(
    `\n== ${module.name}: ${mutants.length} mutants of ${module.file} (${todo.length} to run, ${mutants.length - todo.length} kept or equivalent)\n   against ${module.spec.join(", ")}`,
  );
  const outcomes: Record<string, SolidityOutcome> = { ...kept };
  // Saved after every mutant: a run stopped part way resumes where it stopped (same digest).
  const save = () => {
    stored[module.name] = { digest, outcomes: Object.fromEntries(mutants.filter((m) => outcomes[m.id]).map((m) => [m.id, outcomes[m.id]!])) };
    mkdirSync(dirname(INCREMENTAL_FILE), { recursive: true });
    writeFileSync(INCREMENTAL_FILE, `${JSON.stringify(stored, null, 2)}\n`);
  };
  if (todo.length > 0) await runAll(module, source, todo, run.concurrency, outcomes, save);
  save();
  return scoreOf(module, mutants, outcomes, equivalents);
}

async function runAll(
  module: ContractModule,
  source: string,
  todo: SolidityMutant[],
  concurrency: number,
  outcomes: Record<string, SolidityOutcome>,
  save: () => void,
) {
  const sandboxes = Array.from({ length: Math.min(concurrency, todo.length) }, (_, i) => new Sandbox(process.cwd(), `sol-${i}`));
  try {
    const dryMs = await dryRun(sandboxes[0]!, module.file, source, module.spec);
    const timeoutMs = dryMs * 3 + 30_000;
    console.log(
      `   the unmutated contract passes its tests in ${(dryMs / 1000).toFixed(1)} s; a mutant's tests are stopped after ${(timeoutMs / 1000).toFixed(0)} s`,
    );
    let next = 0;
    let done = 0;
    const started = Date.now();
    await Promise.all(
      sandboxes.map(async (sandbox) => {
        for (let i = next++; i < todo.length; i = next++) {
          const mutant = todo[i]!;
          const outcome = await runMutant(sandbox, mutant, module.spec, timeoutMs);
          outcomes[mutant.id] = outcome;
          save();
          done++;
          const eta = ((Date.now() - started) / done) * (todo.length - done);
          console.log(
            `   [${done}/${todo.length}, ~${Math.ceil(eta / 60_000)} min left] ${mutant.file}:${mutant.line}:${mutant.column} ${mutant.operator} ${describe(outcome)}`,
          );
        }
      }),
    );
  } finally {
    for (const sandbox of sandboxes) sandbox.remove();
  }
}

function describe(outcome: SolidityOutcome): string {
  switch (outcome.status) {
    case "killed":
      return `killed by "${outcome.killedBy}"`;
    case "timeout":
      return "killed (timed out)";
    case "survived":
      return "SURVIVED";
    case "stillborn":
      return `does not compile (${outcome.reason.slice(0, 80)})`;
  }
}

function scoreOf(
  module: ContractModule,
  mutants: SolidityMutant[],
  outcomes: Record<string, SolidityOutcome>,
  equivalents: Record<string, string>,
): ModuleScore {
  let killed = 0;
  let stillborn = 0;
  let equivalent = 0;
  const survived: Survivor[] = [];
  for (const m of mutants) {
    if (equivalents[m.id]) {
      equivalent++;
      continue;
    }
    const outcome = outcomes[m.id];
    if (!outcome) continue;
    if (outcome.status === "killed" || outcome.status === "timeout") killed++;
    else if (outcome.status === "stillborn") stillborn++;
    else survived.push({ place: `${m.file}:${m.line}:${m.column}`, mutator: m.operator, replacement: `${m.original} → ${m.replacement}`, id: m.id });
  }
  const score = percentKilled(killed, survived.length);
  console.log(`\n${module.name}: ${score.toFixed(1)}% (${killed} killed, ${survived.length} survived, ${equivalent} equivalent, ${stillborn} not compiled)`);
  for (const s of survived) console.log(`  survived ${s.place} ${s.mutator} ${JSON.stringify(s.replacement)} (id ${s.id})`);
  return { name: module.name, score, killed, survived, equivalent, stillborn };
}
