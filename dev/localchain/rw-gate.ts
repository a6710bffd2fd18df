/**
 * A readers–writer gate: any number of reads at once, a write alone. A write waits for the reads in
 * flight and holds back new ones until it is done. The Base node mines each block (BaseTime's
 * milliseconds, the timestamp, the block) and moves the chain under a write, so every read is
 * answered between blocks.
 */
export class ReadWriteGate {
  #writing: Promise<void> | null = null;
  #readers = 0;
  #drained: (() => void) | null = null;

  async read<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#writing) await this.#writing;
    this.#readers++;
    try {
      return await fn();
    } finally {
      this.#readers--;
      if (this.#readers === 0 && this.#drained) this.#drained();
    }
  }

  async write<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#writing) await this.#writing;
    let release!: () => void;
    this.#writing = new Promise<void>((resolve) => (release = resolve));
    try {
      if (this.#readers > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      this.#drained = null;
      return await fn();
    } finally {
      this.#writing = null;
      release();
    }
  }
}
