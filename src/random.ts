import { randomFillSync } from "node:crypto";

const POOL_BYTES = 4096;

/**
 * Random bytes from the system's CSPRNG, drawn 4 KiB at a time: a create takes 32 bytes for its
 * reference, and one draw per 128 references costs a fraction of one draw each (the same
 * trade Node makes for randomUUID). Every byte is handed out once; each answer is its own copy.
 */
export function pooledRandomBytes(): (size: number) => Uint8Array {
  const pool = Buffer.alloc(POOL_BYTES);
  let offset = POOL_BYTES;
  return (size) => {
    if (size > POOL_BYTES) return randomFillSync(Buffer.alloc(size));
    if (offset + size > POOL_BYTES) {
      randomFillSync(pool);
      offset = 0;
    }
    const bytes = Buffer.from(pool.subarray(offset, offset + size));
    offset += size;
    return bytes;
  };
}
