import { assert } from "chai";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { erc20Abi, parseEventLogs, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { PaymentServiceClient } from "../../client/src/index.js";
import { DEFAULT_RETRY_SCHEDULE, MemoryRenewalStore, RenewalJob, type RenewalReport } from "../../client/src/renewals.js";
import { useService } from "../helpers/service.js";
import { manySubscriptions, sendPrepared } from "../helpers/recurring.js";
import { send } from "../helpers/tx.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(root, "client/dist/renew-cli.js");
const HOUR = 3600;

describe("the renewal job (client package) on the local chain", function () {
  this.timeout(600_000);
  // The job's calls come from one address in one (frozen) minute of the service's clock.
  const h = useService({ PORT: "0", OPS_PORT: "0", RATE_LIMIT_PER_MINUTE: "1000000", RECOVER_LIMIT_PER_MINUTE: "1000000" });
  let dir: string;
  before(async () => {
    await promisify(execFile)(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "client"], { cwd: root });
    dir = mkdtempSync(join(tmpdir(), "renewals-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the CLI once (one wave); with `killAfter`, SIGKILLs it after that many reports, in the middle of the wave. */
  function runCli(apiUrl: string, args: string[], killAfter?: number): Promise<{ reports: RenewalReport[]; killed: boolean; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "--base-url", apiUrl, "--json", ...args], { stdio: ["ignore", "pipe", "pipe"] });
      const reports: RenewalReport[] = [];
      let buffered = "";
      let stderr = "";
      let killed = false;
      child.stdout.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) if (line) reports.push(JSON.parse(line));
        if (killAfter !== undefined && !killed && reports.length >= killAfter) {
          killed = true;
          child.kill("SIGKILL");
        }
      });
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code, signal) => {
        if (!killed && code !== 0) reject(new Error(`renewals CLI exited ${code ?? signal}: ${stderr}`));
        else resolve({ reports, killed, stderr });
      });
    });
  }

  it("200 subscriptions over three periods, the job SIGKILLed and restarted mid-wave: every period of every subscription charged exactly once, no failure for CONFIRMING", async () => {
    const subs = await manySubscriptions(h, h.api, 200, { period: HOUR });
    const file = join(dir, "subscriptions.json");
    writeFileSync(file, JSON.stringify(subs.map((s) => ({ subscription_id: s.id, subscription: s.subscription }))));
    const store = join(dir, "renewals.json");
    const fromBlock = await h.chain.publicClient.getBlockNumber();
    const running = await listen(h.service);
    const progress: string[] = [];
    // How many charges each kill left without their answer (the kill lands wherever the wave is: some must).
    const inFlightAtKill: number[] = [];
    try {
      for (let period = 0; period < 3; period++) {
        if (period > 0) await h.chain.advanceTime(HOUR);
        // A third of the way into the wave, the job dies without a chance to clean up.
        const first = await runCli(running.apiUrl, ["--subscriptions", file, "--store", store, "--concurrency", "16"], 70);
        assert.isTrue(first.killed, "killed mid-wave");
        // The store is whole after a SIGKILL, and holds intents whose answers died with the job: the restart recovers them.
        const afterKill = Object.values(JSON.parse(readFileSync(store, "utf8")) as Record<string, { pending?: { tx_hash?: string } }>);
        inFlightAtKill.push(afterKill.filter((r) => r.pending && !r.pending.tx_hash).length);
        const all: RenewalReport[] = [...first.reports];
        let renewed = new Set<string>();
        for (let wave = 0; wave < 6 && renewed.size < 200; wave++) {
          const run = await runCli(running.apiUrl, ["--subscriptions", file, "--store", store, "--concurrency", "16"]);
          progress.push(run.stderr.trim());
          all.push(...run.reports);
          const records = JSON.parse(readFileSync(store, "utf8")) as Record<string, { renewed_period?: number }>;
          renewed = new Set(Object.values(records).flatMap((r) => (r.renewed_period === period ? [JSON.stringify(r)] : [])));
          await h.chain.mine(2); // what the local chain needs to settle (FINALITY 2)
        }
        assert.equal(renewed.size, 200, `period ${period}: every subscription renewed (${progress.join(" | ")})`);
        assert.deepEqual(
          all.filter((r) => r.outcome === "failed"),
          [],
          "no failure reported, CONFIRMING included",
        );
        assert.isTrue(
          all.some((r) => r.outcome === "waiting" && r.reason === "CONFIRMING"),
          "charges were followed through CONFIRMING",
        );
      }
    } finally {
      await running.close();
    }
    assert.isAbove(Math.max(...inFlightAtKill), 0, `a kill left charges in flight (${inFlightAtKill.join(", ")}): the restart had to recover them`);
    const logs = parseEventLogs({
      abi: recurringChargesAbi,
      eventName: "Charged",
      logs: await h.chain.publicClient.getLogs({ address: h.service.deployment.contracts.RecurringCharges.address, fromBlock, toBlock: "latest" }),
    });
    const charged = logs.map((l) => `${l.args.subscriptionId}:${l.args.periodIndex}`);
    assert.equal(charged.length, 600, "three periods of 200 subscriptions, no more");
    assert.equal(new Set(charged).size, 600, "each charged once");
    const expected = subs.flatMap((s) => [0, 1, 2].map((p) => `${s.id}:${p}`));
    assert.sameMembers(charged, expected);
    assert.match(progress.at(-1)!, /^wave 1: 200\/200 subscriptions in [0-9.]+ s: \d+ renewed, \d+ waiting, 0 failed, 0 revoked, 0 ended$/);
  });

  it("a payer who empties their wallet goes through the retry schedule (1 h, 6 h, 24 h, 72 h, on a fake clock) and is renewed once topped up; a revoked subscription is reported revoked", async () => {
    const [poor, revoked] = await manySubscriptions(h, h.api, 2, { period: 30 * 24 * HOUR });
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const keeper = h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    const token = h.service.deployment.token.address;
    const running = await listen(h.service);
    try {
      let now = Date.UTC(2030, 0, 1);
      const store = new MemoryRenewalStore();
      let apiCalls = 0;
      const counted: typeof fetch = (input, init) => {
        apiCalls++;
        return fetch(input, init);
      };
      const job = new RenewalJob({ api: new PaymentServiceClient({ baseUrl: running.apiUrl, fetch: counted }), store, now: () => now });
      const list = [poor!, revoked!].map((s) => ({ subscription_id: s.id, subscription: s.subscription }));

      // The payer revokes the second; then moves every unit away.
      const session = await h.api.post("/v1/subscriptions/revoke/session").send({ subscription: revoked!.subscription });
      const prepared = await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: session.body.cancel_token });
      await sendPrepared(h, payer, prepared.body);
      const balance = await h.chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [payer.address] });
      await send(h.chain, payer, { address: token, abi: erc20Abi, functionName: "transfer", args: [keeper.address, balance] });

      const byId = (reports: RenewalReport[], id: Hex) => reports.find((r) => r.subscription_id === id)!;
      let reports = await job.wave(list);
      assert.deepEqual(byId(reports, revoked!.id), { subscription_id: revoked!.id, outcome: "revoked" });
      assert.deepInclude(byId(reports, poor!.id), {
        outcome: "failed",
        reason: "INSUFFICIENT_BALANCE",
        attempts: 1,
        period_index: 0,
        next_retry: now + 3600_000,
      });
      // Before the next step nothing is asked of the service; at each step one attempt, then the next step.
      const before = apiCalls;
      now += 1800_000;
      reports = await job.wave([list[0]!]);
      assert.deepInclude(byId(reports, poor!.id), { outcome: "failed", attempts: 1, next_retry: now + 1800_000 });
      assert.equal(apiCalls, before, "a waiting retry asks the service nothing");
      let due = now + 1800_000;
      for (const [i, step] of DEFAULT_RETRY_SCHEDULE.slice(1).entries()) {
        now = due;
        reports = await job.wave(list);
        due = now + step * 1000;
        assert.deepInclude(byId(reports, poor!.id), { outcome: "failed", reason: "INSUFFICIENT_BALANCE", attempts: i + 2, next_retry: due });
        assert.deepEqual(byId(reports, revoked!.id), { subscription_id: revoked!.id, outcome: "revoked" }, "revoked stays revoked, never charged");
      }
      // Topped up before the last step (72 h after the fourth failure): that attempt renews.
      await send(h.chain, keeper, { address: token, abi: erc20Abi, functionName: "transfer", args: [payer.address, balance] });
      now = due - 1000;
      reports = await job.wave(list);
      assert.deepInclude(byId(reports, poor!.id), { outcome: "failed", attempts: 4, next_retry: due }, "not before the step");
      now = due;
      reports = await job.wave(list);
      const followed = byId(reports, poor!.id);
      assert.deepInclude(followed, { outcome: "waiting", reason: "CONFIRMING", period_index: 0 });
      await h.chain.mine(2);
      reports = await job.wave(list);
      assert.deepInclude(byId(reports, poor!.id), { outcome: "renewed", period_index: 0 });
      assert.equal((byId(reports, poor!.id) as { tx_hash: Hex }).tx_hash, (followed as { tx_hash: Hex }).tx_hash, "the same transaction, followed");
      reports = await job.wave(list);
      assert.deepInclude(byId(reports, poor!.id), { outcome: "waiting", reason: "NOT_DUE" });
    } finally {
      await running.close();
    }
  });
});
