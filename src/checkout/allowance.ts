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
