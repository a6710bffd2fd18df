/**
 * Money at the edge: `Amount` is a decimal string with exactly six fractional digits in responses
 * ("12.500000"); `AmountUnits` an integer string of micro-units ("12500000"). Inside, always bigint
 * micro-units. No float ever holds money.
 */

import { AMOUNT_PATTERN, UNITS_PATTERN } from "./wire/primitives.js";

export const UNIT_DECIMALS = 6;
const SCALE = 10n ** BigInt(UNIT_DECIMALS);

export { AMOUNT_PATTERN, UNITS_PATTERN };

/** Parses a request `Amount` into micro-units; null when it is not a valid amount string. */
export function parseAmount(text: string): bigint | null {
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) return null;
  const whole = BigInt(match[1]!);
  const fraction = (match[2]?.slice(1) ?? "").padEnd(UNIT_DECIMALS, "0"); // match[2] is the fraction with its dot
  return whole * SCALE + BigInt(fraction);
}

/** Formats micro-units as an `Amount` with exactly six fractional digits. */
export function formatAmount(units: bigint): string {
  if (units < 0n) throw new RangeError("negative amount");
  const whole = units / SCALE;
  const fraction = (units % SCALE).toString().padStart(UNIT_DECIMALS, "0");
  return `${whole}.${fraction}`;
}

/** Parses an `AmountUnits` integer string; null when invalid. */
export function parseUnits(text: string): bigint | null {
  return UNITS_PATTERN.test(text) ? BigInt(text) : null;
}

/** `value * numerator / denominator`, rounded up (for floors the spec states "round up"). */
export function mulDivUp(value: bigint, numerator: bigint, denominator: bigint): bigint {
  const product = value * numerator;
  return product / denominator + (product % denominator === 0n ? 0n : 1n);
}
