import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { agreeOnReceipt, type Agreed } from "../chain/agreement.js";
import { isReceiptSettled } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import { isKnownTransaction, readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import { RELAYER_RESEND_AFTER_MS, type SettlementSender } from "./relayer-call.js";

/** A relayer transaction recorded before it was broadcast: what following it needs. */
export interface SentTransaction {
  hash: Hex;
  relayer: Address;
  nonce: number;
  raw: Hex;
  sentAt: number;
}

export interface RelayerFollowDeps {
  client: PublicClient;
  finality: Finality;
  /** The keys this instance holds (the relayer's, and retired ones): only the key that signed a transaction sends it again or replaces it. */
  senders: readonly SettlementSender[];
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  now: () => number;
  /** A transaction still unmined this long after it was sent is replaced with a higher fee, within the relayer's ceiling. */
  replaceAfterMs: number;
}

/** Where a followed transaction stands: mined (final, on a majority's receipt), its nonce taken by another, or still on its way. */
export type FollowedStep = { state: "mined"; receipt: Agreed<TransactionReceipt> } | { state: "dropped" } | { state: "sent" };

/**
 * The relayer's rule for one of its recorded transactions, the same for every follower of them (the
 * x402 receivers' settlements, the holds' operator calls; the deposit settler's resending and
 * replacing): mined once its receipt is final (at or below the finality head, its block still
 * canonical) and then as a majority of the nodes hold it, never on one node's word first; its nonce
 * used by another transaction, dropped; otherwise sent again if the node lost it, or replaced at a
 * higher fee if it is stuck (see {@link resendOrReplace}).
 */
export async function followSent(
  deps: RelayerFollowDeps,
  t: SentTransaction,
  kind: "settlement" | "hold",
  replace: (next: { hash: Hex; raw: Hex }) => Promise<boolean>,
): Promise<FollowedStep> {
  const { client, finality } = deps;
  const receipt = await readReceipt(client, t.hash);
  if (receipt) {
    if (!(await isReceiptSettled(client, finality, receipt))) return { state: "sent" };
    const agreed = await agreeOnReceipt("watch_end", client, finality, receipt);
    return agreed ? { state: "mined", receipt: agreed } : { state: "sent" };
  }
  const used = await rpc(() => client.getTransactionCount({ address: t.relayer, blockTag: "latest" }));
  if (used > t.nonce) return { state: "dropped" }; // another transaction (or a replacement) took its nonce
  await resendOrReplace(deps, t, kind, replace);
  return { state: "sent" };
}

/**
 * A recorded transaction not mined: broadcast again once the node has lost it for
 * RELAYER_RESEND_AFTER_MS (dropped, or reorged out), or, known and unmined past `replaceAfterMs`,
 * the same call with the same nonce at a higher fee, recorded by `replace` before it is broadcast
 * (over the relayer's fee ceiling it waits at its bid, counted under `kind`). Only by the key that
 * signed it: an instance without it leaves both to the instances that hold it.
 */
export async function resendOrReplace(
  deps: Omit<RelayerFollowDeps, "finality">,
  t: Pick<SentTransaction, "hash" | "relayer" | "raw" | "sentAt">,
  kind: "settlement" | "hold",
  replace: (next: { hash: Hex; raw: Hex }) => Promise<boolean>,
): Promise<void> {
  const sender = deps.senders.find((s) => s.address !== null && s.address.toLowerCase() === t.relayer.toLowerCase());
  if (!sender) return;
  const age = deps.now() - t.sentAt;
  if (!(await isKnownTransaction(deps.client, t.hash))) {
    if (age > RELAYER_RESEND_AFTER_MS) await sender.broadcast(t.raw).catch(() => {});
  } else if (age > deps.replaceAfterMs) {
    const next = await sender.signReplacement(t.raw, await deps.quoteFees(), kind);
    if (next && (await replace(next))) await sender.broadcast(next.raw).catch(() => {});
  }
}
