// Runs a contract's mutants against its tests, each in a sandbox of its own (a copy of the project
// with node_modules linked): the mutated source is compiled by Hardhat with the npm solc (a mutant
// that does not compile is stillborn and left out of the score), the CREATE2 addresses in
// deployments/ are recomputed for its bytecode (else every test that places the contracts would fail
// for the address alone), then mocha runs the contract's test files and names the first test that fails.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { SolidityMutant } from "./solidity-mutants.js";

export type SolidityOutcome =
  | { status: "killed"; killedBy: string; ms: number }
  | { status: "timeout"; ms: number }
  | { status: "survived"; ms: number }
  | { status: "stillborn"; reason: string };

type Step = { ok: true; ms: number; output: string } | { ok: false; ms: number; output: string; timedOut: boolean };

/** A copy of the project to mutate in: the files git tracks or would (not the ignored ones), the build (artifacts, cache, dist) and node_modules linked. */
export class Sandbox {
  readonly dir: string;

  constructor(root: string, name: string) {
    this.dir = resolve(root, ".mutation-tmp", name);
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
      .split("\0")
      .filter(Boolean);
    for (const file of tracked) {
      if (!existsSync(join(root, file))) continue; // deleted in the working tree
      mkdirSync(dirname(join(this.dir, file)), { recursive: true });
      cpSync(join(root, file), join(this.dir, file));
    }
    for (const built of ["artifacts", "cache", "dist"]) {
      if (existsSync(join(root, built))) cpSync(join(root, built), join(this.dir, built), { recursive: true });
    }
    symlinkSync(join(root, "node_modules"), join(this.dir, "node_modules"), "dir");
  }

  write(file: string, source: string): void {
    writeFileSync(join(this.dir, file), source);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Compile, recompute the addresses, run the specs; `timeoutMs` bounds the tests alone. */
  async run(spec: string[], timeoutMs: number): Promise<{ compiled: Step; tests?: Step; report?: MochaReport }> {
    const node = process.execPath;
    const compiled = await this.#step([node, join(this.dir, "node_modules/hardhat/dist/src/cli.js"), "compile", "--quiet"], 10 * 60_000);
    if (!compiled.ok) return { compiled };
    const planned = await this.#step([node, "--import", "tsx", "scripts/plan-deployments.ts"], 60_000);
    if (!planned.ok) return { compiled: planned };
    const output = join(this.dir, ".mutation-report.json");
    rmSync(output, { force: true });
    const mocha = [
      node,
      "--import",
      "tsx",
      "node_modules/mocha/bin/mocha.js",
      "--timeout",
      "60000",
      "--bail",
      "--reporter",
      "scripts/mutation/titles-reporter.cjs",
      "--reporter-option",
      `output=${output}`,
    ];
    const tests = await this.#step([...mocha, ...spec], timeoutMs);
    const report = existsSync(output) ? (JSON.parse(readFileSync(output, "utf8")) as MochaReport) : undefined;
    return { compiled, tests, report };
  }

  #step(command: string[], timeoutMs: number): Promise<Step> {
    const started = Date.now();
    return new Promise((done) => {
      const child = spawn(command[0]!, command.slice(1), { cwd: this.dir, stdio: ["ignore", "pipe", "pipe"], detached: true });
      let output = "";
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
      };
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, timeoutMs);
      child.on("close", (code) => {
        clearTimeout(timer);
        killGroup(child.pid);
        const ms = Date.now() - started;
        done(code === 0 && !timedOut ? { ok: true, ms, output } : { ok: false, ms, output, timedOut });
      });
    });
  }
}

export interface MochaReport {
  passes: { fullTitle: string }[];
  failures: { fullTitle: string; err?: { message?: string } }[];
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The unmutated contract must compile and pass its tests: the time it takes bounds each mutant's run. */
export async function dryRun(sandbox: Sandbox, file: string, source: string, spec: string[]): Promise<number> {
  sandbox.write(file, source);
  const { compiled, tests, report } = await sandbox.run(spec, 30 * 60_000);
  if (!compiled.ok) throw new Error(`${file} does not build unmutated:\n${compiled.output}`);
  if (!tests?.ok || !report) throw new Error(`${file}: its tests fail unmutated (${report?.failures.map((f) => f.fullTitle).join("; ")}):\n${tests?.output}`);
  return tests.ms;
}

export async function runMutant(sandbox: Sandbox, mutant: SolidityMutant, spec: string[], timeoutMs: number): Promise<SolidityOutcome> {
  sandbox.write(mutant.file, mutant.source);
  const { compiled, tests, report } = await sandbox.run(spec, timeoutMs);
  if (!compiled.ok) return { status: "stillborn", reason: compiled.output.split("\n").find((l) => /Error/.test(l)) ?? "does not compile" };
  if (!tests) return { status: "stillborn", reason: "not run" };
  if (!tests.ok && tests.timedOut) return { status: "timeout", ms: tests.ms };
  const failure = report?.failures[0];
  if (failure) return { status: "killed", killedBy: failure.fullTitle, ms: tests.ms };
  if (!tests.ok) return { status: "killed", killedBy: `(the test process failed: ${tests.output.trim().split("\n").at(-1) ?? ""})`, ms: tests.ms };
  return { status: "survived", ms: tests.ms };
}
