import type { Database } from "../store/database.js";

/** The watcher's position: the last block read, with its hash. */
export class WatcherCursor {
  constructor(private readonly db: Pick<Database, "query">) {}

  async get(): Promise<{ blockNumber: bigint; blockHash: string; blockTime: number } | null> {
    const [r] = await this.db.query<{ block_number: string | number; block_hash: string; block_time: string | number }>(
      "SELECT * FROM watcher_cursor WHERE name = 'chain'",
    );
    return r ? { blockNumber: BigInt(r.block_number), blockHash: r.block_hash, blockTime: Number(r.block_time) } : null;
  }

  /** Moves the cursor to a block (its number, hash and timestamp in unix seconds). */
  async set(blockNumber: bigint, blockHash: string, blockTime: number): Promise<void> {
    await this.db.query(
      "INSERT INTO watcher_cursor (name, block_number, block_hash, block_time) VALUES ('chain', $1, $2, $3) ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, block_time = EXCLUDED.block_time",
      [blockNumber.toString(), blockHash, blockTime],
    );
  }
}
