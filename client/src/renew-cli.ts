#!/usr/bin/env node
/**
 * `stablecoin-renewals`: runs the renewal job from the command line.
 *
 *   stablecoin-renewals --base-url http://127.0.0.1:8787 --store renewals.json --manage-token-file manage-token \
 *     [--subscriptions subscriptions.json] [--every <seconds>] [--concurrency 8] [--json]
 *   printf 'manage token: '; read -rs STABLECOIN_MANAGE_TOKEN; echo; export STABLECOIN_MANAGE_TOKEN
 *   stablecoin-renewals --base-url http://127.0.0.1:8787 --store renewals.json
 *
 * subscriptions.json: `[{ "subscription_id": "0x…", "subscription": "sc.…" }, …]`. A subscription
 * link's manage token (it reads every subscriber's capability) adds that link's subscribers (POST
 * /v1/links/subscriptions); it is read from the environment (STABLECOIN_MANAGE_TOKEN) or a file
 * (--manage-token-file), one token or several separated by whitespace, never from argv, which the
 * process list and shell history keep. One wave, or one every --every seconds until stopped: a round
 * whose listing or wave fails is logged and the next round goes on. A progress line per wave on
 * stderr; with --json, one JSON report per subscription on stdout. Exit code 0 (1 on a bad argument,
 * or when the single wave's listing fails).
 */
import { nodeFileSystem, parseFlags } from "./cli-args.js";
import { PaymentServiceClient } from "./index.js";
import { JsonFileRenewalStore, RenewalJob, summarize, type RenewableSubscription } from "./renewals.js";

declare const process: {
  argv: string[];
  env: Record<string, string | undefined>;
  exitCode?: number;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
};

/** The environment variable that holds manage tokens. */
const MANAGE_TOKEN_VARIABLE = "STABLECOIN_MANAGE_TOKEN";

const USAGE = `usage: ${MANAGE_TOKEN_VARIABLE}=<manage_token> stablecoin-renewals --base-url <url> --store <file.json> [--subscriptions <file.json>] [--manage-token-file <path>] [--every <s>] [--concurrency <n>] [--json]`;

function options(argv: string[]) {
  const f = parseFlags(argv, {
    flags: {
      "--base-url": "text",
      "--store": "text",
      "--subscriptions": "text",
      "--manage-token-file": "text",
      "--every": "number",
      "--concurrency": "number",
      "--json": "switch",
    },
    tokenFlags: ["--link"],
    whereTokensGo: `set ${MANAGE_TOKEN_VARIABLE} or pass --manage-token-file <path>`,
    usage: USAGE,
  });
  const o = {
    baseUrl: f["--base-url"] ?? "",
    store: f["--store"] ?? "",
    subscriptions: f["--subscriptions"] ?? "",
    manageTokenFile: f["--manage-token-file"] ?? "",
    every: f["--every"] ?? 0,
    concurrency: f["--concurrency"] ?? 8,
    json: f["--json"] ?? false,
  };
  if (!o.baseUrl || !o.store) throw new Error(USAGE);
  return o;
}

async function readText(path: string): Promise<string> {
  return (await nodeFileSystem()).readFile(path, "utf8");
}

/** The manage tokens from STABLECOIN_MANAGE_TOKEN and --manage-token-file (whitespace-separated). */
async function manageTokens(o: ReturnType<typeof options>): Promise<string[]> {
  const text = `${process.env[MANAGE_TOKEN_VARIABLE] ?? ""}\n${o.manageTokenFile ? await readText(o.manageTokenFile) : ""}`;
  return [...new Set(text.split(/\s+/).filter(Boolean))];
}

async function subscriptionsOf(api: PaymentServiceClient, o: ReturnType<typeof options>, tokens: readonly string[]): Promise<RenewableSubscription[]> {
  const list: RenewableSubscription[] = [];
  if (o.subscriptions)
    for (const s of JSON.parse(await readText(o.subscriptions)) as RenewableSubscription[])
      list.push({ subscription_id: s.subscription_id, subscription: s.subscription });
  for (const manage_token of tokens) {
    let after: string | undefined;
    do {
      const page = await api.linkSubscriptions({ manage_token, ...(after ? { after } : {}) });
      for (const s of page.subscriptions) list.push({ subscription_id: s.subscription_id, subscription: s.subscription });
      after = page.next ?? undefined;
    } while (after);
  }
  return list;
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  const tokens = await manageTokens(o);
  if (!o.subscriptions && tokens.length === 0)
    throw new Error(`no subscriptions: pass --subscriptions <file.json>, set ${MANAGE_TOKEN_VARIABLE}, or pass --manage-token-file <path>\n${USAGE}`);
  const api = new PaymentServiceClient({ baseUrl: o.baseUrl });
  const job = new RenewalJob({ api, store: new JsonFileRenewalStore(o.store), concurrency: o.concurrency });
  for (let wave = 1; ; wave++) {
    try {
      await round(wave, api, job, o, tokens);
    } catch (error) {
      // One wave: the caller sees the failure in the exit code. --every: logged, and the next round goes on.
      if (!(o.every > 0)) throw error;
      process.stderr.write(`wave ${wave}: failed: ${describe(error)}; next round in ${o.every} s\n`);
    }
    if (!(o.every > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, o.every * 1000));
  }
}

async function round(wave: number, api: PaymentServiceClient, job: RenewalJob, o: ReturnType<typeof options>, tokens: readonly string[]): Promise<void> {
  let subscriptions: RenewableSubscription[];
  try {
    subscriptions = await subscriptionsOf(api, o, tokens);
  } catch (error) {
    throw new Error(`listing the subscriptions failed: ${describe(error)}`);
  }
  const started = Date.now();
  let done = 0;
  const reports = await job.wave(subscriptions, (report) => {
    done++;
    if (o.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  });
  const c = summarize(reports);
  process.stderr.write(
    `wave ${wave}: ${done}/${subscriptions.length} subscriptions in ${((Date.now() - started) / 1000).toFixed(1)} s: ${c.renewed} renewed, ${c.waiting} waiting, ${c.failed} failed, ${c.revoked} revoked, ${c.ended} ended\n`,
  );
}

/** An error and its cause in one line (fetch's "fetch failed" says why only in its cause). */
function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string; code?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(error)}${cause ? ` (${cause})` : ""}`;
}

main().catch((error: unknown) => {
  process.stderr.write(`stablecoin-renewals: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
