import { BaseError, ContractFunctionRevertedError, ContractFunctionZeroDataError, type Address, type PublicClient } from "viem";
import { fiatTokenAbi } from "../generated/contracts.js";
import { DomainError, type ErrorCode } from "../errors.js";
import { rpc } from "./rpc-errors.js";

/**
 * The token's own `Error(string)` reverts the service acts on: the ONE table that classifies them
 * (USDC is Circle's FiatToken; its reasons are its code's, byte for byte). Each entry is tested on
 * real USDC in test/api/token-refusals.test.ts. A reason not listed here is not classified.
 */
export const TOKEN_REVERT_REASONS = {
  /** FiatToken `notBlacklisted`: the payer, the recipient, the fee collector or the calling contract is blacklisted. */
  "Blacklistable: account is blacklisted": "ACCOUNT_BLOCKED",
  /** FiatToken `whenNotPaused`: the pauser stopped every transfer, approval and authorization. */
  "Pausable: paused": "TOKEN_PAUSED",
  /** FiatToken `_transfer`: the payer holds less than the transfer. */
  "ERC20: transfer amount exceeds balance": "INSUFFICIENT_BALANCE",
  /** FiatToken `transferFrom`: the allowance is less than the transfer. */
  "ERC20: transfer amount exceeds allowance": "INSUFFICIENT_ALLOWANCE",
} as const satisfies Record<string, ErrorCode>;

/** The `Error(string)` reason a failed call or simulation carries, or null when it carries none. */
export function revertReason(error: unknown): string | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return null;
  if (reverted.data?.errorName === "Error") return String(reverted.data.args?.[0] ?? "");
  return reverted.reason ?? null;
}

/** The service error a token's `Error(string)` revert means, or null when the table does not list it. */
export function tokenRefusal(error: unknown): DomainError | null {
  const reason = revertReason(error);
  if (reason === null || !(reason in TOKEN_REVERT_REASONS)) return null;
  return new DomainError(TOKEN_REVERT_REASONS[reason as keyof typeof TOKEN_REVERT_REASONS], { detail: reason });
}

/**
 * Refuses, before anything is sent or signed, a transfer the token will refuse: ACCOUNT_BLOCKED
 * (400, STOP) when any of `accounts` (payer, recipient, fee collector, the contract that moves the
 * funds) is blacklisted, else TOKEN_PAUSED (503, RETRY) when the token is paused. Reads FiatToken's
 * `isBlacklisted` and `paused`; a token without them (it reverts or returns nothing) has no such refusals.
 */
export async function checkTokenWillTransfer(client: PublicClient, token: Address, accounts: readonly Address[]): Promise<void> {
  refuseTransfer(await readTokenState(client, token, accounts));
}

/** What FiatToken says of a transfer: paused (null when the token has no `paused`), and whether any of the accounts is blacklisted. */
export interface TokenState {
  paused: boolean | null;
  blocked: boolean;
}

/**
 * Reads `paused` and `isBlacklisted` of `accounts` at once (several callers can share one read of
 * what they have in common).
 */
export async function readTokenState(client: PublicClient, token: Address, accounts: readonly Address[]): Promise<TokenState> {
  const [paused, ...blocked] = await Promise.all([
    optional(() => client.readContract({ address: token, abi: fiatTokenAbi, functionName: "paused" })),
    ...accounts.map((account) => optional(() => client.readContract({ address: token, abi: fiatTokenAbi, functionName: "isBlacklisted", args: [account] }))),
  ]);
  return { paused, blocked: blocked.some((b) => b === true) };
}

/** ACCOUNT_BLOCKED when any state says an account is blacklisted, else TOKEN_PAUSED when any says paused. */
export function refuseTransfer(...states: TokenState[]): void {
  if (states.some((s) => s.blocked)) throw new DomainError("ACCOUNT_BLOCKED");
  if (states.some((s) => s.paused === true)) throw new DomainError("TOKEN_PAUSED");
}

/** A read the token may not have: its answer, or null when it reverts or returns nothing; RPC failures map as usual. */
async function optional<T>(read: () => Promise<T>): Promise<T | null> {
  return rpc(async () => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError) !== null)
        return null;
      throw error;
    }
  });
}
