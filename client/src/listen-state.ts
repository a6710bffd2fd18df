import type { ListenState } from "./listen.js";
import { replaceFile, type ReplaceFileSystem } from "./replace-file.js";

/** The file operations the listen state needs (a part of Node's `fs/promises`). */
export interface ListenStateFileSystem extends ReplaceFileSystem {
  readFile(path: string, encoding: "utf8"): Promise<string>;
}

/**
 * `stablecoin-events listen --state`: the last forwarded event id in a small JSON file
 * (`{"after": "<event id>"}`), replaced whole at each event ({@link replaceFile}).
 */
export function listenStateFile(fs: ListenStateFileSystem, path: string): ListenState {
  return {
    async read() {
      try {
        return (JSON.parse(await fs.readFile(path, "utf8")) as { after?: string }).after;
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return undefined;
        throw error;
      }
    },
    write: (after) => replaceFile(fs, path, `${JSON.stringify({ after })}\n`),
  };
}
