/**
 * What the pay and link pages do with an answer of `POST /v1/payments/resolve`:
 * - `pay`: an open payment, show the pay button;
 * - `paid`: PAYMENT_ALREADY_PROCESSED (settled), the "already paid" page;
 * - `confirming`: PAYMENT_CONFIRMING (action WAIT: a payment is mined but not yet final), say so with
 *   no pay button and ask again every CONFIRMING_POLL_MS until it is paid;
 * - `explain`: any other error, in words.
 */
export type ResolveState = "pay" | "paid" | "confirming" | "explain";

export const CONFIRMING_POLL_MS = 2500;

export function resolveState(answer: { ok: boolean; body: { error?: string; action?: string } }): ResolveState {
  if (answer.ok) return "pay";
  if (answer.body.error === "PAYMENT_ALREADY_PROCESSED") return "paid";
  if (answer.body.error === "PAYMENT_CONFIRMING") return "confirming";
  return "explain";
}
