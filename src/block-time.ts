/**
 * Base and Base Sepolia make a block every 200 ms since Denim (Base Sepolia 2026-10-21, Base
 * 2026-11-05): anything counted in blocks lasts a tenth of what it did. The service's windows are
 * durations, turned into blocks here.
 */
const BLOCK_TIME_MS: Record<number, number> = { 8453: 200, 84532: 200 };

/** The chain's block time in milliseconds (200 for the chains we serve). */
export function blockTimeMs(chainId: number): number {
  const ms = BLOCK_TIME_MS[chainId];
  if (ms === undefined) throw new Error(`no block time known for chain id ${chainId}`);
  return ms;
}

/** The blocks `seconds` covers on the chain (at least one): a window named in seconds, as a block count. */
export function blocksIn(seconds: number, chainId: number): bigint {
  return BigInt(Math.max(1, Math.ceil((seconds * 1000) / blockTimeMs(chainId))));
}
