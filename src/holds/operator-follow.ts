import { decodeFunctionData, parseTransaction, type Address, type Hex, type PublicClient } from "viem";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import { agreeOnReceipt } from "../chain/agreement.js";
import { rpc } from "../chain/rpc-errors.js";
import { isKnownTransaction, readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import type { SettlementSender } from "../payments/relayer-call.js";
import type { HoldTransaction, HoldTransactionStore } from "../store/hold-transactions.js";

/** How long a payer whose authorization reverted on chain is refused: the hour x402's settlements refuse one for (X402_REVERTED_PAYER_REFUSAL_MS). */
export const REVERTED_PAYER_REFUSAL_MS = 60 * 60_000;

/** A sent operator call the node does not know after this long is broadcast again. */
export const HOLD_RESEND_AFTER_MS = 30_000;

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
    const agreed = await agreeOnReceipt("watch_end", client, deps.finality, receipt);
    if (!agreed) return false;
    // An authorization (or charge) that passed its simulation and reverted: only its payer could make it
    // (a cancelled authorization, funds moved, two-faced ERC-1271 code), so the payer is refused a while.
    if (agreed.status !== "success" && (t.operation === "authorize" || t.operation === "charge") && deps.payers) {
      const payer = payerIn(t.raw);
      if (payer) await deps.payers.refusePayer(payer, deps.now() + REVERTED_PAYER_REFUSAL_MS);
    }
    await store.markDone(t.hash, "mined");
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
    if (age > HOLD_RESEND_AFTER_MS) await sender.broadcast(t.raw).catch(() => {});
  } else if (age > deps.replaceAfterMs) {
    const next = await sender.signReplacement(t.raw, await deps.quoteFees(), "settlement");
    if (next && (await store.replace(t.hash, next, deps.now()))) await sender.broadcast(next.raw).catch(() => {});
  }
  return false;
}

/** The payer an authorize or charge transaction names (its PaymentInfo's), from its signed bytes. */
function payerIn(raw: Hex): Address | null {
  try {
    const { data } = parseTransaction(raw);
    if (!data) return null;
    const call = decodeFunctionData({ abi: authCaptureEscrowAbi, data });
    return call.functionName === "authorize" || call.functionName === "charge" ? call.args[0].payer : null;
  } catch {
    return null;
  }
}
