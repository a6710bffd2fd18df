import { BaseError, ContractFunctionRevertedError, type PublicClient } from "viem";
import { agreedSimulation, type CeilingSimulation } from "../chain/relayer-reads.js";
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

/** Named for a revert that carries no data (a function the escrow does not have, or a bare `revert()`). */
const NO_REASON = "(revert without data)";

/** The escrow's revert of a simulated call: its custom error by name (never by message text) and arguments; null when the call did not revert (a node's failure). */
function escrowRevert(error: unknown): { name: string; args: readonly unknown[] } | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return null;
  if (!reverted.data) return { name: NO_REASON, args: [] };
  return { name: reverted.data.errorName, args: reverted.data.args ?? [] };
}

/**
 * A hold call simulated once at its gas ceiling as a majority of the chain's hosts answer it
 * (`agreedSimulation`, at one pinned block): whether it passes within the ceiling; a revert the
 * majority simulates alike is the escrow's refusal in the service's words (the same call can never
 * succeed, so the answer says what to change instead of RETRY). A node's failure is RPC_ERROR or
 * RPC_BUSY, and so are nodes that answer no majority alike: retryable.
 */
export async function agreedHoldSimulation(
  client: PublicClient,
  simulate: (node: PublicClient, blockNumber: bigint | undefined) => Promise<unknown>,
  collected: () => Promise<boolean>,
): Promise<CeilingSimulation> {
  try {
    return await agreedSimulation("escrow_refused", client, simulate);
  } catch (error) {
    throw await escrowRefusal(error, collected);
  }
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
    case "InvalidExpiries":
    case "FeeBpsOverflow":
    case "InvalidFeeBpsRange":
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
      // The call as the service makes it (its sender, fee, collector, or a function the escrow lacks): never a retry.
      return new DomainError("ESCROW_REFUSED", { detail: name });
  }
}

async function nothingCapturable(collected: () => Promise<boolean>): Promise<DomainError> {
  return (await collected()) ? new DomainError("HOLD_CLOSED") : new DomainError("HOLD_NOT_AUTHORIZED");
}
