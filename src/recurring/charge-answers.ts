import type { Hex } from "viem";
import { finalityHead, isSettled } from "../chain/finality.js";
import { agreeOnLogs } from "../chain/agreement.js";
import type { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import type { Finality } from "../config.js";
import { formatAmount } from "../money.js";
import type { ChargeResponse, ChargeStatus } from "../wire/index.js";
import type { PublicClient } from "viem";
import type { Terms } from "./terms.js";

/**
 * A charge's answer for one period: its status, what the caller should do, the period's bounds and,
 * when a transaction is named, its hash and the amount.
 */
export function periodAnswer(status: ChargeStatus, terms: Terms, id: Hex, period: bigint, txHash?: Hex): ChargeResponse {
  const periodStart = terms.start + period * terms.period;
  const periodEnd = periodStart + terms.period;
  return {
    status,
    ok: status !== "CONFIRMING",
    already_paid: status === "ALREADY_CHARGED",
    action: status === "CONFIRMING" ? "WAIT" : "SUCCESS",
    subscription_id: id,
    period_index: Number(period),
    period_start: Number(periodStart),
    period_end: Number(periodEnd),
    next_period_at: terms.end !== 0n && periodEnd >= terms.end ? null : Number(periodEnd),
    ...(txHash ? { tx_hash: txHash, amount: formatAmount(terms.amount) } : {}),
  };
}

/**
 * The answer for a period the contract says was charged in block `paidIn` by a transaction this
 * call did not follow: ALREADY_CHARGED only once that block is at or below the finality head,
 * CONFIRMING (WAIT, with the transaction's hash) before. Never a success ahead of the chain.
 */
export async function chargedInAnswer(
  chain: { client: PublicClient; finality: Finality; contract: RecurringChargesReader },
  terms: Terms,
  id: Hex,
  period: bigint,
  paidIn: bigint,
): Promise<ChargeResponse> {
  const [logs, head] = await Promise.all([chain.contract.chargedLogs(id, period, paidIn), finalityHead(chain.client, chain.finality)]);
  // Already charged on what a majority of the nodes hold: this period's Charged log, in the block the
  // contract names, final on each. No log is no claim: a node naming a block with no log proves nothing.
  const claimed = logs.filter((l) => l.blockNumber === paidIn).slice(0, 1);
  const held = isSettled(paidIn, head) ? await agreeOnLogs("already_charged", chain.client, chain.finality, claimed) : null;
  return held
    ? periodAnswer("ALREADY_CHARGED", terms, id, period, held[0]!.transactionHash)
    : periodAnswer("CONFIRMING", terms, id, period, logs[0]?.transactionHash);
}
