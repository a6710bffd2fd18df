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
import {
  DEFAULT_RETRY_SCHEDULE,
  JsonFileRenewalStore,
  MemoryRenewalStore,
  RenewalJob,
  type RenewalReport,
  type RenewalStore,
} from "../../client/src/renewals.js";
import { useService } from "../helpers/service.js";
import { manySubscriptions, sendPrepared } from "../helpers/recurring.js";
import { send } from "../helpers/tx.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(root, "client/dist/renew-cli.js");
const HOUR = 3600;

describe("the renewal job (client package) on the local chain", function () {
  this.timeout(600_000);
  // The default rate limits, as a merchant meets them: the job's calls come from one address, and
  // the service's (fake) clock moves only when a test moves it.
  const h = useService({ PORT: "0", OPS_PORT: "0" });
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

  it("200 subscriptions over three periods, the job SIGKILLed and restarted mid-wave, a run a minute: every period of every subscription charged exactly once, no failure for CONFIRMING", async () => {
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
        // A run a minute, as cron starts it: each run's calls (at most ~500) fit the default 600 a minute.
        h.clock.advance(60);
        // A third of the way into the wave, the job dies without a chance to clean up.
        const first = await runCli(running.apiUrl, ["--subscriptions", file, "--store", store, "--concurrency", "16"], 70);
        assert.isTrue(first.killed, "killed mid-wave");
        // The store is whole after a SIGKILL, and holds intents whose answers died with the job: the restart recovers them.
        const afterKill = Object.values(JSON.parse(readFileSync(store, "utf8")) as Record<string, { pending?: { tx_hash?: string } }>);
        inFlightAtKill.push(afterKill.filter((r) => r.pending && !r.pending.tx_hash).length);
        const all: RenewalReport[] = [...first.reports];
        let renewed = new Set<string>();
        for (let wave = 0; wave < 6 && renewed.size < 200; wave++) {
          h.clock.advance(60);
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

  it("at the default rate limits, 150 subscriptions over three periods, the job killed mid-wave and restarted: every 429 waited out as told, no period skipped", async () => {
    const subs = await manySubscriptions(h, h.api, 150, { period: HOUR });
    const list = subs.map((s) => ({ subscription_id: s.id, subscription: s.subscription }));
    const path = join(dir, "limited.json");
    const fromBlock = await h.chain.publicClient.getBlockNumber();
    const running = await listen(h.service);
    /** Retry-After of every 429 met, and every call a job sent while it knew itself held by one. */
    const limited: number[] = [];
    const early: string[] = [];
    /** A job process on the shared clock: at kill() its fetch and its store die together, mid-wave. */
    const startJob = () => {
      let dead = false;
      let job: RenewalJob | undefined;
      /** Unix ms: the latest Retry-After this process was given. */
      let told = 0;
      const file = new JsonFileRenewalStore(path);
      // A write under way at the kill ends (or not) before the next process starts: the restart waits for it.
      const writes = new Set<Promise<unknown>>();
      const tracked = <T>(p: Promise<T>) => {
        writes.add(p);
        return p.finally(() => writes.delete(p));
      };
      const killed = () => Promise.reject(new Error("killed"));
      const store: RenewalStore = { get: (id) => (dead ? killed() : file.get(id)), put: (r) => (dead ? killed() : tracked(file.put(r))) };
      const counted: typeof fetch = async (input, init) => {
        if (dead) throw new TypeError("killed");
        // The job's own word for when it may call again: a call sent before it is one the limit was sure to refuse.
        if (h.clock.ms < job!.heldUntil) early.push(`${String(input)} at ${h.clock.ms}, held until ${job!.heldUntil}`);
        const res = await fetch(input, init);
        if (dead) throw new TypeError("killed");
        if (res.status === 429) {
          const retryAfter = Number(res.headers.get("retry-after"));
          limited.push(retryAfter);
          told = Math.max(told, h.clock.ms + retryAfter * 1000);
        }
        return res;
      };
      const api = new PaymentServiceClient({ baseUrl: running.apiUrl, fetch: counted });
      job = new RenewalJob({ api, store, now: h.clock.now, concurrency: 16 });
      return {
        job,
        told: () => told,
        kill: () => (dead = true),
        gone: () => Promise.allSettled([...writes]),
      };
    };
    const renewed = new Map<string, number[]>(list.map((s) => [s.subscription_id, []]));
    try {
      for (let period = 0; period < 3; period++) {
        if (period > 0) await h.chain.advanceTime(HOUR);
        const doomed = startJob();
        let reported = 0;
        // Whatever the dead job's wave does after the kill is lost with it, as with a killed process.
        await doomed.job
          .wave(list, (r) => {
            if (r.outcome === "renewed") renewed.get(r.subscription_id)!.push(r.period_index);
            if (++reported === 50) doomed.kill();
          })
          .catch(() => {});
        await doomed.gone();
        const { job, told } = startJob();
        for (let wave = 0; wave < 40; wave++) {
          const reports = await job.wave(list);
          assert.isAtLeast(job.heldUntil, told(), "the job holds itself for as long as it was told");
          for (const r of reports) if (r.outcome === "renewed") renewed.get(r.subscription_id)!.push(r.period_index);
          assert.deepEqual(
            reports.filter((r) => r.outcome === "failed"),
            [],
            "a 429 or CONFIRMING is never a failure",
          );
          if ([...renewed.values()].every((periods) => periods.includes(period))) break;
          await h.chain.mine(2); // what the local chain needs to settle (FINALITY 2)
          // The scheduler comes back when told: the earliest Retry-After of the wave, if any.
          const untils = reports.flatMap((r) => (r.outcome === "waiting" && r.reason === "RETRY" && r.until !== null ? [r.until] : []));
          if (untils.length) h.clock.ms = Math.max(h.clock.ms, Math.min(...untils));
        }
        for (const [id, periods] of renewed) assert.include(periods, period, `${id}: period ${period} renewed`);
      }
    } finally {
      await running.close();
    }
    assert.isNotEmpty(limited, "the default limits were met (429)");
    assert.deepEqual(early, [], "no call before a Retry-After the job had been given");
    for (const [id, periods] of renewed) assert.deepEqual([...new Set(periods)], [0, 1, 2], `${id}: no period skipped`);
    const logs = parseEventLogs({
      abi: recurringChargesAbi,
      eventName: "Charged",
      logs: await h.chain.publicClient.getLogs({ address: h.service.deployment.contracts.RecurringCharges.address, fromBlock, toBlock: "latest" }),
    });
    const charged = logs.map((l) => `${l.args.subscriptionId}:${l.args.periodIndex}`);
    assert.equal(charged.length, 450, "three periods of 150 subscriptions, each once");
    assert.sameMembers(
      charged,
      subs.flatMap((s) => [0, 1, 2].map((p) => `${s.id}:${p}`)),
    );
  });

  it("a 2-day period and a payer empty for 50 hours: period 1 is charged inside period 1 and period 2 inside period 2 (hourly waves on the chain's clock)", async () => {
    const PERIOD = 48 * HOUR;
    const [sub] = await manySubscriptions(h, h.api, 1, { period: PERIOD });
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const keeper = h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    const token = h.service.deployment.token.address;
    const fromBlock = await h.chain.publicClient.getBlockNumber();
    const running = await listen(h.service);
    try {
      const state = await h.api.post("/v1/subscriptions/state").send({ subscription: sub!.subscription });
      const start = state.body.start as number;
      const balance = await h.chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [payer.address] });
      await send(h.chain, payer, { address: token, abi: erc20Abi, functionName: "transfer", args: [keeper.address, balance] });
      const job = new RenewalJob({ api: new PaymentServiceClient({ baseUrl: running.apiUrl }), store: new MemoryRenewalStore(), now: h.clock.now });
      const list = [{ subscription_id: sub!.id, subscription: sub!.subscription }];
      const failed: string[] = [];
      const renewedAt: Array<{ hour: number; period: number }> = [];
      // A wave every hour from now (a few seconds into period 0): the chain's clock and the service's (the job's) moved together.
      const zero = Number((await h.chain.publicClient.getBlock()).timestamp);
      for (let hour = 0; hour <= 110; hour++) {
        const target = zero + hour * HOUR;
        const latest = Number((await h.chain.publicClient.getBlock()).timestamp);
        if (target > latest) await h.chain.advanceTime(target - latest);
        h.clock.ms = Math.max(target, latest) * 1000;
        if (hour === 50) await send(h.chain, keeper, { address: token, abi: erc20Abi, functionName: "transfer", args: [payer.address, balance] });
        const [report] = await job.wave(list);
        if (report!.outcome === "failed") failed.push(`${hour}:${report!.period_index}:${report!.attempts}`);
        if (report!.outcome === "renewed") renewedAt.push({ hour, period: report!.period_index });
      }
      const charged = parseEventLogs({
        abi: recurringChargesAbi,
        eventName: "Charged",
        logs: await h.chain.publicClient.getLogs({ address: h.service.deployment.contracts.RecurringCharges.address, fromBlock, toBlock: "latest" }),
      });
      const inside = await Promise.all(
        charged.map(async (l) => {
          const { timestamp } = await h.chain.publicClient.getBlock({ blockNumber: l.blockNumber });
          return { period: Number(l.args.periodIndex), periodOfBlock: Math.floor((Number(timestamp) - start) / PERIOD) };
        }),
      );
      assert.deepEqual(
        inside.map((c) => c.period),
        [1, 2],
        `period 0 could not be paid (empty until hour 50); periods 1 and 2 were (renewed: ${JSON.stringify(renewedAt)})`,
      );
      for (const c of inside) assert.equal(c.periodOfBlock, c.period, `period ${c.period} charged inside itself`);
      // Period 0 failed at hours 0, 1, 7 and 31 (1 h, 6 h, 24 h steps); its 72 h step is not taken: period 1 is tried at hour 48.
      assert.includeMembers(failed, ["0:0:1", "1:0:2", "7:0:3", "31:0:4", "48:1:1"], failed.join(" "));
      assert.deepEqual(
        renewedAt.map((r) => r.period),
        [1, 2],
      );
    } finally {
      await running.close();
    }
  });

  it("a payer who empties their wallet goes through the retry schedule (1 h, 6 h, 24 h, 72 h, on a fake clock) and is renewed once topped up; a revoked subscription is reported revoked", async () => {
    const [poor, revoked] = await manySubscriptions(h, h.api, 2, { period: 30 * 24 * HOUR });
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const keeper = h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    const token = h.service.deployment.token.address;
    const running = await listen(h.service);
    try {
      // The job's clock agrees with the chain's (a period's end is read from the chain), as on a server with NTP.
      let now = h.clock.ms;
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
