/**
 * The renewal job: charges what is due among the merchant's subscriptions, one wave at a time, and
 * says what happened to each. The service keeps no subscription lifecycle and runs no scheduler; this
 * is the loop the spec leaves to the merchant, with its traps handled:
 * - the intent to charge (subscription, period) is written to the store BEFORE POST /v1/charges, so
 *   after a crash the job asks POST /v1/charges/recover for that period before charging again;
 * - CONFIRMING is followed with the same call (the service answers with the same transaction) until
 *   it settles: it is never a failure;
 * - ALREADY_CHARGED is success; NOT_DUE and every RETRY answer (429, RPC_BUSY, …) wait their
 *   Retry-After;
 * - a failed payment (the payer's balance or allowance) is retried on a schedule (1 h, 6 h, 24 h,
 *   72 h by default), then left until the next period. The failures and their steps belong to their
 *   period: a new period is tried at the first wave after it begins, whatever step was pending;
 * - a 429 holds every call of the job (the limit is the caller's) until its Retry-After;
 * - PERMISSION_REVOKED is revoked, SUBSCRIPTION_EXPIRED (or state ENDED) ended: never charged again.
 *
 * @example
 * const job = new RenewalJob({ api: new PaymentServiceClient({ baseUrl }), store: new JsonFileRenewalStore("renewals.json") });
 * const reports = await job.wave(subscriptions); // [{ subscription_id, outcome: "renewed", period_index, tx_hash }, …]
 */
import { ApiError, type PaymentServiceClient } from "./index.js";
import { replaceFile, type ReplaceFileSystem } from "./replace-file.js";

/** A subscription the merchant charges: its id and its capability (from finalize or POST /v1/links/subscriptions). */
export interface RenewableSubscription {
  subscription_id: string;
  subscription: string;
}

/** What the job keeps per subscription between waves (and across crashes). */
export interface RenewalRecord {
  subscription_id: string;
  /** The last period charged and settled. */
  renewed_period?: number;
  /** Written before POST /v1/charges: the period being charged, and its transaction once the service named one. */
  pending?: { period_index: number; tx_hash?: string };
  /** Failed attempts for `failed_period`. */
  failures?: number;
  failed_period?: number;
  /** Unix milliseconds: when `failed_period` ends, and its retry steps with it (absent: no later period, or not known). */
  failed_period_ends_at?: number;
  last_error?: string;
  /** Unix milliseconds: no call before this (a retry step or a Retry-After); null with `failed_period`: none until the next period. */
  retry_at?: number | null;
  /** Set once the subscription can never be charged again. */
  final?: "revoked" | "ended";
}

/** Where the job keeps its records: in memory, a JSON file, or your database (docs/merchants.md shows a PostgreSQL table). */
export interface RenewalStore {
  get(subscriptionId: string): Promise<RenewalRecord | undefined>;
  /** Must be durable when it resolves: the job charges only after the intent is stored. */
  put(record: RenewalRecord): Promise<void>;
}

/** What happened to one subscription in a wave. Times are unix milliseconds by the job's clock. */
export type RenewalReport =
  | { subscription_id: string; outcome: "renewed"; period_index: number; tx_hash?: string }
  | {
      subscription_id: string;
      outcome: "waiting";
      /** CONFIRMING: the charge is on chain, not settled (the same transaction is followed); NOT_DUE: this period is renewed or has not begun; RETRY: the service asked to come back later. */
      reason: "CONFIRMING" | "NOT_DUE" | "RETRY";
      period_index?: number;
      tx_hash?: string;
      /** When the job calls again (null: at the next wave). */
      until: number | null;
      /** RETRY without an answer from the service (a network failure): what failed. */
      detail?: string;
    }
  | { subscription_id: string; outcome: "failed"; reason: string; period_index?: number; attempts: number; next_retry: number | null }
  | { subscription_id: string; outcome: "revoked" }
  | { subscription_id: string; outcome: "ended" };

/** A period by the service's state: its index and when it ends (unix milliseconds). */
interface CurrentPeriod {
  period_index: number;
  ends_at: number;
}

/** The default retry schedule of a failed payment, in seconds after each failure: 1 h, 6 h, 24 h, 72 h. */
export const DEFAULT_RETRY_SCHEDULE = [3600, 6 * 3600, 24 * 3600, 72 * 3600] as const;

export interface RenewalJobOptions {
  api: Pick<PaymentServiceClient, "charge" | "recoverCharge" | "subscriptionState">;
  store: RenewalStore;
  /** Seconds after the 1st, 2nd, … failure of a period before the next attempt; after the last, none until the next period. */
  retrySchedule?: readonly number[];
  /** Subscriptions handled at once in a wave (the service batches charges that arrive together). */
  concurrency?: number;
  /** Unix milliseconds; the wall clock by default. */
  now?: () => number;
}

/** Thrown instead of a call while a 429's Retry-After holds the job. */
class Held extends Error {}

export class RenewalJob {
  readonly #api: RenewalJobOptions["api"];
  readonly #store: RenewalStore;
  readonly #schedule: readonly number[];
  readonly #concurrency: number;
  readonly #now: () => number;
  /** Unix milliseconds: a 429's Retry-After, which holds every call of this job (the limit is per caller, not per subscription). */
  #heldUntil = 0;

  constructor(options: RenewalJobOptions) {
    const api = options.api;
    // Every call passes the hold, and a 429 holds the job the moment it is read, before its record is stored.
    this.#api = {
      charge: (body, o) => this.#held(() => api.charge(body, o)),
      recoverCharge: (body, o) => this.#held(() => api.recoverCharge(body, o)),
      subscriptionState: (body, o) => this.#held(() => api.subscriptionState(body, o)),
    };
    this.#store = options.store;
    this.#schedule = options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE;
    this.#concurrency = Math.max(1, options.concurrency ?? 8);
    this.#now = options.now ?? (() => Date.now());
  }

  /** Unix milliseconds before which this job sends nothing: the latest 429's Retry-After (0: not held). A scheduler's earliest next run. */
  get heldUntil(): number {
    return this.#heldUntil;
  }

  async #held<T>(call: () => Promise<T>): Promise<T> {
    if (this.#heldUntil > this.#now()) throw new Held();
    try {
      return await call();
    } catch (error) {
      if (error instanceof ApiError && error.status === 429) this.#heldUntil = Math.max(this.#heldUntil, this.#now() + (error.retryAfter ?? 1) * 1000);
      throw error;
    }
  }

  /** One pass over `subscriptions`: each is charged if due, followed if confirming, and reported. */
  async wave(subscriptions: readonly RenewableSubscription[], onReport?: (report: RenewalReport) => void): Promise<RenewalReport[]> {
    const reports: RenewalReport[] = new Array(subscriptions.length);
    let next = 0;
    const worker = async () => {
      while (next < subscriptions.length) {
        const i = next++;
        const report = await this.renew(subscriptions[i]!);
        reports[i] = report;
        onReport?.(report);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, subscriptions.length) }, worker));
    return reports;
  }

  /** One subscription: what {@link wave} does for each. */
  async renew(s: RenewableSubscription): Promise<RenewalReport> {
    const id = s.subscription_id;
    let record: RenewalRecord;
    try {
      record = (await this.#store.get(id)) ?? { subscription_id: id };
    } catch (error) {
      return { subscription_id: id, outcome: "waiting", reason: "RETRY", until: null, detail: describe(error) };
    }
    if (record.final) return { subscription_id: id, outcome: record.final };
    const now = this.#now();
    if (this.#waitsInItsPeriod(record, now)) return this.#gated(record);
    if (this.#heldUntil > now) return { subscription_id: id, outcome: "waiting", reason: "RETRY", until: this.#heldUntil };
    /** The current period and when it ends (unix ms), by the state read below: its failures' retry steps end with it. */
    let current: CurrentPeriod | undefined;
    // Every store write below is awaited inside the try: a failed write is this subscription's report, never the wave's.
    try {
      // A charge whose answer was lost (a crash, a timeout): find it before charging again.
      if (record.pending && !record.pending.tx_hash) {
        const found = await this.#api.recoverCharge({ subscription: s.subscription, period_index: record.pending.period_index });
        if (found.found) return await this.#renewed(record, found.period_index, found.tx_hash);
      }
      const state = await this.#api.subscriptionState({ subscription: s.subscription });
      if (state.period_index !== null && typeof state.next_period_at === "number")
        current = { period_index: state.period_index, ends_at: state.next_period_at * 1000 };
      if (state.state === "REVOKED") return await this.#final(record, "revoked");
      if (state.state === "ENDED") return await this.#final(record, "ended");
      // A confirming charge of a period that has since ended: the chain says how it went.
      if (record.pending?.tx_hash && state.period_index !== record.pending.period_index) {
        const found = await this.#api.recoverCharge({ subscription: s.subscription, period_index: record.pending.period_index });
        if (found.found) return await this.#renewed(record, found.period_index, found.tx_hash);
        delete record.pending;
      }
      if (!record.pending && (state.period_index === null || state.period_index === record.renewed_period))
        return {
          subscription_id: id,
          outcome: "waiting",
          reason: "NOT_DUE",
          ...(record.renewed_period !== undefined ? { period_index: record.renewed_period } : {}),
          until: null,
        };
      if (record.failed_period === state.period_index && record.retry_at === null)
        return {
          subscription_id: id,
          outcome: "failed",
          reason: record.last_error ?? "UNKNOWN",
          period_index: state.period_index!,
          attempts: record.failures ?? 0,
          next_retry: null,
        };
      if (!record.pending?.tx_hash) {
        // The intent, stored before the call: a restart recovers this period first.
        record.pending = { period_index: state.period_index! };
        delete record.retry_at;
        await this.#store.put(record);
      }
      const answer = await this.#api.charge({ subscription: s.subscription });
      if (answer.status === "CONFIRMING") {
        record.pending = { period_index: answer.period_index, ...(answer.tx_hash ? { tx_hash: answer.tx_hash } : {}) };
        await this.#store.put(record);
        return {
          subscription_id: id,
          outcome: "waiting",
          reason: "CONFIRMING",
          period_index: answer.period_index,
          ...(answer.tx_hash ? { tx_hash: answer.tx_hash } : {}),
          until: null,
        };
      }
      return await this.#renewed(record, answer.period_index, answer.tx_hash);
    } catch (error) {
      // Another call of this wave met the limit: nothing was sent for this one; a stored intent is recovered first next time.
      if (error instanceof Held) return { subscription_id: id, outcome: "waiting", reason: "RETRY", until: this.#heldUntil };
      // No answer (the network, a timeout, the store): whatever was sent is found by recover at the next wave, from the stored intent.
      if (!(error instanceof ApiError)) return { subscription_id: id, outcome: "waiting", reason: "RETRY", until: null, detail: describe(error) };
      try {
        return await this.#refused(record, error, current);
      } catch (stored) {
        return { subscription_id: id, outcome: "waiting", reason: "RETRY", until: null, detail: describe(stored) };
      }
    }
  }

  /**
   * Whether the record's retry_at still holds: a Retry-After always does; a failure's step only
   * within the failed period, so a new period is tried at the first wave after it begins.
   */
  #waitsInItsPeriod(record: RenewalRecord, now: number): boolean {
    if (record.failed_period !== undefined && record.failed_period_ends_at !== undefined && now >= record.failed_period_ends_at) return false;
    if (typeof record.retry_at === "number") return record.retry_at > now;
    // null: the schedule is spent; nothing more this period (asked again once the period is known to have ended).
    return record.retry_at === null && record.failed_period !== undefined && record.failed_period_ends_at !== undefined;
  }

  async #renewed(record: RenewalRecord, period: number, txHash?: string): Promise<RenewalReport> {
    record.renewed_period = Math.max(period, record.renewed_period ?? -1);
    delete record.pending;
    delete record.failures;
    delete record.failed_period;
    delete record.failed_period_ends_at;
    delete record.last_error;
    delete record.retry_at;
    await this.#store.put(record);
    return { subscription_id: record.subscription_id, outcome: "renewed", period_index: period, ...(txHash ? { tx_hash: txHash } : {}) };
  }

  async #final(record: RenewalRecord, final: "revoked" | "ended"): Promise<RenewalReport> {
    record.final = final;
    delete record.pending;
    await this.#store.put(record);
    return { subscription_id: record.subscription_id, outcome: final };
  }

  #gated(record: RenewalRecord): RenewalReport {
    if (record.failed_period !== undefined)
      return {
        subscription_id: record.subscription_id,
        outcome: "failed",
        reason: record.last_error ?? "UNKNOWN",
        period_index: record.failed_period,
        attempts: record.failures ?? 0,
        next_retry: record.retry_at ?? null,
      };
    return { subscription_id: record.subscription_id, outcome: "waiting", reason: "RETRY", until: record.retry_at ?? null };
  }

  async #refused(record: RenewalRecord, error: ApiError, current: CurrentPeriod | undefined): Promise<RenewalReport> {
    const id = record.subscription_id;
    const now = this.#now();
    if (error.error === "PERMISSION_REVOKED") return this.#final(record, "revoked");
    if (error.error === "SUBSCRIPTION_EXPIRED") return this.#final(record, "ended");
    if (error.error === "PAYMENT_CONFIRMING" || error.action === "WAIT")
      return {
        subscription_id: id,
        outcome: "waiting",
        reason: "CONFIRMING",
        ...(record.pending ? { period_index: record.pending.period_index } : {}),
        until: null,
      };
    if (error.error === "NOT_DUE" || error.action === "RETRY") {
      // Nothing was charged (or it will be found by recover): keep the intent, come back after Retry-After.
      if (error.error === "NOT_DUE") delete record.pending;
      // A Retry-After holds past the end of a failed period: the service asked for it.
      delete record.failed_period_ends_at;
      record.retry_at = now + (error.retryAfter ?? 1) * 1000;
      await this.#store.put(record);
      return { subscription_id: id, outcome: "waiting", reason: error.error === "NOT_DUE" ? "NOT_DUE" : "RETRY", until: record.retry_at };
    }
    // Refused before anything was sent: the payer's balance or allowance (ASK_PAYER), or a request that cannot succeed as is.
    const period = record.pending?.period_index ?? record.failed_period;
    delete record.pending;
    if (period !== undefined && record.failed_period !== period) {
      record.failures = 0;
      delete record.failed_period_ends_at;
    }
    if (period !== undefined) record.failed_period = period;
    if (period !== undefined && period === current?.period_index) record.failed_period_ends_at = current.ends_at;
    record.failures = (record.failures ?? 0) + 1;
    record.last_error = error.error;
    const step = error.action === "ASK_PAYER" || error.action === undefined ? this.#schedule[record.failures - 1] : undefined;
    // A step past the period's end is not taken: the next period is tried when it begins.
    record.retry_at = step === undefined ? null : Math.min(now + step * 1000, record.failed_period_ends_at ?? Number.POSITIVE_INFINITY);
    await this.#store.put(record);
    return {
      subscription_id: id,
      outcome: "failed",
      reason: error.error,
      ...(period !== undefined ? { period_index: period } : {}),
      attempts: record.failures,
      next_retry: record.retry_at,
    };
  }
}

/** An error and its cause in one line (fetch's "fetch failed" says why only in its cause). */
function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { message?: string; code?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(error)}${cause ? ` (${cause})` : ""}`;
}

/** Counts of a wave's reports by outcome, for a progress line. */
export function summarize(reports: readonly RenewalReport[]): Record<RenewalReport["outcome"], number> {
  const counts = { renewed: 0, waiting: 0, failed: 0, revoked: 0, ended: 0 };
  for (const r of reports) counts[r.outcome]++;
  return counts;
}

/** Records in memory: for tests, and for a job whose records live elsewhere. */
export class MemoryRenewalStore implements RenewalStore {
  readonly records = new Map<string, RenewalRecord>();

  async get(subscriptionId: string): Promise<RenewalRecord | undefined> {
    const r = this.records.get(subscriptionId);
    return r ? structuredClone(r) : undefined;
  }

  async put(record: RenewalRecord): Promise<void> {
    this.records.set(record.subscription_id, structuredClone(record));
  }
}

/** The few file operations the JSON-file store needs (Node's `fs/promises`). */
interface FileSystem extends ReplaceFileSystem {
  readFile(path: string, encoding: "utf8"): Promise<string>;
}

/**
 * Records in one JSON file (Node): every put replaces the file whole ({@link replaceFile}: a temporary
 * file of a random name, created exclusively, synced and renamed over it), so a process killed at any
 * point leaves the previous or the new file, never half of one. Puts are serialised. Fits thousands of subscriptions; beyond that, use your database.
 */
export class JsonFileRenewalStore implements RenewalStore {
  #records: Map<string, RenewalRecord> | null = null;
  #writing: Promise<void> = Promise.resolve();
  #fs: FileSystem | null = null;

  constructor(readonly path: string) {}

  async #load(): Promise<Map<string, RenewalRecord>> {
    if (this.#records) return this.#records;
    // A Node built-in, loaded when used: the package has no dependencies and runs in browsers too.
    const specifier: string = "node:fs/promises";
    this.#fs = (await import(specifier)) as FileSystem;
    let text = "{}";
    try {
      text = await this.#fs.readFile(this.path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
    }
    this.#records ??= new Map(Object.entries(JSON.parse(text) as Record<string, RenewalRecord>));
    return this.#records;
  }

  async get(subscriptionId: string): Promise<RenewalRecord | undefined> {
    const r = (await this.#load()).get(subscriptionId);
    return r ? structuredClone(r) : undefined;
  }

  async put(record: RenewalRecord): Promise<void> {
    const records = await this.#load();
    records.set(record.subscription_id, structuredClone(record));
    const write = this.#writing.then(async () => {
      await replaceFile(this.#fs!, this.path, JSON.stringify(Object.fromEntries(records)));
    });
    this.#writing = write.catch(() => {});
    await write;
  }
}
