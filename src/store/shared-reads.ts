/**
 * Reads of one kind asked in the same turn of the event loop, answered by one query: a renewal wave
 * asks hundreds at once (every charge that shared a chain view continues together), and one store
 * round trip for all of them costs the store's thread about what one of them alone did. Each caller
 * still gets its own answer, or the query's error.
 */
export class SharedReads<K, V> {
  #asked = new Map<string, { key: K; waiting: Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }> }>();
  #scheduled = false;

  constructor(
    /** The identity two asks share an answer by. */
    private readonly idOf: (key: K) => string,
    /** One query for every key asked: the answers found, by id (a key missing from it answers undefined). */
    private readonly readAll: (keys: K[]) => Promise<Map<string, V>>,
    /** At most this many keys per query (a larger turn is split). */
    private readonly maxKeys = 1000,
  ) {}

  read(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const id = this.idOf(key);
      const entry = this.#asked.get(id);
      if (entry) entry.waiting.push({ resolve, reject });
      else this.#asked.set(id, { key, waiting: [{ resolve, reject }] });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const asked = [...this.#asked];
    this.#asked.clear();
    for (let i = 0; i < asked.length; i += this.maxKeys) {
      const part = asked.slice(i, i + this.maxKeys);
      this.readAll(part.map(([, { key }]) => key)).then(
        (found) => {
          for (const [id, { waiting }] of part) for (const w of waiting) w.resolve(found.get(id));
        },
        (error) => {
          for (const [, { waiting }] of part) for (const w of waiting) w.reject(error);
        },
      );
    }
  }
}
