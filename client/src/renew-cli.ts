#!/usr/bin/env node
/**
 * `stablecoin-renewals`: runs the renewal job from the command line.
 *
 *   STABLECOIN_MANAGE_TOKEN=lm.… stablecoin-renewals --base-url http://127.0.0.1:8787 --store renewals.json \
 *     [--subscriptions subscriptions.json] [--manage-token-file <path>] [--every <seconds>] [--concurrency 8] [--json]
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

/** A capability token's shape (`<kind>.<key>.<payload>.<signature>`): never accepted, nor echoed, from argv. */
const CAPABILITY_SHAPE = /^[a-z]{2}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

function options(argv: string[]) {
  if (argv.some((a) => CAPABILITY_SHAPE.test(a) || a.startsWith("--link=")))
    throw new Error(
      `a capability token on the command line is refused: the process list and shell history keep it. Set ${MANAGE_TOKEN_VARIABLE} or pass --manage-token-file <path>`,
    );
  const o = { baseUrl: "", store: "", subscriptions: "", manageTokenFile: "", every: 0, concurrency: 8, json: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag}: a value is missing`);
      return v;
    };
    if (flag === "--base-url") o.baseUrl = value();
    else if (flag === "--store") o.store = value();
    else if (flag === "--subscriptions") o.subscriptions = value();
    else if (flag === "--manage-token-file") o.manageTokenFile = value();
    else if (flag === "--link")
      throw new Error(
        `--link is refused: a manage token in argv is kept by the process list and shell history. Set ${MANAGE_TOKEN_VARIABLE} or pass --manage-token-file <path>`,
      );
    else if (flag === "--every") o.every = Number(value());
    else if (flag === "--concurrency") o.concurrency = Number(value());
    else if (flag === "--json") o.json = true;
    else throw new Error(`unknown argument ${flag}\n${USAGE}`);
  }
  if (!o.baseUrl || !o.store) throw new Error(USAGE);
  return o;
}

async function readText(path: string): Promise<string> {
  // A Node built-in, loaded when used: the package has no dependencies and runs in browsers too.
  const specifier: string = "node:fs/promises";
  const fs = (await import(specifier)) as { readFile(path: string, encoding: "utf8"): Promise<string> };
  return fs.readFile(path, "utf8");
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
