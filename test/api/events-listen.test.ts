import { assert } from "chai";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { PaymentServiceClient, verifyWebhook } from "../../client/src/index.js";
import { localAccount, LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { endGroup, spawnStart, type Started } from "../helpers/start-process.js";
import { until } from "../helpers/until.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const tsx = join(root, "node_modules/tsx/dist/cli.mjs");

/** Output of a child process so far, and a wait for a line matching `pattern`. */
function watched(child: ChildProcess) {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return {
    output: () => out,
    waitFor: (pattern: RegExp, ms: number) =>
      new Promise<RegExpMatchArray>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = out.match(pattern);
          if (m) {
            clearInterval(timer);
            clearTimeout(limit);
            resolve(m);
          }
        }, 100);
        const limit = setTimeout(() => {
          clearInterval(timer);
          reject(new Error(`no ${pattern} in ${ms} ms:\n${out}`));
        }, ms);
      }),
  };
}

/** Stops a child and, when it leads a process group of its own (a shell running a printed command), every process in it. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  if (child.spawnargs[0] === "bash" && child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
  else child.kill("SIGTERM");
  await exited;
}

/** A merchant's receiver on a laptop: plain http on a free port; `status` answers each POST. */
async function receiver() {
  const received: Array<{ headers: IncomingHttpHeaders; body: string; status: number }> = [];
  const r = { received, statuses: [] as number[] };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const status = r.statuses.shift() ?? 200;
      received.push({ headers: req.headers, body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { ...r, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("stablecoin-events listen against npm start (client/src/events-cli.ts, built as the package ships it)", function () {
  this.timeout(240_000);
  let stack: Started | undefined;
  let listener: ChildProcess | undefined;
  let dir: string;
  let apiUrl: string;
  let chainUrl: string;
  let cli: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "events-listen-"));
    stack = spawnStart({ CHAIN_PORT: "0", BLOCK_INTERVAL_MS: "500" }, root);
    await until(() => stack!.output().includes("Ready."), "npm start's Ready.", { timeoutMs: 150_000, everyMs: 100 }).catch((error: Error) => {
      throw new Error(`${error.message}:\n${stack!.output()}`);
    });
    const started = stack;
    apiUrl = started.output().match(/^API +(http:\S+)/m)![1]!;
    chainUrl = started.output().match(/^Chain RPC +(http:\S+)/m)![1]!;
    await run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "client", "--outDir", join(dir, "dist")], { cwd: root });
    cli = join(dir, "dist/events-cli.js");
  });
  after(async () => {
    await stop(listener);
    if (stack) await endGroup(stack);
    rmSync(dir, { recursive: true, force: true });
  });

  it("forwards payment.settled with headers verifyWebhook accepts, waits out a failing target, and resumes from --state without repeating", async () => {
    const api = new PaymentServiceClient({ baseUrl: apiUrl });
    const merchant = localAccount(LOCAL_ROLES.firstUser + 1).address;
    const payment = await api.createPayment({ recipient: merchant, amount: "3.25", notify_url: "https://hooks.merchant.example.com/stripe-like" });
    const target = await receiver();
    target.statuses.push(503); // the merchant's server is not up yet at the first try
    const capabilityFile = join(dir, "capability.txt");
    writeFileSync(capabilityFile, `${payment.intent}\n`);
    const state = join(dir, "state.json");
    const args = [cli, "listen", "--base-url", apiUrl, "--forward-to", target.url, "--capability-file", capabilityFile, "--state", state, "--poll", "0.5"];
    listener = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    const listening = watched(listener);

    const paid = await run(process.execPath, [tsx, "scripts/pay.ts", payment.intent], {
      cwd: root,
      env: { ...process.env, API_URL: apiUrl, CHAIN_RPC_URL: chainUrl },
    });
    const { tx_hash } = JSON.parse(paid.stdout) as { tx_hash: `0x${string}` };
    const line = await listening.waitFor(/payment\.settled +(evt_[0-9a-f]{32}) +→ 200/, 90_000);
    assert.match(listening.output(), /payment\.settled +evt_[0-9a-f]{32} +→ 503: kept, forwarded again/, "the failed forward is said and kept");

    const delivered = target.received.filter((r) => r.status === 200);
    assert.lengthOf(delivered, 1);
    const { keys } = await api.webhookKeys();
    const event = await verifyWebhook(delivered[0]!.headers, delivered[0]!.body, keys);
    assert.equal(event.type, "payment.settled");
    if (event.type !== "payment.settled") throw new Error("narrowed above");
    assert.equal(event.id, line[1]);
    assert.deepInclude(event.data, { intent: payment.intent, tx_hash });
    assert.equal(delivered[0]!.headers["svc-event-type"], "payment.settled");
    assert.equal(delivered[0]!.headers["content-type"], "application/json");
    const verdict = await api.waitForPayment({ intent: event.data.intent, tx_hash: event.data.tx_hash }, { timeoutMs: 30_000, pollMs: 500 });
    assert.isTrue(verdict.valid);
    assert.deepEqual(JSON.parse(readFileSync(state, "utf8")), { after: event.id });

    // Stopped and started again on the same state: nothing is forwarded twice.
    await stop(listener);
    const before = target.received.length;
    listener = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    const again = watched(listener);
    await again.waitFor(/forwarding the events of pi\.…/, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(target.received.length, before, again.output());
    await stop(listener);
    await target.close();
  });

  it("docs/merchants.md's receiver and listen command, run as printed: the receiver accepts what listen forwards", async () => {
    const doc = readFileSync(join(root, "docs/merchants.md"), "utf8");
    const section = doc.slice(doc.indexOf("## Receive events"));
    const receiverCode = [...section.matchAll(/```ts\n([\s\S]*?)```/g)][0]![1]!;
    const laptop = section.slice(section.indexOf("### On your laptop"));
    const command = /```sh\n([\s\S]*?)\n#/.exec(laptop)![1]!.replace(/\\\n\s*/g, "");
    // The capability is read at a prompt, never written into a command the shell history keeps.
    assert.match(
      command,
      /^printf 'capability: '; read -rs STABLECOIN_CAPABILITY; echo; export STABLECOIN_CAPABILITY\n\.\/node_modules\/\.bin\/stablecoin-events listen --base-url http:\/\/127\.0\.0\.1:8787 --forward-to http:\/\/127\.0\.0\.1:8443\/ /,
    );
    assert.notMatch(command, /STABLECOIN_CAPABILITY=/);
    // Only what a merchant fills in changes: the service's URL, the port, and where the client package is.
    const source = receiverCode
      .replace('"@stablecoin-payments/client"', JSON.stringify(join(root, "client/src/index.ts")))
      .replace('"http://127.0.0.1:8787"', JSON.stringify(apiUrl))
      .replace("createServer(", "export const server = createServer(")
      .replace(".listen(8443);", ".listen(0);");
    const file = join(root, "test/api", `.listen-receiver-${process.pid}.ts`);
    writeFileSync(file, source);
    let server: Server;
    try {
      server = ((await import(pathToFileURL(file).href)) as { server: Server }).server;
    } finally {
      unlinkSync(file);
    }
    await new Promise((resolve) => (server.listening ? resolve(null) : server.once("listening", resolve)));
    const port = (server.address() as AddressInfo).port;
    try {
      const api = new PaymentServiceClient({ baseUrl: apiUrl });
      const merchant = localAccount(LOCAL_ROLES.firstUser + 1).address;
      const payment = await api.createPayment({ recipient: merchant, amount: "1.5", notify_url: "https://hooks.merchant.example.com/printed" });
      await run(process.execPath, [tsx, "scripts/pay.ts", payment.intent], { cwd: root, env: { ...process.env, API_URL: apiUrl, CHAIN_RPC_URL: chainUrl } });
      const printed = command
        .replace("./node_modules/.bin/stablecoin-events", `${JSON.stringify(process.execPath)} ${JSON.stringify(cli)}`)
        .replace("http://127.0.0.1:8787", apiUrl)
        .replace("http://127.0.0.1:8443/", `http://127.0.0.1:${port}/`);
      // A group of its own: the shell runs the listener as its child (the printed lines are several
      // commands), and the test must stop both, or the listener outlives the suite and holds the runner open.
      listener = spawn("bash", ["-c", printed], { cwd: dir, stdio: ["pipe", "pipe", "pipe"], detached: true });
      listener.stdin!.end(`${payment.intent}\n`); // what the merchant pastes at the prompt
      const listening = watched(listener);
      await listening.waitFor(/payment\.settled +evt_[0-9a-f]{32} +→ 200/, 90_000);
      assert.notMatch(listening.output(), /→ 400/, "never refused by the printed receiver");
      await stop(listener);
    } finally {
      server.close();
    }
  });

  it("never takes a capability from the command line", async () => {
    const refused = await run(process.execPath, [cli, "listen", "--base-url", apiUrl, "--forward-to", "http://127.0.0.1:1/x", "--capability", "pi.x"]).then(
      () => assert.fail("expected exit 1"),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /never taken from the command line/);
  });
});
