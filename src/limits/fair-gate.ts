/**
 * Lets at most `limit` tasks run at once, each caller's waiting tasks in a queue of its own, and
 * gives a freed slot to the callers in turn: one caller's tasks wait behind its own, never behind
 * everyone's. A caller whose own queue is full is refused at once (null), whatever the others do;
 * so is a new caller when `callers` others already wait.
 */
export class FairGate {
  #running = 0;
  /** Callers with tasks waiting, in the order they are served (a served caller goes to the back). */
  readonly #turns: string[] = [];
  readonly #waiting = new Map<string, Array<() => void>>();

  constructor(
    readonly limit: number,
    /** Tasks one caller may have waiting. */
    readonly perCaller: number,
    /** Callers that may be waiting at once. */
    readonly callers = 256,
  ) {}

  /** Runs `task` for `caller` when its turn comes, or returns null when its queue is full. */
  async run<T>(caller: string, task: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.#running >= this.limit) {
      let queue = this.#waiting.get(caller);
      if (!queue) {
        if (this.#turns.length >= this.callers) return null;
        queue = [];
        this.#waiting.set(caller, queue);
        this.#turns.push(caller);
      }
      if (queue.length >= this.perCaller) return null;
      await new Promise<void>((resolve) => queue.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return { value: await task() };
    } finally {
      this.#next();
    }
  }

  /** Hands the freed slot to the next caller in turn, or frees it. */
  #next(): void {
    const caller = this.#turns.shift();
    if (caller === undefined) {
      this.#running--;
      return;
    }
    const queue = this.#waiting.get(caller)!;
    const wake = queue.shift()!;
    if (queue.length > 0) this.#turns.push(caller);
    else this.#waiting.delete(caller);
    wake();
  }
}
