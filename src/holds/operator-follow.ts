import { decodeFunctionData, parseTransaction, type Address, type Hex, type PublicClient } from "viem";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import type { Finality } from "../config.js";
import { followSent } from "../payments/relayer-follow.js";
import { costOf, type RelayerLedger, type SettlementSender } from "../payments/relayer-call.js";
import { decodeEscrowEvent } from "./escrow-events.js";
import type { HoldTransaction, HoldTransactionStore } from "../store/hold-transactions.js";

/** How long a payer whose authorization reverted on chain is refused: the hour x402's settlements refuse one for (X402_REVERTED_PAYER_REFUSAL_MS). */
export const REVERTED_PAYER_REFUSAL_MS = 60 * 60_000;

export interface HoldFollowDeps {
  client: PublicClient;
  store: HoldTransactionStore;
  sender: SettlementSender;
  /** The retired relayer accounts (RELAYER_RETIRED_KEYS): each follows the calls it sent. */
  retiredSenders?: readonly SettlementSender[];
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  now: () => number;
  replaceAfterMs: number;
  finality: Finality;
  payers?: RevertedPayers;
  /** Where each mined call's gas and fee are counted (/metrics); a fee only from these escrows' own logs. */
  ledger?: RelayerLedger;
  sets?: ReadonlyArray<{ escrow: Address }>;
  onError?: (hash: Hex, error: unknown) => void;
}

/** Where payers whose escrow call reverted on chain are refused for a while (store/x402-answers.ts). */
export interface RevertedPayers {
  refusePayer(payer: Address, untilMs: number): Promise<void>;
  isPayerRefused(payer: Address, nowMs: number): Promise<boolean>;
}

/**
 * One round over the operator's recorded transactions, the relayer's rule for every transaction it
 * sends: mined (on a majority of the nodes' word, final) or its nonce used by another transaction
 * ends one, and frees its hold for the next call; a lost one is broadcast again and a stuck one
 * replaced within the fee ceiling, by the instance holding the key that signed it. One
 * transaction's error never stops the round. Returns how many ended.
 */
export async function followHoldTransactions(deps: HoldFollowDeps, limit: number): Promise<number> {
  let done = 0;
  for (const t of await deps.store.sent(limit)) {
    try {
      if (await followOne(deps, t)) done++;
    } catch (error) {
      deps.onError?.(t.hash, error);
    }
  }
  return done;
}

async function followOne(deps: HoldFollowDeps, t: HoldTransaction): Promise<boolean> {
  const { store } = deps;
  const senders = [deps.sender, ...(deps.retiredSenders ?? [])];
  const step = await followSent({ ...deps, senders }, t, "hold", (next) => store.replace(t.hash, next, deps.now()));
  if (step.state === "sent") return false;
  if (step.state === "dropped") {
    await store.markDone(t.hash, "dropped");
    return true;
  }
  const agreed = step.receipt;
  // An authorization (or charge) that passed its simulation and reverted: only its payer could make it
  // (a cancelled authorization, funds moved, two-faced ERC-1271 code), so the payer is refused a while.
  if (agreed.status !== "success" && (t.operation === "authorize" || t.operation === "charge") && deps.payers) {
    const payer = payerIn(t.raw);
    if (payer) await deps.payers.refusePayer(payer, deps.now() + REVERTED_PAYER_REFUSAL_MS);
  }
  await store.markDone(t.hash, "mined");
  // Each call under its own kind: a hold's authorization, capture or void is no settlement.
  const operation = t.operation === "charge" ? "auth_capture_charge" : `hold_${t.operation}`;
  deps.ledger?.spent(operation, costOf(agreed));
  if (agreed.status === "success") deps.ledger?.earned(operation, feeIn(agreed.logs, deps.sets ?? []));
  return true;
}

/** The payer an authorize or charge transaction names (its PaymentInfo's), from its signed bytes. */
export function payerIn(raw: Hex): Address | null {
  try {
    const { data } = parseTransaction(raw);
    if (!data) return null;
    const call = decodeFunctionData({ abi: authCaptureEscrowAbi, data });
    return call.functionName === "authorize" || call.functionName === "charge" ? call.args[0].payer : null;
  } catch {
    return null;
  }
}

/** The fee an escrow call took for the fee collector: its PaymentCaptured's or PaymentCharged's fee amount. */
function feeIn(logs: ReadonlyArray<{ address: Address; data: Hex; topics: readonly Hex[] }>, sets: ReadonlyArray<{ escrow: Address }>): bigint {
  for (const log of logs) {
    if (!sets.some((s) => s.escrow.toLowerCase() === log.address.toLowerCase())) continue;
    const event = decodeEscrowEvent(log as never);
    if (event?.eventName === "PaymentCaptured" || event?.eventName === "PaymentCharged") return event.args.feeAmount;
  }
  return 0n;
}
