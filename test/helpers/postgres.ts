import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where Debian's PostgreSQL binaries are (`postgresql` package), or null. */
function binDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A throwaway PostgreSQL cluster for the test run (initdb in a temp folder, loopback only), or the
 * server TEST_DATABASE_URL names. Root runs the server as the `postgres` user, as Debian does.
 */
export async function startTestPostgres(): Promise<{ url: string; stop(): void }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: () => {} };
  const bin = binDir();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql; .ci/run does) and TEST_DATABASE_URL is not set");
  const dir = mkdtempSync(join(tmpdir(), "pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const port = await freePort();
  const asPostgres = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) => {
    const full = asPostgres ? ["runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]] : [join(bin, cmd), args];
    const result = spawnSync(full[0] as string, full[1] as string[], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`);
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
  run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        if (asPostgres) execFileSync("runuser", ["-u", "postgres", "--", join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop"], { stdio: "ignore" });
        else execFileSync(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"], { stdio: "ignore" });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
