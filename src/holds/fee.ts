/**
 * The fee a capture or charge of `amount` names at `feeBps`: `floor(amount × feeBps / 10,000)`, in token
 * units. Every hold signs the deployment's `fee_bps` as both bounds, and Commerce Payments v1.1 accepts a
 * fee amount only between the bounds' amounts, each rounded down: with equal bounds this is the one it takes.
 */
export function feeAmountOf(amount: bigint, feeBps: number): bigint {
  return (amount * BigInt(feeBps)) / 10_000n;
}
