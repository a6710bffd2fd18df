/** A task waiting for its turn: woken to run, or refused (its place given to another caller). */
interface Waiting {
  wake: () => void;
  refuse: () => void;
}

/**
 * Lets at most `limit` tasks run at once, each caller's waiting tasks in a queue of its own, and
 * gives a freed slot to the callers in turn: one caller's tasks wait behind its own, never behind
 * everyone's. A caller whose own queue is full is refused at once (null), whatever the others do.
 * When `callers` others already wait, a new caller takes the place of the newest task of the caller
 * holding the most places (that task is refused); where each holds one, of the caller last in turn.
 * Many callers never lock out the next one, and a caller holding more than its share gives way first.
 */
export class FairGate {
  #running = 0;
  /** Callers with tasks waiting, in the order they are served (a served caller goes to the back). */
  readonly #turns: string[] = [];
  readonly #waiting = new Map<string, Waiting[]>();

  constructor(
    readonly limit: number,
    /** Tasks one caller may have waiting. */
    readonly perCaller: number,
    /** Callers that may be waiting at once. */
    readonly callers = 256,
  ) {}

  /** Tasks running and tasks waiting now. */
  get held(): { running: number; waiting: number } {
    let waiting = 0;
    for (const queue of this.#waiting.values()) waiting += queue.length;
    return { running: this.#running, waiting };
  }

  /** Runs `task` for `caller` when its turn comes, or returns null when its queue is full or its place was given to another caller. */
  async run<T>(caller: string, task: () => Promise<T>): Promise<{ value: T } | null> {
    if (this.#running >= this.limit) {
      let queue = this.#waiting.get(caller);
      if (!queue) {
        if (this.#turns.length >= this.callers && !this.#evictFromTheMost()) return null;
        queue = [];
        this.#waiting.set(caller, queue);
        this.#turns.push(caller);
      }
      if (queue.length >= this.perCaller) return null;
      const woken = await new Promise<boolean>((resolve) => queue.push({ wake: () => resolve(true), refuse: () => resolve(false) }));
      if (!woken) return null;
    } else {
      this.#running++;
    }
    try {
      return { value: await task() };
    } finally {
      this.#next();
    }
  }

  /** Refuses the newest waiting task of the caller holding the most places, where that is more than one; else {@link #evictLastInTurn}. */
  #evictFromTheMost(): boolean {
    let most: string | null = null;
    let held = 1;
    for (const [caller, queue] of this.#waiting) {
      if (queue.length > held) {
        most = caller;
        held = queue.length;
      }
    }
    if (most === null) return this.#evictLastInTurn();
    const queue = this.#waiting.get(most)!;
    queue.pop()!.refuse();
    return true;
  }

  /**
   * Every waiting caller holds one place: the one last in turn (it would be served last, so it loses
   * the least waiting) makes room, so a crowd of callers never locks the next one out for good.
   */
  #evictLastInTurn(): boolean {
    const caller = this.#turns.pop();
    if (caller === undefined) return false;
    const queue = this.#waiting.get(caller)!;
    this.#waiting.delete(caller);
    for (const waiting of queue) waiting.refuse();
    return true;
  }

  /** Hands the freed slot to the next caller in turn, or frees it. */
  #next(): void {
    const caller = this.#turns.shift();
    if (caller === undefined) {
      this.#running--;
      return;
    }
    const queue = this.#waiting.get(caller)!;
    const waiting = queue.shift()!;
    if (queue.length > 0) this.#turns.push(caller);
    else this.#waiting.delete(caller);
    waiting.wake();
  }
}
