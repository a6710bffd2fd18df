import type { Hex } from "viem";
import { base, baseSepolia, mainnet, sepolia } from "viem/chains";

/**
 * Words for people: network names, amounts and times. Pure functions (tested in Node), no DOM.
 */

export interface Network {
  /** "Base", "Base Sepolia (test)". */
  name: string;
  test: boolean;
  /** The explorer's name and a transaction's page there; null on the local chain (no explorer). */
  explorer: { name: string; tx(hash: Hex): string } | null;
}

/** The chains the service runs on, named from viem's chain definitions; the test chain says so. */
const NAMED: Record<number, { name: string; test: boolean; explorerName: string; explorerUrl: string }> = {
  [base.id]: { name: base.name, test: false, explorerName: "Basescan", explorerUrl: base.blockExplorers.default.url },
  [baseSepolia.id]: { name: baseSepolia.name, test: true, explorerName: "Sepolia Basescan", explorerUrl: baseSepolia.blockExplorers.default.url },
};

/** Chains a buyer's wallet may be on (for "your wallet is on …"); anything else is "chain N". */
const OTHER: Record<number, string> = { [mainnet.id]: "Ethereum", [sepolia.id]: "Sepolia" };

export function networkOf(chainId: number, localChain = false): Network {
  const known = NAMED[chainId];
  if (!known) return { name: chainName(chainId), test: false, explorer: null };
  return {
    name: known.test ? `${known.name} (test)` : known.name,
    test: known.test,
    explorer: localChain ? null : { name: known.explorerName, tx: (hash) => `${known.explorerUrl}/tx/${hash}` },
  };
}

/** A chain's plain name, for a wallet that is somewhere else. */
export function chainName(chainId: number): string {
  return NAMED[chainId]?.name ?? OTHER[chainId] ?? `chain ${chainId}`;
}

const SCALE = 1_000_000n;

/**
 * An amount as people write it, from integer micro-units (never a float): thousands grouped with
 * commas, and the fraction trimmed of trailing zeros but never shorter than two digits, so cents
 * always show ("12.50", "12.34", "1,250.00") and sub-cent amounts keep every digit that counts
 * ("0.000001", "12.345").
 */
export function displayAmount(units: bigint | string, symbol: string): string {
  const value = BigInt(units);
  if (value < 0n) throw new RangeError("negative amount");
  const whole = (value / SCALE).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const fraction = (value % SCALE).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction} ${symbol}`;
}

/** A moment in the buyer's own time zone, with the zone named ("22 Nov 2026, 17:05 GMT+1"). */
export function displayTime(unixSeconds: number, locale?: string, timeZone?: string): string {
  return new Intl.DateTimeFormat(locale, {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(unixSeconds * 1000));
}

/** What is left, in words a glance reads: "59:07 left", "2 h 05 min left", "3 days left", "expired". */
export function countdown(secondsLeft: number): string {
  if (secondsLeft <= 0) return "expired";
  const s = Math.floor(secondsLeft);
  if (s >= 2 * 86_400) return `${Math.floor(s / 86_400)} days left`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min left`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")} left`;
}

/** A long hex value cut for a glance ("0x1234…cdef"); the full value stays one click away. */
export function shortHex(value: string): string {
  return value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value;
}

/** An average Gregorian month (365.25 days / 12): a period of whole such months reads in months. */
export const MONTH_SECONDS = 2_629_800;

/**
 * A period as people say it, in the largest whole unit: "every month", "every 3 months", "every week",
 * "every 2 weeks", "every 30 days", "every day", "every 6 hours", "every 90 seconds".
 */
export function periodWords(seconds: number): string {
  for (const [unit, size] of [
    ["month", MONTH_SECONDS],
    ["week", 604_800],
    ["day", 86_400],
    ["hour", 3600],
    ["minute", 60],
    ["second", 1],
  ] as const) {
    if (seconds % size === 0) return seconds === size ? `every ${unit}` : `every ${seconds / size} ${unit}s`;
  }
  return `every ${seconds} seconds`;
}

/** A day as people say it: "24 Dec", with the year when it is not this year ("3 Jan 2028"). */
export function displayDay(unixSeconds: number, nowSeconds: number, locale?: string, timeZone?: string): string {
  const zone = timeZone ? { timeZone } : {};
  const year = (t: number) => new Intl.DateTimeFormat("en", { year: "numeric", ...zone }).format(new Date(t * 1000));
  return new Intl.DateTimeFormat(locale, {
    day: "numeric",
    month: "short",
    ...(year(unixSeconds) === year(nowSeconds) ? {} : { year: "numeric" }),
    ...zone,
  }).format(new Date(unixSeconds * 1000));
}

/** What a subscription page acts on: "9.99 USDC every 30 days to 0x90F7…b906, next charge on 24 Dec". */
export function subscriptionWords(
  s: { recipient: string; amount_units: string; period: number; next_charge_at: number | null; next_charge_due: boolean },
  symbol: string,
  nowSeconds: number,
  locale?: string,
  timeZone?: string,
): string {
  const next =
    s.next_charge_at === null
      ? "no further charge"
      : s.next_charge_due
        ? "next charge due now"
        : `next charge on ${displayDay(s.next_charge_at, nowSeconds, locale, timeZone)}`;
  return `${displayAmount(s.amount_units, symbol)} ${periodWords(s.period)} to ${shortHex(s.recipient)}, ${next}`;
}

/** A hex value in groups of four after "0x" ("0x90F7", "9bf6", …, "b906"): what a person compares. */
export function hexGroups(value: string): string[] {
  const digits = value.startsWith("0x") ? value.slice(2) : value;
  const groups = digits.match(/.{1,4}/g) ?? [];
  return groups.map((g, i) => (i === 0 ? `0x${g}` : g));
}

/**
 * An EIP-681 transfer request: `units` of the ERC-20 `token` on `chainId` to `to`, as wallets scan it
 * (`ethereum:<token>@<chain id>/transfer?address=<to>&uint256=<units>`).
 */
export function transferRequest(token: string, chainId: number, to: string, units: bigint | string): string {
  return `ethereum:${token}@${chainId}/transfer?address=${to}&uint256=${BigInt(units).toString()}`;
}
