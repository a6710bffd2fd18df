import { BaseError, ContractFunctionRevertedError } from "viem";
import { DomainError, type ErrorCode } from "../errors.js";
import { toRpcError } from "../chain/rpc-errors.js";
import { revertReason, tokenRefusal } from "../chain/token-refusals.js";

/**
 * USDC's (FiatToken v2.2) reasons for refusing the buyer's ERC-3009 authorization when the collector
 * redeems it, byte for byte: what the service answers for each. Other token reasons go through the
 * shared table (chain/token-refusals.ts).
 */
export const AUTHORIZATION_REVERT_REASONS = {
  "FiatTokenV2: invalid signature": ["INVALID_SIGNATURE", "the signature is not the payer's over these terms"],
  "ECRecover: invalid signature": ["INVALID_SIGNATURE", "not a signature"],
  "ECRecover: invalid signature 'v' value": ["INVALID_SIGNATURE", "not a signature"],
  "ECRecover: invalid signature 's' value": ["INVALID_SIGNATURE", "not a signature"],
  "ECRecover: invalid signature length": ["INVALID_SIGNATURE", "not a signature"],
  "FiatTokenV2: authorization is used or canceled": ["HOLD_ALREADY_AUTHORIZED", "the authorization was used or canceled"],
  "FiatTokenV2: authorization is expired": ["HOLD_EXPIRED", "the authorization's deadline passed"],
  "FiatTokenV2: authorization is not yet valid": ["INVALID_HOLD", "the authorization is not valid yet"],
  "FiatTokenV2: caller must be the payee": ["INVALID_HOLD", "the authorization is not to the collector"],
} as const satisfies Record<string, readonly [ErrorCode, string]>;

/** The escrow's custom error a simulated call reverted with, by name (never by message text), and its arguments. */
function escrowRevert(error: unknown): { name: string; args: readonly unknown[] } | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError) || !reverted.data) return null;
  return { name: reverted.data.errorName, args: reverted.data.args ?? [] };
}

/**
 * Maps a refused operator call (its simulation) to the service's answer, by the escrow's decoded
 * error name. `InsufficientAuthorization` and `ZeroAuthorization` say nothing is capturable; whether
 * that is because the buyer has not authorized yet or because the hold is closed comes from
 * `collected` (the escrow's `hasCollectedPayment`, read by the caller).
 */
export function escrowRefusal(error: unknown, collected: () => Promise<boolean>): Promise<DomainError> | DomainError {
  const revert = escrowRevert(error);
  if (!revert) return toRpcError(error);
  const { name, args } = revert;
  switch (name) {
    case "InsufficientAuthorization":
      if (args[1] === 0n) return nothingCapturable(collected);
      return new DomainError("HOLD_AMOUNT_EXCEEDS_AUTHORIZED", { detail: `authorized ${String(args[1])}` });
    case "ZeroAuthorization":
      return nothingCapturable(collected);
    case "ExceedsMaxAmount":
    case "AmountOverflow":
      return new DomainError("HOLD_AMOUNT_EXCEEDS_AUTHORIZED", { detail: name });
    case "ZeroAmount":
      return new DomainError("INVALID_REQUEST", { detail: "amount: at least 1 unit" });
    case "AfterPreApprovalExpiry":
    case "AfterAuthorizationExpiry":
    case "AfterRefundExpiry":
      return new DomainError("HOLD_EXPIRED", { detail: name });
    case "PaymentAlreadyCollected":
      return new DomainError("HOLD_ALREADY_AUTHORIZED");
    case "InvalidSender":
    case "InvalidExpiries":
    case "FeeBpsOverflow":
    case "InvalidFeeBpsRange":
    case "FeeAmountOutOfRange":
    case "ZeroFeeReceiver":
    case "InvalidFeeReceiver":
    case "InvalidCollectorForOperation":
    case "TokenCollectionFailed":
      return new DomainError("INVALID_HOLD", { detail: name });
    case "Error": {
      // The token's own Error(string): first its ERC-3009 authorization reasons, then the shared table.
      const reason = revertReason(error) ?? "";
      if (reason in AUTHORIZATION_REVERT_REASONS) {
        const [code, detail] = AUTHORIZATION_REVERT_REASONS[reason as keyof typeof AUTHORIZATION_REVERT_REASONS];
        return new DomainError(code, { detail });
      }
      return tokenRefusal(error) ?? new DomainError("RELAYER_ERROR", { detail: `unclassified token revert ${reason}` });
    }
    default:
      return new DomainError("RELAYER_ERROR", { detail: `unexpected revert ${name}` });
  }
}

async function nothingCapturable(collected: () => Promise<boolean>): Promise<DomainError> {
  return (await collected()) ? new DomainError("HOLD_CLOSED") : new DomainError("HOLD_NOT_AUTHORIZED");
}
