/**
 * Reading logs backwards over block ranges as wide as the node accepts. A node without a range cap
 * answers a month of Base (13,000,000 blocks at 0.2 s) in one read; a provider's cap (on the range,
 * or on the logs one answer holds) refuses a wider range, which is read again in halves. What one
 * node accepted and refused is kept ({@link RangeCap}), so later reads start at the widest range that
 * was accepted instead of finding the cap again from the whole chain.
 */

/** How long a refusal is trusted as it is: a passing fault must not narrow every later read for good. */
export const RANGE_REFUSAL_MEMORY_MS = 10 * 60_000;

/** The widest range one node was seen to accept and the narrowest it refused, for every reader of that node. */
export class RangeCap {
  #accepted = 0n;
  #refused: bigint | null = null;
  #refusedAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The span to try for `wanted` blocks: all of it below the narrowest refusal, else a step between what passed and what did not. */
  span(wanted: bigint): bigint {
    // An old refusal is doubled, not trusted for good: a cap the node still has costs one refused read
    // every few minutes, and a fault that narrowed the reads is outgrown in a few steps.
    if (this.#refused !== null && this.now() - this.#refusedAt > RANGE_REFUSAL_MEMORY_MS) {
      this.#refused *= 2n;
      this.#refusedAt = this.now();
    }
    if (this.#refused === null || wanted < this.#refused) return wanted;
    if (this.#accepted === 0n) return max(1n, this.#refused / 2n);
    // Close enough to the cap: stay at what passed rather than spend refused reads on the last eighth.
    if (this.#refused - this.#accepted <= this.#accepted / 8n) return this.#accepted;
    return (this.#accepted + this.#refused) / 2n;
  }

  accepted(span: bigint): void {
    if (span > this.#accepted) this.#accepted = span;
    if (this.#refused !== null && this.#refused <= this.#accepted) this.#refused = null;
  }

  refused(span: bigint): void {
    if (this.#refused === null || span < this.#refused) this.#refused = span;
    this.#refusedAt = this.now();
    // A cap on the logs one answer holds can refuse a range narrower than one accepted elsewhere.
    if (this.#accepted >= this.#refused) this.#accepted = 0n;
  }
}

export interface BackwardRead<T> {
  found: T[];
  /** The lowest block read: everything from here up to the top was read. */
  next: bigint;
  /** Ranges asked of the node, refused ones included. */
  reads: number;
}

/**
 * Reads `[floor, top]` from the top down, a range at a time, until `enough(found)` holds, the floor
 * is read or `maxReads` ranges were asked. A refused range is asked again in halves (a node that
 * refuses even one block is failing: its error is thrown), and a read that asks nothing of the node
 * because it failed at once is thrown as well: nothing read is a failing node, never an empty answer.
 */
export async function readBackwards<T>(options: {
  cap: RangeCap;
  top: bigint;
  floor: bigint;
  maxReads: number;
  /** The widest range one read asks, whatever the node accepts (LOG_RANGE_SECONDS in blocks); no bound when absent. */
  maxSpan?: bigint;
  read: (from: bigint, to: bigint) => Promise<T[]>;
  enough: (found: T[]) => boolean;
}): Promise<BackwardRead<T>> {
  const { cap, top, floor } = options;
  const found: T[] = [];
  let next = top + 1n; // everything from `next` up to `top` has been read
  let reads = 0;
  let refused: unknown = null;
  while (reads < options.maxReads && next > floor && !options.enough(found)) {
    const to = next - 1n;
    const wanted = to - floor + 1n;
    const span = cap.span(options.maxSpan !== undefined && options.maxSpan < wanted ? options.maxSpan : wanted);
    const from = to + 1n - span > floor ? to + 1n - span : floor;
    reads++;
    try {
      found.push(...(await options.read(from, to)));
      cap.accepted(to - from + 1n);
      next = from;
    } catch (error) {
      if (to === from) throw error; // the node refuses even one block: an RPC fault, not a range cap
      refused = error;
      cap.refused(to - from + 1n);
    }
  }
  if (next === top + 1n && refused !== null) throw refused;
  return { found, next, reads };
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
