/**
 * Base's millisecond times: since Denim its RPC adds `timestampMs` to blocks and headers and
 * `blockTimestampMs` to transactions and logs (a hex quantity, like every number it serves). viem
 * passes unknown fields through untouched, so they are read here; a node that does not serve them
 * (any chain but Base, or Base before Denim) gives undefined, never a guess from the seconds.
 */

/** A log's (or a transaction's) block time in milliseconds, when the node serves it. */
export function logTimestampMs(log: object): bigint | undefined {
  return quantity((log as { blockTimestampMs?: unknown }).blockTimestampMs);
}

/** A block's (or a header's) time in milliseconds, when the node serves it. */
export function blockTimestampMs(block: object): bigint | undefined {
  return quantity((block as { timestampMs?: unknown }).timestampMs);
}

function quantity(value: unknown): bigint | undefined {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^0x[0-9a-fA-F]{1,16}$/.test(value)) return BigInt(value);
  return undefined;
}
