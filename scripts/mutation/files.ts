import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every file under `dir`, in a fixed order: what a digest of a folder reads. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
