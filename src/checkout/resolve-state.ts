/**
 * What the pay and link pages do with an answer of `POST /v1/payments/resolve`:
 * - `pay`: an open payment, show the pay button;
 * - `paid`: PAYMENT_ALREADY_PROCESSED (settled), the "already paid" page;
 * - `confirming`: PAYMENT_CONFIRMING (action WAIT: a payment is mined but not yet final), say so with
 *   no pay button and ask again every CONFIRMING_POLL_MS until it is paid;
 * - `explain`: any other error, in words.
 */
export type ResolveState = "pay" | "paid" | "confirming" | "explain";

/** An answer of resolve as these rules read it: open, or an error body. */
export type ResolveAnswer = { ok: true } | { ok: false; body: { error?: string; action?: string; retry_after?: number } };

export const CONFIRMING_POLL_MS = 2500;

export function resolveState(answer: ResolveAnswer): ResolveState {
  if (answer.ok) return "pay";
  if (answer.body.error === "PAYMENT_ALREADY_PROCESSED") return "paid";
  if (answer.body.error === "PAYMENT_CONFIRMING") return "confirming";
  return "explain";
}

/**
 * The confirming loop's next step after `answer`, given whether a confirming payment was already
 * seen: `done` (show the answer), or `wait` that many milliseconds and ask again. A payment that is
 * confirming is asked about every CONFIRMING_POLL_MS; once one was seen, a retryable error (RETRY)
 * waits its Retry-After (never less than the poll interval) instead of ending the wait, so a passing
 * RPC fault never shows the pay button for a payment already mined.
 */
export function confirmingStep(answer: ResolveAnswer, confirming: boolean): { next: "done" } | { next: "wait"; waitMs: number } {
  const state = resolveState(answer);
  if (state === "confirming") return { next: "wait", waitMs: CONFIRMING_POLL_MS };
  if (confirming && state === "explain" && !answer.ok && answer.body.action === "RETRY") {
    return { next: "wait", waitMs: Math.max(CONFIRMING_POLL_MS, (answer.body.retry_after ?? 0) * 1000) };
  }
  return { next: "done" };
}
