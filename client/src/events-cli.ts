#!/usr/bin/env node
/**
 * `stablecoin-events listen`: forwards a capability's events to a URL on this machine, like
 * `stripe listen --forward-to`.
 *
 *   stablecoin-events listen --capability-file cap.txt --base-url http://127.0.0.1:8787 \
 *     --forward-to http://127.0.0.1:3000/hooks [--state events-state.json] [--poll <seconds>]
 *   printf 'capability: '; read -rs STABLECOIN_CAPABILITY; echo; export STABLECOIN_CAPABILITY
 *   stablecoin-events listen --base-url http://127.0.0.1:8787 --forward-to …
 *
 * The capability (an intent, a link's manage token or a subscription capability) comes from the
 * environment or a file, never from the command line (which other users of the machine and the shell
 * history see). One line per event forwarded; runs until stopped (Ctrl-C). Exit code 1 on a bad
 * argument or a capability the service refuses.
 */
import { PaymentServiceClient } from "./index.js";
import { nodeFileSystem, parseFlags } from "./cli-args.js";
import { listenEvents } from "./listen.js";
import { listenStateFile } from "./listen-state.js";

declare const process: {
  argv: string[];
  env: Record<string, string | undefined>;
  exitCode?: number;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
};

const USAGE =
  "usage: stablecoin-events listen --base-url <url> --forward-to <url> [--capability-file <file>] [--state <file>] [--poll <seconds>]\n" +
  "       the capability comes from STABLECOIN_CAPABILITY or --capability-file, never from the command line";

function options(argv: string[]) {
  const [command, ...rest] = argv;
  if (command !== "listen") throw new Error(USAGE);
  const f = parseFlags(rest, {
    flags: { "--base-url": "text", "--forward-to": "text", "--capability-file": "text", "--state": "text", "--poll": "number" },
    tokenFlags: ["--capability"],
    whereTokensGo: "set STABLECOIN_CAPABILITY or pass --capability-file <file>",
    usage: USAGE,
  });
  const o = {
    baseUrl: f["--base-url"] ?? "",
    forwardTo: f["--forward-to"] ?? "",
    capabilityFile: f["--capability-file"] ?? "",
    state: f["--state"] ?? "",
    poll: f["--poll"] ?? 2,
  };
  if (!o.baseUrl || !o.forwardTo) throw new Error(USAGE);
  if (!(o.poll > 0)) throw new Error("--poll: a positive number of seconds");
  return o;
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const fs = await nodeFileSystem();
  const capability = (o.capabilityFile ? await fs.readFile(o.capabilityFile, "utf8") : (process.env.STABLECOIN_CAPABILITY ?? "")).trim();
  if (!capability) throw new Error("no capability: set STABLECOIN_CAPABILITY or pass --capability-file");
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  process.once("SIGTERM", () => stop.abort());
  process.stderr.write(`forwarding the events of ${capability.split(".", 1)[0]}.… from ${o.baseUrl} to ${o.forwardTo}\n`);
  await listenEvents({
    api: new PaymentServiceClient({ baseUrl: o.baseUrl, signal: stop.signal }),
    capability,
    forwardTo: o.forwardTo,
    ...(o.state ? { state: listenStateFile(fs, o.state) } : {}),
    pollMs: o.poll * 1000,
    log: (line) => process.stdout.write(`${line}\n`),
    signal: stop.signal,
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`stablecoin-events: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
