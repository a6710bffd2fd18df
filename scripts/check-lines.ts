// `npm run lint`'s line count: no file in src/, dev/ or scripts/ over 400 lines, generated files aside.
// A longer file holds more than one job: split it by job (docs/architecture.md). Counts the tree
// under the working directory; exits 1 naming each file over the limit.
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const MOST_LINES = 400;
const FOLDERS = ["src", "dev", "scripts"];
/** Written by a generator (`npm run generate`), never by hand: not counted. */
const GENERATED = ["src/generated/"];

/** Every file under `folder` (a path relative to the working directory, `/`-separated). */
function filesUnder(folder: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The lines of a text as an editor numbers them: a last line without a newline still counts. */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

const over = FOLDERS.flatMap(filesUnder)
  .filter((path) => !GENERATED.some((prefix) => path.startsWith(prefix)))
  .map((path) => ({ path, lines: lineCount(readFileSync(join(process.cwd(), path), "utf8")) }))
  .filter(({ lines }) => lines > MOST_LINES)
  .sort((a, b) => a.path.localeCompare(b.path));

for (const { path, lines } of over) console.error(`${path}: ${lines} lines, over ${MOST_LINES}: split it by job`);
if (over.length > 0) process.exit(1);
