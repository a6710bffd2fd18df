import { getAddress, type Address } from "viem";

/** A token transfer as the chain's `Transfer` log states it: its recipient and value (token units). */
export interface ArrivedTransfer {
  to: Address;
  value: bigint;
}

/**
 * The smallest amount a split pays a fee on: the least `amount` with `floor(amount × feeBps / 10,000)
 * ≥ 1` (50 units at 200 bps). Less than that earns nothing when split, so it makes no receiver worth
 * the backstop's reads. With no fee (0 bps) every unit counts.
 *
 * @example fundedUnits(200) // 50n
 */
export function fundedUnits(feeBps: number): bigint {
  if (feeBps <= 0) return 1n;
  return (10_000n + BigInt(feeBps) - 1n) / BigInt(feeBps);
}

/**
 * The receivers among `receivers` that a round's transfers funded: those that received, in the round's
 * transfers together, at least `minUnits`. A stranger's dust (1 unit) funds nothing.
 */
export function fundedBy(receivers: Address[], transfers: readonly ArrivedTransfer[], minUnits: bigint): Address[] {
  const received = new Map<Address, bigint>();
  for (const t of transfers) {
    const to = getAddress(t.to);
    received.set(to, (received.get(to) ?? 0n) + t.value);
  }
  return receivers.filter((r) => (received.get(getAddress(r)) ?? 0n) >= minUnits);
}
