import { BaseError, ContractFunctionRevertedError, type Hex } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import { DomainError } from "../errors.js";
import { toRpcError } from "../chain/rpc-errors.js";
import { revertReason, tokenRefusal } from "../chain/token-refusals.js";

/** The custom error a simulated charge reverted with, by name (never by message text). */
export function revertName(error: unknown): string | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? (reverted.data?.errorName ?? null) : null;
}

/**
 * Maps a refused charge simulation to the service's answer. `PeriodAlreadyCharged` is not an error
 * (the caller answers ALREADY_CHARGED) and comes back as null.
 */
export function chargeRefusal(error: unknown, secondsToStart: bigint): DomainError | null {
  const name = revertName(error);
  switch (name) {
    case "PeriodAlreadyCharged":
      return null;
    case "SubscriptionRevoked":
      return new DomainError("PERMISSION_REVOKED");
    case "InvalidSignature":
      // Not a revocation: the signature no longer validates on chain (an ERC-1271 account changed its
      // owners or its rules, or no longer approves the digest). The payer can sign the terms again.
      return new DomainError("INVALID_SIGNATURE");
    case "ChargeBeforeStart":
      return new DomainError("NOT_DUE", { retryAfter: Number(secondsToStart > 0n ? secondsToStart : 1n) });
    case "SubscriptionEnded":
      return new DomainError("SUBSCRIPTION_EXPIRED");
    case "PeriodMismatch":
      // The simulation's block is already in the next period: this period can no longer be charged,
      // and the next one is charged by asking again (a block later).
      return new DomainError("NOT_DUE", { retryAfter: 2 });
    case "InsufficientAllowance":
      return new DomainError("INSUFFICIENT_ALLOWANCE");
    case "InsufficientBalance":
      return new DomainError("INSUFFICIENT_BALANCE");
    case "ReimbursementOverCap":
      return new DomainError("GAS_TOO_HIGH");
    case "NotRelayer":
      return new DomainError("RELAYER_UNAVAILABLE", { detail: "the relayer is not allowed by the contract" });
    case "UnsupportedSignatureFormat":
    case "FeeTermsMismatch":
    case "AmountBelowFees":
    case "InvalidTerms":
      return new DomainError("INVALID_SUBSCRIPTION", { detail: name });
    case "Error": // the token's own Error(string) revert, classified in one table
      return tokenRefusal(error) ?? new DomainError("RELAYER_ERROR", { detail: `unclassified token revert ${revertReason(error)}` });
    case null:
      return toRpcError(error);
    default:
      return new DomainError("RELAYER_ERROR", { detail: `unexpected revert ${name}` });
  }
}

/**
 * Maps the revert data a `chargeBatch` item was skipped with (its `ChargeSkipped` reason) to the
 * answer the same revert of a single charge gets; null for `PeriodAlreadyCharged`.
 */
export function skippedRefusal(reason: Hex, secondsToStart: bigint): DomainError | null {
  // Stryker disable next-line StringLiteral: the function's name only words viem's message; the revert is read by its decoded name
  const error = new ContractFunctionRevertedError({ abi: recurringChargesAbi, data: reason, functionName: "chargeBatchItem" });
  if (reason === "0x") return new DomainError("RELAYER_ERROR", { detail: "a batch item ran out of gas" });
  return chargeRefusal(error, secondsToStart);
}
