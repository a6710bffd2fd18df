/**
 * A fixed-window counter per key (per client IP, per intent…), one window a minute by default.
 * In memory: each API instance counts its own traffic (an abuse ceiling, not a quota).
 */
export class FixedWindowLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  #lastPrune = 0;

  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one hit for `key`; when over the limit, says how many seconds until the window resets. */
  hit(key: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
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
