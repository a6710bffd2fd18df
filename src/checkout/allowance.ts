import { decodeFunctionResult, encodeFunctionData, erc20Abi, maxUint256, type Address, type Hex } from "viem";

/**
 * An allowance at or above 2^255 is "unlimited" (a wallet's "max" approval): approving more would only
 * lower it to a finite number, so the pages leave it alone.
 */
export const UNLIMITED_ALLOWANCE = 2n ** 255n;

/**
 * The allowance to approve so that `adding` joins what the spender may already take for the payer's
 * other subscriptions (one allowance serves them all): `current + adding`, saturating at max uint256;
 * null when `current` is already unlimited (nothing to send).
 */
export function allowanceTotal(current: bigint, adding: bigint): bigint | null {
  if (current >= UNLIMITED_ALLOWANCE) return null;
  const total = current + adding;
  return total > maxUint256 ? maxUint256 : total;
}

/** `token.allowance(owner, spender)`, read through the buyer's wallet (the page has no RPC of its own). */
export async function readAllowance(wallet: { call(to: Address, data: Hex): Promise<Hex> }, token: Address, owner: Address, spender: Address): Promise<bigint> {
  const data = await wallet.call(token, encodeFunctionData({ abi: erc20Abi, functionName: "allowance", args: [owner, spender] }));
  return decodeFunctionResult({ abi: erc20Abi, functionName: "allowance", data });
}

/** The words for the approval: what this subscription adds, and the total the wallet will show. */
export function allowanceWords(current: bigint, adding: bigint, total: bigint, amount: (units: bigint) => string): string {
  const all = total === maxUint256 ? "the maximum" : amount(total);
  if (current === 0n) return `Allow the subscription contract to charge up to ${all} for this subscription.`;
  return `Allow the subscription contract to charge up to ${all} in all: this adds ${amount(adding)} for this subscription to your existing allowance of ${amount(current)}, which your other subscriptions rely on.`;
}

/** The words when the allowance is already unlimited and nothing is sent. */
export const UNLIMITED_WORDS = "Your allowance to the subscription contract is already unlimited: nothing to approve.";

/** How many periods the subscribe page suggests allowing: every period of a plan with an end, else 12. */
export function suggestedPeriods(terms: { start: number; end: number; period: number }): { suggested: bigint; max: bigint } {
  if (terms.end === 0) return { suggested: 12n, max: 1000n };
  const all = BigInt(Math.max(1, Math.ceil((terms.end - terms.start) / terms.period)));
  return { suggested: all, max: all };
}

/**
 * The subscribe page's one sentence on the allowance: what it lets the contract take, that one charge
 * per period is enforced on chain, that nothing is taken now, and that it can be revoked.
 */
export function allowanceSentence(amount: bigint, maxGas: bigint, periods: bigint, format: (units: bigint) => string): string {
  const perCharge = maxGas > 0n ? `${format(amount)} plus at most ${format(maxGas)} toward the network fee` : format(amount);
  const span = periods === 1n ? "1 period" : `${periods} periods`;
  return `This allowance lets the subscription contract take up to ${format((amount + maxGas) * periods)} from your wallet: one charge of ${perCharge} per period, for ${span}. The contract enforces one charge per period on chain, nothing is taken now, and you can revoke the allowance at any time.`;
}
