import { assert } from "chai";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../../client/src/index.js";
import { JsonFileRenewalStore, MemoryRenewalStore, RenewalJob, type RenewalJobOptions, type RenewalRecord } from "../../client/src/renewals.js";

type Api = RenewalJobOptions["api"];
const SUB = { subscription_id: "0xsub", subscription: "sc.test" };

/** A service stand-in that records every call, answering from the test's script. */
function fakeApi(script: {
  period?: number;
  state?: "PENDING" | "ACTIVE" | "REVOKED" | "ENDED";
  charge?: () => unknown;
  recover?: (period: number) => unknown;
}) {
  const calls: string[] = [];
  const api = {
    subscriptionState: async () => {
      calls.push("state");
      return { state: script.state ?? "ACTIVE", period_index: script.period ?? 0 };
    },
    charge: async () => {
      calls.push("charge");
      return script.charge!();
    },
    recoverCharge: async (b: { period_index: number }) => {
      calls.push(`recover:${b.period_index}`);
      return script.recover ? script.recover(b.period_index) : { found: false, code: "PAYMENT_NOT_FOUND", as_of_block: "1" };
    },
  };
  return { api: api as unknown as Api, calls };
}

const answer = (status: "CHARGED" | "ALREADY_CHARGED" | "CONFIRMING", period = 0, tx_hash = "0xt1") => ({ status, period_index: period, tx_hash });

describe("renewal job (client/src/renewals.ts) against a scripted service", () => {
  it("stores the intent (subscription, period) before it calls /v1/charges", async () => {
    const store = new MemoryRenewalStore();
    let seen: RenewalRecord | undefined;
    const { api } = fakeApi({
      period: 3,
      charge: async () => {
        seen = await store.get(SUB.subscription_id);
        return answer("CHARGED", 3);
      },
    });
    const [report] = await new RenewalJob({ api, store }).wave([SUB]);
    assert.deepEqual(seen?.pending, { period_index: 3 }, "the intent was durable when the charge went out");
    assert.deepEqual(report, { subscription_id: "0xsub", outcome: "renewed", period_index: 3, tx_hash: "0xt1" });
    assert.notProperty((await store.get("0xsub"))!, "pending");
  });

  it("a charge whose answer was lost: the next wave asks recover for that period before charging again", async () => {
    const store = new MemoryRenewalStore();
    let lose = true;
    const script = {
      period: 5,
      charge: () => {
        if (lose) throw new TypeError("fetch failed");
        return answer("ALREADY_CHARGED", 5);
      },
      recover: (period: number) => ({ found: true, period_index: period, tx_hash: "0xfound" }),
    };
    const { api, calls } = fakeApi(script);
    const job = new RenewalJob({ api, store });
    const [lost] = await job.wave([SUB]);
    assert.deepInclude(lost, { outcome: "waiting", reason: "RETRY", detail: "fetch failed" }, "no answer is not a failure");
    calls.length = 0;
    lose = false;
    const [found] = await job.wave([SUB]);
    assert.deepEqual(calls, ["recover:5"], "found by recover: not charged again");
    assert.deepEqual(found, { subscription_id: "0xsub", outcome: "renewed", period_index: 5, tx_hash: "0xfound" });

    // Not found by recover: then (and only then) charged again.
    const store2 = new MemoryRenewalStore();
    await store2.put({ subscription_id: "0xsub", pending: { period_index: 5 } });
    const second = fakeApi({ period: 5, charge: () => answer("CHARGED", 5) });
    await new RenewalJob({ api: second.api, store: store2 }).wave([SUB]);
    assert.deepEqual(second.calls, ["recover:5", "state", "charge"]);
  });

  it("CONFIRMING is followed with the same call until it settles; never a failure; a settled period is not charged again", async () => {
    const store = new MemoryRenewalStore();
    const answers = [answer("CONFIRMING", 0, "0xsame"), answer("CHARGED", 0, "0xsame")];
    const { api, calls } = fakeApi({ charge: () => answers.shift() });
    const job = new RenewalJob({ api, store });
    assert.deepEqual((await job.wave([SUB]))[0], {
      subscription_id: "0xsub",
      outcome: "waiting",
      reason: "CONFIRMING",
      period_index: 0,
      tx_hash: "0xsame",
      until: null,
    });
    assert.deepEqual((await store.get("0xsub"))!.pending, { period_index: 0, tx_hash: "0xsame" });
    assert.deepEqual((await job.wave([SUB]))[0], { subscription_id: "0xsub", outcome: "renewed", period_index: 0, tx_hash: "0xsame" });
    assert.deepEqual(calls, ["state", "charge", "state", "charge"], "no recover while the same period is followed");
    calls.length = 0;
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "waiting", reason: "NOT_DUE" });
    assert.deepEqual(calls, ["state"]);
  });

  it("honours Retry-After (429, NOT_DUE): nothing is asked before it", async () => {
    let now = 1_000_000;
    const store = new MemoryRenewalStore();
    const errors = [new ApiError(429, "RATE_LIMITED", "RETRY", 7), new ApiError(400, "NOT_DUE", "RETRY", 60)];
    const { api, calls } = fakeApi({
      charge: () => {
        const e = errors.shift();
        if (e) throw e;
        return answer("CHARGED");
      },
    });
    const job = new RenewalJob({ api, store, now: () => now });
    assert.deepEqual((await job.wave([SUB]))[0], { subscription_id: "0xsub", outcome: "waiting", reason: "RETRY", until: now + 7000 });
    now += 6999;
    calls.length = 0;
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "waiting", reason: "RETRY" });
    assert.deepEqual(calls, [], "not before Retry-After");
    now += 1;
    assert.deepEqual((await job.wave([SUB]))[0], { subscription_id: "0xsub", outcome: "waiting", reason: "NOT_DUE", until: now + 60_000 });
    now += 60_000;
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "renewed" });
  });

  it("failed payments follow the merchant's schedule; revoked and ended are final", async () => {
    let now = 0;
    const store = new MemoryRenewalStore();
    const { api, calls } = fakeApi({
      charge: () => {
        throw new ApiError(400, "INSUFFICIENT_ALLOWANCE", "ASK_PAYER", undefined);
      },
    });
    const job = new RenewalJob({ api, store, now: () => now, retrySchedule: [10, 20] });
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "failed", reason: "INSUFFICIENT_ALLOWANCE", attempts: 1, next_retry: 10_000 });
    now = 10_000;
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "failed", attempts: 2, next_retry: 30_000 });
    now = 30_000;
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "failed", attempts: 3, next_retry: null });
    calls.length = 0;
    now = 1e9;
    assert.deepInclude((await job.wave([SUB]))[0], { outcome: "failed", attempts: 3, next_retry: null }, "the same period: no more attempts");
    assert.deepEqual(calls, ["state"]);

    for (const [code, outcome] of [
      ["PERMISSION_REVOKED", "revoked"],
      ["SUBSCRIPTION_EXPIRED", "ended"],
    ] as const) {
      const s = new MemoryRenewalStore();
      const refused = fakeApi({
        charge: () => {
          throw new ApiError(400, code, "STOP", undefined);
        },
      });
      const j = new RenewalJob({ api: refused.api, store: s });
      assert.deepEqual((await j.wave([SUB]))[0], { subscription_id: "0xsub", outcome });
      refused.calls.length = 0;
      assert.deepEqual((await j.wave([SUB]))[0], { subscription_id: "0xsub", outcome });
      assert.deepEqual(refused.calls, [], `${outcome} is final: no call`);
    }
    const ended = fakeApi({ state: "ENDED" });
    assert.deepEqual((await new RenewalJob({ api: ended.api, store: new MemoryRenewalStore() }).wave([SUB]))[0], {
      subscription_id: "0xsub",
      outcome: "ended",
    });
  });

  it("a period's failures and retry steps are its own: a new period is tried at its first wave, whatever step was pending", async () => {
    // A 2-day period; the payer is empty for the first 50 hours, so period 0 fails at hours 0, 1, 7 and 31
    // (the default 1 h, 6 h, 24 h steps; the 72 h step would be hour 103, inside period 2).
    const HOUR = 3600_000;
    const PERIOD = 48 * HOUR;
    let now = 0;
    const charged: Array<{ period: number; at: number }> = [];
    const attempts: number[] = [];
    const periodAt = (t: number) => Math.floor(t / PERIOD);
    const api = {
      subscriptionState: async () => ({ state: "ACTIVE", period_index: periodAt(now), next_period_at: ((periodAt(now) + 1) * PERIOD) / 1000 }),
      charge: async () => {
        attempts.push(now / HOUR);
        if (now < 50 * HOUR) throw new ApiError(400, "INSUFFICIENT_BALANCE", "ASK_PAYER", undefined);
        if (charged.some((c) => c.period === periodAt(now))) return answer("ALREADY_CHARGED", periodAt(now));
        charged.push({ period: periodAt(now), at: now });
        return answer("CHARGED", periodAt(now));
      },
      recoverCharge: async () => ({ found: false, code: "PAYMENT_NOT_FOUND", as_of_block: "1" }),
    } as unknown as Api;
    const store = new MemoryRenewalStore();
    const job = new RenewalJob({ api, store, now: () => now });
    const reports = [];
    // A wave every hour for 150 hours (periods 0, 1, 2 and the start of 3).
    for (let hour = 0; hour <= 150; hour++) {
      now = hour * HOUR;
      reports.push(...(await job.wave([SUB])));
    }
    assert.deepEqual(attempts.slice(0, 4), [0, 1, 7, 31], "period 0 follows the schedule");
    assert.deepInclude(reports[31], { outcome: "failed", attempts: 4, period_index: 0, next_retry: 48 * HOUR }, "the step past the period's end is not taken");
    assert.deepEqual(
      charged.map((c) => c.period),
      [1, 2, 3],
      "every period from the one the payer was funded in is charged",
    );
    for (const c of charged) assert.equal(periodAt(c.at), c.period, `period ${c.period} charged inside itself (hour ${c.at / HOUR})`);
    assert.deepEqual(attempts.slice(4), [48, 49, 55, 96, 144], "period 1 tried at its first wave, then its own schedule; periods 2 and 3 at theirs");
  });

  it("a failed store write is that subscription's report, never the wave's", async () => {
    const store = new MemoryRenewalStore();
    const put = store.put.bind(store);
    store.put = async (record) => {
      if (record.subscription_id === "0xsub" && record.renewed_period !== undefined) throw new Error("disk full");
      return put(record);
    };
    const { api } = fakeApi({ period: 2, charge: () => answer("CHARGED", 2) });
    const other = { subscription_id: "0xother", subscription: "sc.other" };
    const reports = await new RenewalJob({ api, store, concurrency: 1 }).wave([SUB, other]);
    assert.deepEqual(reports[0], { subscription_id: "0xsub", outcome: "waiting", reason: "RETRY", until: null, detail: "disk full" });
    assert.deepInclude(reports[1], { subscription_id: "0xother", outcome: "renewed", period_index: 2 }, "the wave went on");
    assert.deepEqual((await store.get("0xsub"))!.pending, { period_index: 2 }, "the intent stays: the next wave recovers the charge");
  });

  it("a 429 holds every call of the job until its Retry-After (the limit is the caller's)", async () => {
    let now = 5_000_000;
    const store = new MemoryRenewalStore();
    let limited = true;
    const { api, calls } = fakeApi({
      charge: () => {
        if (limited) throw new ApiError(429, "RATE_LIMITED", "RETRY", 30);
        return answer("CHARGED");
      },
    });
    const job = new RenewalJob({ api, store, now: () => now, concurrency: 1 });
    const others = [1, 2, 3].map((i) => ({ subscription_id: `0x${i}`, subscription: `sc.${i}` }));
    const first = await job.wave([SUB, ...others]);
    assert.deepEqual(calls, ["state", "charge"], "no call after the 429");
    for (const r of first) assert.deepEqual(r, { subscription_id: r.subscription_id, outcome: "waiting", reason: "RETRY", until: now + 30_000 });
    limited = false;
    now += 29_999;
    calls.length = 0;
    await job.wave([SUB, ...others]);
    assert.deepEqual(calls, [], "not before Retry-After");
    now += 1;
    const renewed = await job.wave([SUB, ...others]);
    assert.deepEqual(
      renewed.map((r) => r.outcome),
      ["renewed", "renewed", "renewed", "renewed"],
    );
  });

  it("a 429 met by one worker holds the others between their calls: no charge sent after it", async () => {
    const now = 5_000_000;
    const calls: string[] = [];
    // Worker 1's state read is answered 429 while worker 2's is in flight; worker 2's charge would follow it.
    let releaseSecond!: () => void;
    const secondState = new Promise<void>((resolve) => (releaseSecond = resolve));
    const api = {
      subscriptionState: async (b: { subscription: string }) => {
        calls.push(`state:${b.subscription}`);
        if (b.subscription === "sc.1") {
          await Promise.resolve();
          releaseSecond();
          throw new ApiError(429, "RATE_LIMITED", "RETRY", 30);
        }
        await secondState;
        await new Promise((resolve) => setImmediate(resolve));
        return { state: "ACTIVE", period_index: 0 };
      },
      charge: async (b: { subscription: string }) => {
        calls.push(`charge:${b.subscription}`);
        return answer("CHARGED");
      },
      recoverCharge: async () => ({ found: false, code: "PAYMENT_NOT_FOUND", as_of_block: "1" }),
    } as unknown as Api;
    const job = new RenewalJob({ api, store: new MemoryRenewalStore(), now: () => now, concurrency: 2 });
    const reports = await job.wave([1, 2, 3].map((i) => ({ subscription_id: `0x${i}`, subscription: `sc.${i}` })));
    assert.deepEqual(calls, ["state:sc.1", "state:sc.2"], "worker 2 sent no charge after worker 1's 429; nobody called again");
    assert.equal(job.heldUntil, now + 30_000);
    for (const r of reports) assert.deepEqual(r, { subscription_id: r.subscription_id, outcome: "waiting", reason: "RETRY", until: now + 30_000 });
  });

  it("the JSON-file store keeps records across instances, in one whole file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "renewal-store-"));
    try {
      const path = join(dir, "renewals.json");
      const a = new JsonFileRenewalStore(path);
      assert.isUndefined(await a.get("0xa"));
      await Promise.all(Array.from({ length: 20 }, (_, i) => a.put({ subscription_id: `0x${i}`, renewed_period: i })));
      const b = new JsonFileRenewalStore(path);
      assert.equal((await b.get("0x7"))!.renewed_period, 7);
      assert.lengthOf(Object.keys(JSON.parse(readFileSync(path, "utf8"))), 20);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
