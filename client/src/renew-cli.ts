#!/usr/bin/env node
/**
 * `stablecoin-renewals`: runs the renewal job from the command line.
 *
 *   stablecoin-renewals --base-url http://127.0.0.1:8787 --store renewals.json \
 *     [--subscriptions subscriptions.json] [--link <manage_token>]… [--every <seconds>] [--concurrency 8] [--json]
 *
 * subscriptions.json: `[{ "subscription_id": "0x…", "subscription": "sc.…" }, …]`; each --link adds
 * that subscription link's subscribers (POST /v1/links/subscriptions). One wave, or one every
 * --every seconds until stopped. A progress line per wave on stderr; with --json, one JSON report per
 * subscription on stdout. Exit code 0 (1 on a bad argument or an unreachable service).
 */
import { PaymentServiceClient } from "./index.js";
import { JsonFileRenewalStore, RenewalJob, summarize, type RenewableSubscription } from "./renewals.js";

declare const process: {
  argv: string[];
  exitCode?: number;
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
};

function options(argv: string[]) {
  const o = { baseUrl: "", store: "", subscriptions: "", links: [] as string[], every: 0, concurrency: 8, json: false };
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
    else if (flag === "--link") o.links.push(value());
    else if (flag === "--every") o.every = Number(value());
    else if (flag === "--concurrency") o.concurrency = Number(value());
    else if (flag === "--json") o.json = true;
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!o.baseUrl || !o.store || (!o.subscriptions && o.links.length === 0))
    throw new Error(
      "usage: stablecoin-renewals --base-url <url> --store <file.json> (--subscriptions <file.json> | --link <manage_token>)… [--every <s>] [--json]",
    );
  return o;
}

async function subscriptionsOf(api: PaymentServiceClient, o: ReturnType<typeof options>): Promise<RenewableSubscription[]> {
  const list: RenewableSubscription[] = [];
  if (o.subscriptions) {
    const specifier: string = "node:fs/promises";
    const fs = (await import(specifier)) as { readFile(path: string, encoding: "utf8"): Promise<string> };
    for (const s of JSON.parse(await fs.readFile(o.subscriptions, "utf8")) as RenewableSubscription[])
      list.push({ subscription_id: s.subscription_id, subscription: s.subscription });
  }
  for (const manage_token of o.links) {
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
  const api = new PaymentServiceClient({ baseUrl: o.baseUrl });
  const job = new RenewalJob({ api, store: new JsonFileRenewalStore(o.store), concurrency: o.concurrency });
  for (let wave = 1; ; wave++) {
    const subscriptions = await subscriptionsOf(api, o);
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
    if (!(o.every > 0)) return;
    await new Promise((resolve) => setTimeout(resolve, o.every * 1000));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`stablecoin-renewals: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
