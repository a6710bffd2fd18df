// A Stryker test runner that runs a module's own test files in a fresh mocha process per mutant.
// Stryker's mocha runner does not load mocha 12 (it requires lib/cli/run-helpers, gone in 12), and its
// command runner cannot say which test killed a mutant. This one can: its reporter (titles-reporter.cjs) writes the
// failing tests' titles, which become the mutant's `killedBy`. A fresh process per mutant also keeps
// the suites' chains, servers and stores apart (the API tests are not written to be re-run in one
// process). The mutant is switched on by Stryker's environment variable, read by the instrumented code.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INSTRUMENTER_CONSTANTS, type StrykerOptions } from "@stryker-mutator/api/core";
import { commonTokens, declareClassPlugin, PluginKind } from "@stryker-mutator/api/plugin";
import {
  type DryRunResult,
  DryRunStatus,
  type MutantRunOptions,
  type MutantRunResult,
  MutantRunStatus,
  type TestResult,
  type TestRunner,
  TestStatus,
} from "@stryker-mutator/api/test-runner";

/** The options this runner reads from Stryker's config: the module's test files and mocha's timeout. */
export interface MochaProcessOptions {
  spec: string[];
  timeoutMs?: number;
}

interface MochaTest {
  fullTitle: string;
  file?: string;
  duration?: number;
  err?: { message?: string };
}
interface MochaReport {
  stats?: { tests: number };
  passes: MochaTest[];
  failures: MochaTest[];
  pending: MochaTest[];
}

type Outcome = { kind: "report"; report: MochaReport } | { kind: "crashed"; output: string } | { kind: "timeout" };

export class MochaProcessRunner implements TestRunner {
  static inject: [typeof commonTokens.options] = [commonTokens.options];
  readonly #spec: string[];
  readonly #timeoutMs: number;
  readonly #dir = mkdtempSync(join(tmpdir(), "mutation-mocha-"));

  constructor(options: StrykerOptions) {
    const own = (options as StrykerOptions & { mochaProcess?: MochaProcessOptions }).mochaProcess;
    if (!own?.spec?.length) throw new Error("mochaProcess.spec: the module's test files are required");
    this.#spec = own.spec;
    this.#timeoutMs = own.timeoutMs ?? 60_000;
  }

  capabilities() {
    return { reloadEnvironment: true };
  }

  async dryRun(): Promise<DryRunResult> {
    const outcome = await this.#run(undefined, 30 * 60_000, false);
    if (outcome.kind === "timeout") return { status: DryRunStatus.Timeout };
    if (outcome.kind === "crashed") return { status: DryRunStatus.Error, errorMessage: outcome.output };
    return { status: DryRunStatus.Complete, tests: testResults(outcome.report) };
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const outcome = await this.#run(options.activeMutant.id, options.timeout, !options.disableBail);
    if (outcome.kind === "timeout") return { status: MutantRunStatus.Timeout, reason: `no answer within ${options.timeout} ms` };
    // A mutant that stops the module from loading, or the process from finishing, is caught by the suite.
    if (outcome.kind === "crashed") return { status: MutantRunStatus.Killed, killedBy: [], failureMessage: outcome.output, nrOfTests: 0 };
    const { report } = outcome;
    const ran = report.passes.length + report.failures.length;
    if (report.failures.length === 0) return { status: MutantRunStatus.Survived, nrOfTests: ran };
    return {
      status: MutantRunStatus.Killed,
      killedBy: report.failures.map((t) => t.fullTitle),
      failureMessage: report.failures[0]?.err?.message ?? "failed",
      nrOfTests: ran,
    };
  }

  async dispose(): Promise<void> {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #run(mutant: string | undefined, timeoutMs: number, bail: boolean): Promise<Outcome> {
    const output = join(this.#dir, `report-${mutant ?? "dry"}.json`);
    rmSync(output, { force: true });
    const args = [
      "--import",
      "tsx",
      join(process.cwd(), "node_modules/mocha/bin/mocha.js"),
      "--timeout",
      String(this.#timeoutMs),
      "--reporter",
      join(process.cwd(), "scripts/mutation/titles-reporter.cjs"),
      "--reporter-option",
      `output=${output}`,
      ...(bail ? ["--bail"] : []),
      ...this.#spec,
    ];
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE];
    if (mutant !== undefined) env[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE] = mutant;
    return new Promise((resolve) => {
      const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
      let text = "";
      const keep = (chunk: Buffer) => {
        text = (text + chunk.toString()).slice(-4000);
      };
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      const timer = setTimeout(() => {
        killGroup(child.pid);
        resolve({ kind: "timeout" });
      }, timeoutMs);
      child.on("close", () => {
        clearTimeout(timer);
        killGroup(child.pid); // servers a suite left behind go with it
        try {
          resolve({ kind: "report", report: JSON.parse(readFileSync(output, "utf8")) as MochaReport });
        } catch {
          resolve({ kind: "crashed", output: text });
        }
      });
    });
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function testResults(report: MochaReport): TestResult[] {
  const base = (t: MochaTest) => ({ id: t.fullTitle, name: t.fullTitle, timeSpentMs: t.duration ?? 0, fileName: t.file });
  return [
    ...report.passes.map((t): TestResult => ({ ...base(t), status: TestStatus.Success })),
    ...report.failures.map((t): TestResult => ({ ...base(t), status: TestStatus.Failed, failureMessage: t.err?.message ?? "failed" })),
    ...report.pending.map((t): TestResult => ({ ...base(t), status: TestStatus.Skipped })),
  ];
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, "mocha-process", MochaProcessRunner)];
export const strykerValidationSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { mochaProcess: { type: "object", description: "The module's test files (spec) and mocha's timeout (timeoutMs)." } },
};
