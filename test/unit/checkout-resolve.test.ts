import { assert } from "chai";
import { CONFIRMING_POLL_MS, resolveState } from "../../src/checkout/resolve-state.js";
import { explain } from "../../src/checkout/words.js";

describe("checkout resolve answers: what the pay and link pages do with each", () => {
  it("maps 409 PAYMENT_CONFIRMING (WAIT) to confirming, PAYMENT_ALREADY_PROCESSED to paid, an open payment to pay, anything else to words", () => {
    assert.equal(resolveState({ ok: true, body: {} }), "pay");
    assert.equal(resolveState({ ok: false, body: { error: "PAYMENT_CONFIRMING", action: "WAIT" } }), "confirming");
    assert.equal(resolveState({ ok: false, body: { error: "PAYMENT_ALREADY_PROCESSED", action: "SUCCESS" } }), "paid");
    assert.equal(resolveState({ ok: false, body: { error: "INTENT_EXPIRED", action: "STOP" } }), "explain");
    assert.equal(resolveState({ ok: false, body: { error: "RPC_ERROR", action: "RETRY" } }), "explain");
  });

  it("polls a confirming payment every 2 to 3 seconds", () => {
    assert.isAtLeast(CONFIRMING_POLL_MS, 2000);
    assert.isAtMost(CONFIRMING_POLL_MS, 3000);
  });

  it("says a payment is confirming (no retry advice: the buyer must not pay again), and already paid as good news", () => {
    assert.equal(explain("PAYMENT_CONFIRMING", "WAIT"), "A payment for this is confirming… This page says Paid once it is final; do not pay again.");
    assert.equal(explain("PAYMENT_ALREADY_PROCESSED", "SUCCESS"), "This payment was already made. Nothing more is owed.");
    assert.equal(explain("RPC_ERROR", "RETRY", 5), "The service answered RPC_ERROR. Try again in 5 s.");
  });
});
