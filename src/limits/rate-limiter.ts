import type { Database } from "../store/database.js";

export type HitResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts hits per key in fixed windows; past the limit, says how long until the window resets. */
export interface RateLimiter {
  readonly limit: number;
  hit(key: string): HitResult | Promise<HitResult>;
}

/**
 * A fixed-window counter per key (per client IP, per intent…), one window a minute by default.
 * In memory: each API instance counts its own traffic (an abuse ceiling, not a quota).
 */
export class FixedWindowLimiter implements RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  #lastPrune = 0;

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one hit for `key`; when over the limit, says how many seconds until the window resets. */
  hit(key: string): HitResult {
    const now = this.now();
    this.#prune(now);
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count++;
    if (window.count <= this.limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000)) };
  }

  #prune(now: number): void {
    if (now - this.#lastPrune < this.windowMs) return;
    this.#lastPrune = now;
    for (const [key, window] of this.#windows) if (now - window.start >= this.windowMs) this.#windows.delete(key);
  }
}

/**
 * The same fixed windows kept in PostgreSQL (`rate_windows`), so the ceiling holds across every
 * instance sharing the store: one upsert per hit. If the store cannot answer, the hit is allowed
 * (an abuse ceiling must not take the API down with the store). Windows long over are deleted in
 * bounded batches, at most once a window.
 */
export class SharedWindowLimiter implements RateLimiter {
  #lastPrune = 0;

  /** @param name Keeps this limiter's keys apart from the others' in the shared table. */
  constructor(
    private readonly db: Pick<Database, "query">,
    readonly name: string,
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  async hit(key: string): Promise<HitResult> {
    const now = this.now();
    this.#prune(now);
    let row: { window_start: string | number; hits: string | number } | undefined;
    try {
      [row] = await this.db.query<{ window_start: string | number; hits: string | number }>(
        `INSERT INTO rate_windows (key, window_start, hits) VALUES ($1, $2, 1)
         ON CONFLICT (key) DO UPDATE SET
           window_start = CASE WHEN rate_windows.window_start <= $2::bigint - $3::bigint THEN $2::bigint ELSE rate_windows.window_start END,
           hits = CASE WHEN rate_windows.window_start <= $2::bigint - $3::bigint THEN 1 ELSE rate_windows.hits + 1 END
         RETURNING window_start, hits`,
        [`${this.name}|${key}`, now, this.windowMs],
      );
    } catch (error) {
      this.onError(error);
      return { allowed: true };
    }
    if (Number(row!.hits) <= this.limit) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((Number(row!.window_start) + this.windowMs - now) / 1000)) };
  }

  #prune(now: number): void {
    if (now - this.#lastPrune < this.windowMs) return;
    this.#lastPrune = now;
    this.db
      .query("DELETE FROM rate_windows WHERE key IN (SELECT key FROM rate_windows WHERE window_start < $1 LIMIT 1000)", [now - 2 * this.windowMs])
      .catch((error) => this.onError(error));
  }
}

/** Lets at most `limit` tasks run at once and `queue` wait; refuses the rest at once. */
export class ConcurrencyGate {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(
    readonly limit: number,
    readonly queue: number,
  ) {}

  /** Runs `task` when a slot frees, or returns null when the queue is full. */
  async run<T>(task: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.#running >= this.limit) {
      if (this.#waiting.length >= this.queue) return null;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return { value: await task() };
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
