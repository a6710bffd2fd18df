/** The words the checkout says for the API's answers (no DOM: unit-tested in Node). */

/** Words for the API's error codes a buyer can meet. */
export function explain(error: string | undefined, action: string | undefined, retryAfter?: number): string {
  const known: Record<string, string> = {
    INTENT_EXPIRED: "This payment request has expired. Ask the merchant for a new one.",
    PAYMENT_ALREADY_PROCESSED: "This payment was already made. Nothing more is owed.",
    PAYMENT_CONFIRMING: "A payment for this is confirming… This page says Paid once it is final; do not pay again.",
    LINK_CLOSED: "This link is closed or expired.",
    INVALID_INTENT: "This payment link is not valid.",
    INVALID_SETUP_TOKEN: "This subscription link is not valid.",
    SETUP_TOKEN_EXPIRED: "This subscription link has expired. Ask the merchant for a new one.",
    INVALID_APPROVE_TOKEN: "This approval link is not valid.",
    APPROVE_TOKEN_EXPIRED: "This approval link has expired. Ask the merchant for a new one.",
    INVALID_CANCEL_TOKEN: "This cancellation link is not valid.",
    CANCEL_TOKEN_EXPIRED: "This cancellation link has expired. Ask the merchant for a new one.",
    INVALID_REFUND_TOKEN: "This refund link is not valid.",
    REFUND_TOKEN_EXPIRED: "This refund link has expired. Prepare the refund again.",
    AMOUNT_OUT_OF_BOUNDS: "This amount is outside what the service accepts.",
    ACCOUNT_BLOCKED: "The token refuses this payment: one of the accounts is blocked. Nothing was sent; contact the merchant.",
    TOKEN_PAUSED: "Transfers of this token are paused for now. Nothing was sent.",
    INSUFFICIENT_BALANCE: "Your wallet does not hold the first charge. You are not subscribed: add funds, then subscribe again.",
    INSUFFICIENT_ALLOWANCE: "The subscription contract may not take the first charge yet. You are not subscribed: allow it, then subscribe again.",
    INVALID_HOLD_TOKEN: "This hold link is not valid.",
    HOLD_EXPIRED: "This hold can no longer be authorized: its time has passed. Ask the merchant for a new one.",
    HOLD_ALREADY_AUTHORIZED: "This hold is already authorized. Nothing more to sign.",
    HOLD_BUSY: "Your authorization is on its way. This page updates once it is final.",
    INVALID_SIGNATURE: "The wallet's signature does not match this hold. Nothing was sent; try again.",
  };
  const text = known[error ?? ""] ?? `The service answered ${error ?? "an error"}.`;
  return action === "RETRY" ? `${text} Try again${retryAfter ? ` in ${retryAfter} s` : ""}.` : text;
}
