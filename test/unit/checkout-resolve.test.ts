import { assert } from "chai";
import { CONFIRMING_POLL_MS, confirmingStep, resolveState } from "../../src/checkout/resolve-state.js";
import { explain } from "../../src/checkout/words.js";

describe("checkout resolve answers: what the pay and link pages do with each", () => {
  it("maps 409 PAYMENT_CONFIRMING (WAIT) to confirming, PAYMENT_ALREADY_PROCESSED to paid, an open payment to pay, anything else to words", () => {
    assert.equal(resolveState({ ok: true as const }), "pay");
    assert.equal(resolveState({ ok: false, body: { error: "PAYMENT_CONFIRMING", action: "WAIT" } }), "confirming");
    assert.equal(resolveState({ ok: false, body: { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" } }), "paid");
    assert.equal(resolveState({ ok: false, body: { error: "INTENT_EXPIRED", action: "STOP" } }), "explain");
    assert.equal(resolveState({ ok: false, body: { error: "RPC_ERROR", action: "RETRY" } }), "explain");
  });

  it("asks again about a confirming payment every 2.5 s, waits out a retryable fault once confirming, and stops at any other answer", () => {
    const confirmingAnswer = { ok: false, body: { error: "PAYMENT_CONFIRMING", action: "WAIT" } };
    const rpcFault = (retryAfter?: number) => ({
      ok: false,
      body: { error: "RPC_ERROR", action: "RETRY", ...(retryAfter ? { retry_after: retryAfter } : {}) },
    });
    assert.deepEqual(confirmingStep(confirmingAnswer, false), { next: "wait", waitMs: CONFIRMING_POLL_MS });
    assert.deepEqual(confirmingStep(confirmingAnswer, true), { next: "wait", waitMs: 2500 });
    // Once a payment was seen confirming, a passing fault waits its Retry-After (never under the poll
    // interval) rather than showing the pay button for a payment already mined.
    assert.deepEqual(confirmingStep(rpcFault(5), true), { next: "wait", waitMs: 5000 });
    assert.deepEqual(confirmingStep(rpcFault(1), true), { next: "wait", waitMs: 2500 });
    assert.deepEqual(confirmingStep(rpcFault(), true), { next: "wait", waitMs: 2500 });
    // Before any confirming answer, a fault is shown (the page explains it); so are the final answers.
    assert.deepEqual(confirmingStep(rpcFault(5), false), { next: "done" });
    assert.deepEqual(confirmingStep({ ok: false, body: { error: "INTENT_EXPIRED", action: "STOP" } }, true), { next: "done" });
    assert.deepEqual(confirmingStep({ ok: false, body: { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" } }, true), { next: "done" });
    assert.deepEqual(confirmingStep({ ok: true as const }, false), { next: "done" });
  });

  it("says a payment is confirming (no retry advice: the buyer must not pay again), and already paid as good news", () => {
    assert.equal(explain("PAYMENT_CONFIRMING", "WAIT"), "A payment for this is confirming… This page says Paid once it is final; do not pay again.");
    assert.equal(explain("PAYMENT_ALREADY_PROCESSED", "SUCCESS"), "This payment was already made. Nothing more is owed.");
    assert.equal(explain("RPC_ERROR", "RETRY", 5), "The service answered RPC_ERROR. Try again in 5 s.");
  });
});
