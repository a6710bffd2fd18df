// Runs a contract's mutants against its tests, each in a sandbox of its own (a copy of the project
// with node_modules linked): the mutated source is compiled by Hardhat with the npm solc (a mutant
// that does not compile is stillborn and left out of the score), the CREATE2 addresses in
// deployments/ are recomputed for its bytecode (else every test that places the contracts would fail
// for the address alone), then mocha runs the contract's test files and names the first test that fails.
// A contract that embeds another's creation code (X402Receivers holds X402Receiver's code hash,
// Splitter DepositForwarder's) is compiled again in one job with the contracts it embeds: an
// incremental build compiles the changed file in a job of its own, whose solc remappings (part of each
// contract's metadata, so of its code and code hash) can differ from those of the job that wrote the
// embedded contract's artifact, and every test comparing the two would fail whatever the mutant is.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, posix, resolve } from "node:path";
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

  /** Compile what `file` changed (and what depends on it), then `file` with the contracts it embeds in one job. */
  async build(file: string): Promise<Step> {
    const hardhat = [process.execPath, join(this.dir, "node_modules/hardhat/dist/src/cli.js"), "compile", "--quiet"];
    const compiled = await this.#step(hardhat, 10 * 60_000);
    const embedded = embeddedContracts(file, readFileSync(join(this.dir, file), "utf8"));
    if (!compiled.ok || embedded.length === 0) return compiled;
    return this.#step([...hardhat, "--force", file, ...embedded], 10 * 60_000);
  }

  /** Compile, recompute the addresses, run the specs; `timeoutMs` bounds the tests alone. */
  async run(file: string, spec: string[], timeoutMs: number): Promise<{ compiled: Step; tests?: Step; report?: MochaReport }> {
    const node = process.execPath;
    const compiled = await this.build(file);
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

/**
 * The project's contracts whose creation code `source` embeds (`type(C).creationCode`, `new C{…}(…)`),
 * as the files it imports them from.
 */
export function embeddedContracts(file: string, source: string): string[] {
  const names = new Set([...source.matchAll(/\btype\(\s*(\w+)\s*\)\.creationCode|\bnew\s+(\w+)\s*[{(]/g)].map((m) => m[1] ?? m[2]));
  const files: string[] = [];
  for (const [, imported, from] of source.matchAll(/\bimport\s*\{([^}]*)\}\s*from\s*"(\.[^"]+)"/g)) {
    if (imported!.split(",").some((name) => names.has(name.trim()))) files.push(posix.join(posix.dirname(file), from!));
  }
  return files;
}

/**
 * The unmutated contract must compile and pass its tests as a mutant does: built whole first (the
 * sandbox's first build), then rebuilt with a comment added, which changes its source and nothing it
 * does, so it goes the way of every mutant (an incremental build, then the job with what it embeds).
 * A fault of the sandbox fails here, before any mutant is blamed for it. Its tests' time bounds each
 * mutant's run.
 */
export async function dryRun(sandbox: Sandbox, file: string, source: string, spec: string[]): Promise<number> {
  sandbox.write(file, source);
  const whole = await sandbox.build(file);
  if (!whole.ok) throw new Error(`${file} does not build unmutated:\n${whole.output}`);
  sandbox.write(file, `${source}\n// The unmutated source, rebuilt as a mutant is.\n`);
  const { compiled, tests, report } = await sandbox.run(file, spec, 30 * 60_000);
  if (!compiled.ok) throw new Error(`${file} does not build unmutated:\n${compiled.output}`);
  if (!tests?.ok || !report) throw new Error(`${file}: its tests fail unmutated (${report?.failures.map((f) => f.fullTitle).join("; ")}):\n${tests?.output}`);
  return tests.ms;
}

export async function runMutant(sandbox: Sandbox, mutant: SolidityMutant, spec: string[], timeoutMs: number): Promise<SolidityOutcome> {
  sandbox.write(mutant.file, mutant.source);
  const { compiled, tests, report } = await sandbox.run(mutant.file, spec, timeoutMs);
  if (!compiled.ok) return { status: "stillborn", reason: compiled.output.split("\n").find((l) => /Error/.test(l)) ?? "does not compile" };
  if (!tests) return { status: "stillborn", reason: "not run" };
  if (!tests.ok && tests.timedOut) return { status: "timeout", ms: tests.ms };
  const failure = report?.failures[0];
  if (failure) return { status: "killed", killedBy: failure.fullTitle, ms: tests.ms };
  if (!tests.ok) return { status: "killed", killedBy: `(the test process failed: ${tests.output.trim().split("\n").at(-1) ?? ""})`, ms: tests.ms };
  return { status: "survived", ms: tests.ms };
}
