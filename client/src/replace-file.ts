/** The file operations replacing a file whole needs (a part of Node's `fs/promises`). */
export interface ReplaceFileSystem {
  open(path: string, flags: string, mode: number): Promise<{ writeFile(data: string): Promise<void>; sync(): Promise<void>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

/**
 * Replaces the file at `path` whole with `data`: written to a new temporary file beside it, synced,
 * then renamed over it, so a process killed at any point leaves the previous file or the new one,
 * never half of one. The temporary file has a random name and is created exclusively (`wx`: a file
 * or symlink already at that name is an error, never followed) and readable by its owner only
 * (0600), so another user of the machine can neither plant a link that redirects the write nor read
 * what is written.
 *
 * @example await replaceFile(await import("node:fs/promises"), "state.json", '{"after":"evt_1"}\n')
 */
export async function replaceFile(fs: ReplaceFileSystem, path: string, data: string): Promise<void> {
  const tmp = `${path}.${randomHex(8)}.tmp`;
  const handle = await fs.open(tmp, "wx", 0o600);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, path);
  } catch (error) {
    await fs.unlink(tmp).catch(() => {});
    throw error;
  }
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}
