/**
 * The merchant page's arithmetic and its file for the books: pure functions over the payments POST
 * /v1/payments/list answers (tested in Node), integer micro-units throughout, never a float.
 */

/** A payment as the list answers it (the fields the page and the file use). */
export interface BookPayment {
  reference: string | null;
  amount_units: string;
  fee_units: string;
  /** null: the chain cannot say who paid (the merchant asks the buyer). */
  payer: string | null;
  tx_hash: string;
  block_number: string;
  timestamp: number;
  /** The block's time in milliseconds, where the node serves it (Base since Denim). */
  timestamp_ms?: number;
  settled_by: string;
  final: boolean;
}

/** The CSV's columns, in this order, as the header names them. */
export const CSV_COLUMNS = ["timestamp_utc", "timestamp_ms", "amount", "fee", "net", "payer", "reference", "tx_hash", "block_number", "settled_by"] as const;

const SCALE = 1_000_000n;

/** Micro-units as a plain decimal with six fractional digits ("12.500000"): what a spreadsheet imports. */
export function plainAmount(units: bigint): string {
  const sign = units < 0n ? "-" : "";
  const abs = units < 0n ? -units : units;
  return `${sign}${abs / SCALE}.${(abs % SCALE).toString().padStart(6, "0")}`;
}

/** Unix seconds as ISO 8601 in UTC, to the second ("2026-11-26T16:21:29Z"). */
export function utcTimestamp(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** What the loaded payments add up to: paid, fees, and what reached the recipient. */
export function totals(payments: readonly BookPayment[]): { count: number; amount: bigint; fee: bigint; net: bigint } {
  let amount = 0n;
  let fee = 0n;
  for (const p of payments) {
    amount += BigInt(p.amount_units);
    fee += BigInt(p.fee_units);
  }
  return { count: payments.length, amount, fee, net: amount - fee };
}

/** One CSV field: quoted when it holds a comma, quote or line break (RFC 4180); a leading formula sign defused. */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The CSV of `payments`: amount is what the payer moved (excess included), fee what was taken, net
 * what reached the recipient; timestamp_ms and payer are empty where the chain does not say. One row
 * each, in the order given, header first, CRLF line ends (RFC 4180).
 */
export function paymentsCsv(payments: readonly BookPayment[]): string {
  const rows = payments.map((p) => {
    const amount = BigInt(p.amount_units);
    const fee = BigInt(p.fee_units);
    return [
      utcTimestamp(p.timestamp),
      p.timestamp_ms !== undefined ? String(p.timestamp_ms) : "",
      plainAmount(amount),
      plainAmount(fee),
      plainAmount(amount - fee),
      p.payer ?? "",
      p.reference ?? "",
      p.tx_hash,
      p.block_number,
      p.settled_by,
    ]
      .map(field)
      .join(",");
  });
  return [CSV_COLUMNS.join(","), ...rows].map((line) => `${line}\r\n`).join("");
}

/**
 * A refund amount typed by the merchant ("2.5", "2.50", "2") as micro-units; null when it is not an
 * amount with at most six fractional digits, is zero, or is above `ceiling`.
 */
export function refundUnits(text: string, ceiling: bigint): bigint | null {
  const match = /^\s*(0|[1-9][0-9]{0,17})(?:\.([0-9]{1,6}))?\s*$/.exec(text);
  if (!match) return null;
  const units = BigInt(match[1]!) * SCALE + BigInt((match[2] ?? "").padEnd(6, "0"));
  return units === 0n || units > ceiling ? null : units;
}

/** An address from a route or a form ("0x" and 40 hex digits), or null. */
export function addressOf(text: string): string | null {
  const trimmed = text.trim();
  return /^0x[0-9a-fA-F]{40}$/.test(trimmed) ? trimmed : null;
}
