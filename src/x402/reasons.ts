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
  /** The relayer's hourly budget for work that earns no fee is spent (RELAYER_BUDGET_WEI_PER_*): answered with 429 and Retry-After. */
  relayerBudgetExceeded: "relayer_budget_exceeded",
  unexpectedVerify: "unexpected_verify_error",
  unexpectedSettle: "unexpected_settle_error",
} as const;

/**
 * What each refusal of @x402/evm's `exact` verify means, in this service's words: the rule that
 * refused. Its own `invalidMessage` is never passed on (for a replay it is viem's whole revert text:
 * the contract call, its arguments and addresses).
 */
export const EXACT_REFUSALS: Record<string, string> = {
  invalid_exact_evm_nonce_already_used: "this authorization's nonce is used: USDC moves an authorization once, and this one has moved",
  invalid_exact_evm_payload_authorization_valid_before: "the authorization has expired: its validBefore is past",
  invalid_exact_evm_payload_authorization_valid_after: "the authorization is not valid yet: its validAfter is to come",
  invalid_exact_evm_signature: "the signature is not the payer's over this authorization",
  invalid_exact_evm_failed_to_parse_signature: "the signature cannot be read as a signature",
  invalid_exact_evm_insufficient_balance: "the payer holds less USDC than the amount",
  invalid_exact_evm_authorization_value: "the authorization's value is not the amount required",
  invalid_exact_evm_payload_authorization_value_mismatch: "the authorization's value is not the amount required",
  invalid_exact_evm_recipient_mismatch: "the authorization pays another address than payTo",
  invalid_exact_evm_network_mismatch: "the payment is for another network than this facilitator's",
  invalid_exact_evm_token_name_mismatch: "the authorization is signed for another token than this deployment's USDC",
  invalid_exact_evm_token_version_mismatch: "the authorization is signed for another token than this deployment's USDC",
  invalid_exact_evm_missing_eip712_domain: "the requirements name no EIP-712 domain of the token",
  invalid_exact_evm_transaction_simulation_failed: "the authorization's transfer fails when simulated on the chain",
  eip6492_factory_not_allowed: "an undeployed smart account (ERC-6492) is refused: deploy the account first",
};

/** The sentence for a refusal of @x402/evm's verify: its rule in {@link EXACT_REFUSALS}, else only the reason's name. */
export function exactRefusalMessage(reason: string): string {
  return EXACT_REFUSALS[reason] ?? `refused by x402's exact verify (${reason})`;
}

/**
 * The reasons of the `auth-capture` scheme this facilitator answers with (x402-foundation/x402,
 * specs/schemes/auth-capture/scheme_auth_capture_evm.md, "Error Codes"), each with its message in
 * this service's words where it refuses.
 */
export const AUTH_CAPTURE_REASONS = {
  payloadFormat: "invalid_auth_capture_evm_payload_format",
  payloadType: "invalid_auth_capture_evm_payload_type",
  scheme: "invalid_auth_capture_evm_scheme",
  networkMismatch: "invalid_auth_capture_evm_network_mismatch",
  paymentFlow: "invalid_auth_capture_evm_unsupported_payment_flow",
  operatorType: "invalid_auth_capture_evm_unsupported_operator_type",
  policy: "invalid_auth_capture_evm_policy",
  missingReceiverAuthorizer: "invalid_auth_capture_evm_missing_receiver_authorizer",
  lifecycleNotRelayed: "invalid_auth_capture_evm_lifecycle_not_relayed",
  operatorMismatch: "invalid_auth_capture_evm_operator_mismatch",
  saltBinding: "invalid_auth_capture_evm_salt_binding_mismatch",
  authorizerSignature: "invalid_auth_capture_evm_authorizer_signature",
  voidAuthorizerSignature: "invalid_auth_capture_evm_void_authorizer_signature",
  voidRemainderFullCapture: "invalid_auth_capture_evm_void_remainder_full_capture",
  unexpectedPaymentState: "invalid_auth_capture_evm_unexpected_payment_state",
  refundFunding: "invalid_auth_capture_evm_refund_funding_unavailable",
  feeOutOfRange: "invalid_auth_capture_evm_fee_bps_out_of_range",
  feeReceiver: "invalid_auth_capture_evm_fee_receiver",
  notYetValid: "invalid_auth_capture_evm_authorization_not_yet_valid",
  verificationFailed: "invalid_auth_capture_evm_verification_failed",
  transferMethod: "invalid_auth_capture_evm_unsupported_asset_transfer_method",
  extra: "invalid_auth_capture_evm_extra",
  operatorNotAdmitted: "invalid_auth_capture_evm_operator_not_admitted",
  collector: "invalid_auth_capture_evm_token_collector_mismatch",
  amount: "invalid_auth_capture_evm_amount_mismatch",
  nonceMismatch: "invalid_auth_capture_evm_nonce_mismatch",
  deadlineOrdering: "invalid_auth_capture_evm_deadline_ordering",
  authorizationExpired: "invalid_auth_capture_evm_authorization_expired",
  captureDeadlineExpired: "invalid_auth_capture_evm_capture_deadline_expired",
  signature: "invalid_auth_capture_evm_signature",
  erc6492: "invalid_auth_capture_evm_erc6492_factory_not_allowed",
  insufficientBalance: "invalid_auth_capture_evm_insufficient_balance",
  /** The authorization is used, or the escrow has collected this payment: a replay. */
  alreadyCollected: "invalid_auth_capture_evm_payment_already_collected",
  simulationFailed: "invalid_auth_capture_evm_simulation_failed",
  transactionReverted: "invalid_auth_capture_evm_transaction_reverted",
} as const;
