import { assert } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { PaymentServiceClient } from "../../client/src/index.js";
import { RenewalJob, type RenewableSubscription, type RenewalStore } from "../../client/src/renewals.js";
import { useService } from "../helpers/service.js";
import { walletTypedData, type ResolvedTerms } from "../helpers/recurring.js";
import { approve } from "../helpers/tx.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const here = dirname(fileURLToPath(import.meta.url));
const CLIENT = join(root, "client/src/index.ts");
const RENEWALS = join(root, "client/src/renewals.ts");

/** The fenced blocks of one section of docs/merchants.md, in order, with their language. */
function blocks(heading: string): Array<{ lang: string; code: string }> {
  const doc = readFileSync(join(root, "docs/merchants.md"), "utf8");
  const start = doc.indexOf(`## ${heading}\n`);
  assert.isAtLeast(start, 0, heading);
  const section = doc.slice(start, doc.indexOf("\n## ", start + 4));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

/** Imports TypeScript printed in the docs (written beside the tests so that it resolves as they do). */
async function importPrinted<T>(source: string, name: string): Promise<T> {
  const file = join(here, `.merchants-${name}-${process.pid}.ts`);
  writeFileSync(file, source);
  try {
    return (await import(pathToFileURL(file).href)) as T;
  } finally {
    unlinkSync(file);
  }
}

describe('docs/merchants.md: "Sell a subscription with a link" and "Run your renewals", run as printed', function () {
  this.timeout(180_000);
  const h = useService({ PORT: "0", OPS_PORT: "0" });
  let dir: string;
  let pglite: PGlite;
  before(async () => {
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "client"], { cwd: root });
    dir = mkdtempSync(join(tmpdir(), "merchants-doc-"));
    // Started and awaited here, before the test's service exists: PGlite's start holds this process
    // (the service's node reads too) for seconds, past RPC_TIMEOUT_MS, so a read in flight then
    // would time out (RPC_BUSY).
    pglite = new PGlite();
    await pglite.waitReady;
  });
  after(async () => {
    await pglite?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the link is created, a visitor subscribes, the merchant lists them; the job (module, CLI and PostgreSQL store) renews them", async () => {
    const running = await listen(h.service);
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const logged: string[] = [];
    const log = console.log;
    console.log = (line: string) => logged.push(line);
    try {
      // Sell a subscription with a link: only what a merchant fills in changes.
      const [sell] = blocks("Sell a subscription with a link");
      assert.equal(sell!.lang, "ts");
      const sellSource = sell!.code
        .replace('"@stablecoin-payments/client"', JSON.stringify(CLIENT))
        .replace('"http://127.0.0.1:8787"', JSON.stringify(running.apiUrl))
        .replace('"0xYourWallet"', JSON.stringify(merchant.address));
      const printedLink = await importPrinted<{
        link: { link: string; manage_token: string; link_id: Hex; url: string; period: number };
        subscribers(): Promise<RenewableSubscription[]>;
      }>(sellSource, "sell");
      assert.equal(printedLink.link.period, 30 * 24 * 3600);
      assert.include(logged, `share ${printedLink.link.url}`);
      assert.deepEqual(await printedLink.subscribers(), []);

      // A visitor, as the checkout does it.
      await approve(h.chain, payer, h.service.deployment.token.address, h.service.deployment.contracts.RecurringCharges.address, 10n ** 9n);
      const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: printedLink.link.link });
      const signature = await payer.signTypedData(walletTypedData(resolved.body as ResolvedTerms, payer.address) as never);
      const post = () => h.api.post("/v1/links/subscribe").send({ setup_token: resolved.body.setup_token, payer: payer.address, signature });
      let subscribed = await post();
      assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
      // Listed once the service's first charge is settled: the checkout posts again until ACTIVE.
      assert.deepEqual(await printedLink.subscribers(), [], "pending: not listed");
      await h.chain.mine(2);
      subscribed = await post();
      assert.equal(subscribed.body.state, "ACTIVE", JSON.stringify(subscribed.body));
      const listed = await printedLink.subscribers();
      assert.deepEqual(
        listed.map((s) => s.subscription_id),
        [subscribed.body.subscription_id],
      );

      // Run your renewals: the command line first (one wave: the first period, charged by the service, is renewed).
      const [module, cli, sql, pgStore] = blocks("Run your renewals");
      assert.deepEqual([module!.lang, cli!.lang, sql!.lang, pgStore!.lang], ["ts", "sh", "sql", "ts"]);
      await pglite.exec(sql!.code);
      const command = cli!.code.split("\n")[0]!;
      // From the package installed in the merchant's app, never `npx` of a name the registry does not hold for us.
      assert.match(command, /^\.\/node_modules\/\.bin\/stablecoin-renewals .*--manage-token-file manage-token$/);
      writeFileSync(
        join(dir, "manage-token"),
        `${printedLink.link.manage_token}
`,
        { mode: 0o600 },
      );
      const cliRun = await run(
        "bash",
        [
          "-c",
          command
            .replace("./node_modules/.bin/stablecoin-renewals", `${JSON.stringify(process.execPath)} ${join(root, "client/dist/renew-cli.js")}`)
            .replace("http://127.0.0.1:8787", running.apiUrl),
        ],
        { cwd: dir },
      );
      assert.match(cliRun.stderr, /^wave 1: 1\/1 subscriptions in [0-9.]+ s: 1 renewed, 0 waiting, 0 failed, 0 revoked, 0 ended\n$/);
      await h.chain.mine(2);

      // The module, with its own JSON file: the period is settled, so it reports renewed.
      const moduleSource = module!.code
        .replace('"@stablecoin-payments/client"', JSON.stringify(CLIENT))
        .replace('"@stablecoin-payments/client/renewals"', JSON.stringify(RENEWALS))
        .replace('"http://127.0.0.1:8787"', JSON.stringify(running.apiUrl))
        .replace('"renewals.json"', JSON.stringify(join(dir, "module-renewals.json")));
      const printedJob = await importPrinted<{ renew(s: RenewableSubscription[]): Promise<void> }>(moduleSource, "renew");
      logged.length = 0;
      await printedJob.renew(listed);
      assert.deepEqual(logged, [`grant ${subscribed.body.subscription_id} period 0`]);
      const kept = JSON.parse(readFileSync(join(dir, "module-renewals.json"), "utf8"));
      assert.equal(kept[subscribed.body.subscription_id].renewed_period, 0);

      // The PostgreSQL table and store, on PGlite (node-postgres' query shape).
      const { PostgresRenewalStore } = await importPrinted<{ PostgresRenewalStore: new (pool: unknown) => RenewalStore }>(
        pgStore!.code.replace('"@stablecoin-payments/client/renewals"', JSON.stringify(RENEWALS)),
        "pg-store",
      );
      const job = new RenewalJob({ api: new PaymentServiceClient({ baseUrl: running.apiUrl }), store: new PostgresRenewalStore(pglite) });
      const [report] = await job.wave(listed);
      assert.deepInclude(report, { outcome: "renewed", period_index: 0 }, `ALREADY_CHARGED is renewed: ${JSON.stringify(report)}`);
      const [again] = await job.wave(listed);
      assert.deepInclude(again, { outcome: "waiting", reason: "NOT_DUE" });
      const rows = await pglite.query<{ record: { renewed_period: number } }>("SELECT record FROM renewals");
      assert.deepEqual(
        rows.rows.map((r) => r.record.renewed_period),
        [0],
      );
    } finally {
      console.log = log;
      await running.close();
    }
  });
});
