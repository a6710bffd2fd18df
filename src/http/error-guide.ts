import type { ErrorCode } from "../errors.js";

/**
 * What a merchant does about each error code, in one line: the last column of docs/errors.md
 * (scripts/error-table.ts writes the table from this, ERROR_CODES and HTTP_STATUS). Typed by
 * ErrorCode, so a new code without a line does not compile.
 */
export const ERROR_GUIDE: Record<ErrorCode, string> = {
  INVALID_REQUEST: "Fix the request: the `svc-error-detail` header names the first failing field and its rule.",
  NOT_FOUND: "No such endpoint: check the path against docs/openapi.json.",
  METHOD_NOT_ALLOWED: "Use the method the endpoint takes (POST for every /v1 call but GET /v1/capabilities and /v1/webhooks/keys).",
  AMOUNT_OUT_OF_BOUNDS: "Keep the amount within /v1/capabilities' payment_amount (or subscription_amount).",
  INVALID_INTENT: "The intent is not one of this deployment's (tampered, another environment): use the intent create answered.",
  INTENT_EXPIRED: "The payment can no longer start: create a new intent. A payment already made still verifies.",
  PAYMENT_ALREADY_PROCESSED: "The intent is paid and final: verify with its transaction (recover finds it) and fulfil.",
  RATE_LIMITED: "Too many calls from this client: wait Retry-After, then ask again.",
  CONCURRENCY_LIMIT: "Too many calls at once: wait Retry-After, then ask again.",
  INTERNAL_ERROR: "Our fault: wait Retry-After, then ask again the same thing.",
  RPC_ERROR: "The chain node failed: wait Retry-After, then ask again the same thing.",
  RPC_BUSY: "The chain node is saturated: wait Retry-After, then ask again.",
  PAYMENT_RECOVERY_INCONSISTENT: "The chain contradicts itself for now (a reorganisation): wait Retry-After, then ask again.",
  RECOVERY_UNAVAILABLE: "The bounded search could not finish: wait Retry-After, then ask again.",
  ACCOUNT_BLOCKED: "The token's issuer blacklisted the payer, the recipient or the fee collector: nothing can move; stop.",
  TOKEN_PAUSED: "The token is paused by its issuer: nothing moves until it is unpaused; ask again later.",
  INVALID_SETUP_TOKEN: "The setup token is not one of this deployment's: use the one create answered.",
  SETUP_TOKEN_EXPIRED: "Create the subscription terms again and send the payer the new setup token.",
  INVALID_SIGNATURE: "The payer's signature does not validate (on chain for a smart account): ask the payer to sign again.",
  UNSUPPORTED_SIGNATURE_FORMAT: "The wallet signed in a form the contract cannot check: ask the payer to use another wallet or account.",
  SIGNATURE_VALIDATION_TOO_EXPENSIVE: "The payer's smart account spends too much gas validating: it cannot subscribe this way.",
  INVALID_SUBSCRIPTION: "The subscription capability is not one of this deployment's: use the one finalize answered.",
  PERMISSION_REVOKED: "The payer cancelled: end access from the subscription's state; charge no more.",
  INSUFFICIENT_BALANCE: "Nothing was sent: ask the payer to top up, then charge again.",
  INSUFFICIENT_ALLOWANCE: "Nothing was sent: mint an approve session and send the payer to #/approve/<approve_token>.",
  TRANSACTION_REVERTED: "The transaction reverted: nothing moved; ask again after Retry-After.",
  NOT_DUE: "This period is charged or not started: ask again after Retry-After (next_period_at says when).",
  SUBSCRIPTION_EXPIRED: "The terms ended: end access; a new period needs a new subscription.",
  GAS_TOO_HIGH: "Gas costs more than the terms allow to reimburse: nothing was spent; ask again after Retry-After.",
  PAYMENT_CONFIRMING: "Mined, not final: ask again about the same transaction after Retry-After; never start another payment.",
  GAS_QUOTE_UNAVAILABLE: "No gas price could be read: nothing was spent; ask again after Retry-After.",
  RELAYER_ERROR: "The relayer failed to send: nothing was charged twice; ask again the same call after Retry-After.",
  RELAYER_UNAVAILABLE: "The relayer is paused or unfunded: nothing was spent; ask again after Retry-After.",
  INVALID_CANCEL_TOKEN: "The cancel token is not one of this deployment's: mint a new one (revoke/session).",
  CANCEL_TOKEN_EXPIRED: "Mint a new cancel token (revoke/session).",
  INVALID_APPROVE_TOKEN: "The approve token is not one of this deployment's: mint a new one (approve/session).",
  APPROVE_TOKEN_EXPIRED: "Mint a new approve token (approve/session).",
  INVALID_LINK_TOKEN: "The link or manage token is not one of this deployment's: use the ones POST /v1/links answered.",
  WRONG_LINK_TOKEN:
    "A token of this link of another kind than the endpoint takes: the manage token closes, lists with capabilities and removes; the view token lists states; only a subscription link has subscribers.",
  LINK_CLOSED: "The link was closed or expired: create a new link.",
  REFUND_AMOUNT_INVALID: "Refund at least 1 unit and at most what the buyer paid (what the named sender sent, with to).",
  INVALID_REFUND_TOKEN: "The refund token is not one of this deployment's: prepare the refund again.",
  REFUND_TOKEN_EXPIRED: "Prepare the refund again (a refund token lives about 15 minutes).",
  REFUND_TRANSACTION_MISMATCH: "That transaction is not this refund (token, payer, merchant or amount differ): check refund_tx_hash.",
  REFUND_CONFIRMING: "The refund is mined, not final: ask again about the same refund_tx_hash; never send another.",
  PAYMENT_NOT_FOUND: "No such settlement on chain (as of the answer's block): check tx_hash and the identifier.",
  PAYMENT_MISMATCH: "That transaction is not this payment (another reference, recipient, token or amount): check tx_hash.",
  PAYER_UNKNOWN:
    "No one wallet's own transfers into this payment address reached the amount: the body's senders lists each wallet with what it sent. Ask the buyer which is theirs and send the same request with to set to it (prepare and verify alike); a refund to it is at most what it sent.",
  INVALID_HOLD_TOKEN: "The hold token is not one of this deployment's: use the `hold` capability POST /v1/holds answered.",
  INVALID_HOLD:
    "Fix the hold's terms: capture_before after now and before refund_before, within the limits docs/merchants.md names; the amount within the bounds.",
  HOLD_AMOUNT_EXCEEDS_AUTHORIZED: "Capture at most what the hold still has authorized (`capturable_amount` in POST /v1/holds/state).",
  HOLD_EXPIRED:
    "The hold's window for this step has passed: capture before capture_before, refund before refund_before; an unauthorized hold past its deadline is created again.",
  HOLD_ALREADY_AUTHORIZED: "The hold is authorized already: read POST /v1/holds/state; nothing was sent.",
  HOLD_NOT_AUTHORIZED: "The buyer has not authorized the hold yet: wait for hold.authorized, then capture or void.",
  HOLD_CLOSED: "Nothing is left authorized on this hold (captured in full, voided or reclaimed): nothing to capture or void.",
  HOLD_BUSY: "An operator call for this hold is on its way: wait for it (POST /v1/holds/state) and ask again.",
  ESCROW_REFUSED:
    "The escrow refuses this call, and a majority of the chain's nodes agree (its error's name is in svc-error-detail): the same call will never succeed, so do not retry it; read the hold's state (POST /v1/holds/state) and change the request.",
  RELAYER_BUDGET_EXCEEDED:
    "The relayer's hourly gas budget for work that earns no fee is spent for this payer, recipient or caller, or in total: nothing was sent; ask again after Retry-After. A merchant's capture or void is never refused by it.",
};
