/**
 * The x402 reason strings this facilitator answers with itself (x402 v2 specification, section 9,
 * and @x402/evm's `exact` facilitator); every other refusal is @x402/evm's own verify's, passed on.
 */
export const X402_REASONS = {
  version: "invalid_x402_version",
  scheme: "unsupported_scheme",
  network: "invalid_network",
  /** A body that is not an x402 request, or a payload that is not an EIP-3009 authorization. */
  payload: "invalid_payload",
  /** Requirements this facilitator cannot settle: another asset, a `payTo` it did not issue, another amount, a payment settled already. */
  requirements: "invalid_payment_requirements",
  /** @x402/evm's answer to an authorization whose nonce the token has seen: a replay, or a front-runner's submission. */
  nonceUsed: "invalid_exact_evm_nonce_already_used",
  /** The settlement itself (split included) would revert, simulated as the relayer would send it. */
  simulationFailed: "invalid_exact_evm_transaction_simulation_failed",
  /** The settlement could not be sent, would use more gas than the facilitator pays, reverted, or was not mined in time. */
  transactionState: "invalid_transaction_state",
  unexpectedVerify: "unexpected_verify_error",
  unexpectedSettle: "unexpected_settle_error",
} as const;
