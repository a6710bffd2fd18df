import { decodeFunctionData, parseTransaction, type Address, type Hex, type PublicClient } from "viem";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import { agreeOnReceipt } from "../chain/agreement.js";
import { isReceiptSettled } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import { isKnownTransaction, readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import { costOf, RELAYER_RESEND_AFTER_MS, type RelayerLedger, type SettlementSender } from "../payments/relayer-call.js";
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
  const { client, store } = deps;
  const receipt = await readReceipt(client, t.hash);
  if (receipt) {
    // Final first (at or below the finality head, its block still canonical), then on a majority's word.
    if (!(await isReceiptSettled(client, deps.finality, receipt))) return false;
    const agreed = await agreeOnReceipt("watch_end", client, deps.finality, receipt);
    if (!agreed) return false;
    // An authorization (or charge) that passed its simulation and reverted: only its payer could make it
    // (a cancelled authorization, funds moved, two-faced ERC-1271 code), so the payer is refused a while.
    if (agreed.status !== "success" && (t.operation === "authorize" || t.operation === "charge") && deps.payers) {
      const payer = payerIn(t.raw);
      if (payer) await deps.payers.refusePayer(payer, deps.now() + REVERTED_PAYER_REFUSAL_MS);
    }
    await store.markDone(t.hash, "mined");
    const operation = t.operation === "charge" ? "auth_capture_charge" : `hold_${t.operation}`;
    deps.ledger?.spent(operation, costOf(agreed));
    if (agreed.status === "success") deps.ledger?.earned(operation, feeIn(agreed.logs, deps.sets ?? []));
    return true;
  }
  const used = await rpc(() => client.getTransactionCount({ address: t.relayer, blockTag: "latest" }));
  if (used > t.nonce) {
    await store.markDone(t.hash, "dropped"); // another transaction (or a replacement) took its nonce
    return true;
  }
  // Sent again or replaced only by the key that signed it (this instance's, or a retired one it holds).
  const sender = [deps.sender, ...(deps.retiredSenders ?? [])].find((s) => s.address === t.relayer);
  if (!sender) return false;
  const age = deps.now() - t.sentAt;
  if (!(await isKnownTransaction(client, t.hash))) {
    if (age > RELAYER_RESEND_AFTER_MS) await sender.broadcast(t.raw).catch(() => {});
  } else if (age > deps.replaceAfterMs) {
    const next = await sender.signReplacement(t.raw, await deps.quoteFees(), "hold");
    if (next && (await store.replace(t.hash, next, deps.now()))) await sender.broadcast(next.raw).catch(() => {});
  }
  return false;
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
