// One rule for committed generated files: write them, or with `--check` fail when the committed copy drifted.
import { readFileSync, writeFileSync } from "node:fs";

export interface GeneratedFile {
  /** Where the file lives. */
  url: URL;
  /** Its path in the repository, as messages name it. */
  name: string;
  /** The command that regenerates it. */
  command: string;
}

/**
 * Writes `text` to the file and prints `written`; with `--check` on the command line, compares
 * `text` with the committed file instead and exits 1 when they differ.
 */
export function writeOrCheckGenerated(file: GeneratedFile, text: string, written: string): void {
  if (!process.argv.includes("--check")) {
    writeFileSync(file.url, text);
    console.log(written);
    return;
  }
  let committed = "";
  try {
    committed = readFileSync(file.url, "utf8");
  } catch {
    // never committed: stale
  }
  if (committed !== text) {
    console.error(`${file.name} is stale: run \`${file.command}\` and commit it`);
    process.exit(1);
  }
  console.log(`${file.name} is up to date`);
}
