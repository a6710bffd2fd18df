import { decodeFunctionData, parseTransaction, type Address, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import { isSettled, readReceiptsAfterHead } from "../chain/finality.js";
import { agreeOnReceipt } from "../chain/agreement.js";
import type { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import { isKnownTransaction } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import type { ChargeAttempt, ChargeAttempts } from "../store/charge-attempts.js";
import type { ChargeResponse } from "../wire/index.js";
import { chargedInAnswer, paidAnswer, periodAnswer } from "./charge-answers.js";
import { skippedRefusal } from "./charge-errors.js";
import type { Terms } from "./terms.js";

export interface FollowDeps {
  client: PublicClient;
  finality: Finality;
  contract: RecurringChargesReader;
  attempts: ChargeAttempts;
  /** Sends a recorded signed transaction again (it never reached the node, or was dropped). */
  broadcast(raw: Hex): Promise<void>;
  /**
   * A charge of `payer`'s passed its simulation and failed on chain for a reason of the payer's: none
   * of theirs is sent for a while (charges.ts), so a retry cannot make the relayer pay for it again.
   */
  refusePayer(payer: Address): Promise<void>;
}

/**
 * The refusals of a skipped batch item that are the payer's doing (its signature check, which an
 * ERC-1271 account's code can answer one way in a simulation and another on chain; its funds). Not a
 * timing of the service's (PeriodMismatch), the token's pause, the merchant's blacklisting, a revocation.
 */
const PAYERS_FAILURES = new Set(["INVALID_SIGNATURE", "INSUFFICIENT_BALANCE", "INSUFFICIENT_ALLOWANCE"]);

/** Whether a recorded transaction is a lone `charge` (not a `chargeBatch`, whose revert is the batch's own). */
function isLoneCharge(rawTx: Hex): boolean {
  try {
    const { data } = parseTransaction(rawTx);
    return data !== undefined && decodeFunctionData({ abi: recurringChargesAbi, data }).functionName === "charge";
  } catch {
    return false;
  }
}

/**
 * Follows a recorded transaction through every hash it was sent with (a replacement's or the
 * original's may be the one mined). Null means it is gone for good (never reached the chain and
 * can no longer be sent): the caller charges anew, which the contract still limits to once a period.
 */
export async function followAttempt(deps: FollowDeps, terms: Terms, id: Hex, period: bigint, attempt: ChargeAttempt): Promise<ChargeResponse | null> {
  const { client, attempts, contract } = deps;
  // The finality head, then every hash's receipt in one batch: a receipt read after the head and at
  // or below it is settled.
  const { head, receipts } = await readReceiptsAfterHead(client, deps.finality, attempt.txHashes);
  const receipt = receipts.find((r) => r !== null) ?? null;
  if (!receipt) {
    if (await isKnownTransaction(client, attempt.txHash)) return periodAnswer("CONFIRMING", terms, id, period, attempt.txHash);
    const paidIn = await contract.chargedBlock(id, period);
    if (paidIn !== 0n) {
      // Charged, but by which transaction? This attempt's own may have been broadcast (by another
      // instance) and mined just after the reads above: then its record stays. Only a record whose
      // transaction the node still does not know is dropped.
      if (!(await isKnownTransaction(client, attempt.txHash))) await attempts.remove(id, period, attempt.txHash);
      return chargedInAnswer(deps, terms, id, period, paidIn);
    }
    // Unknown to the node: recorded but never broadcast (a crash), or reorged out and dropped, or
    // still in its owner's outbox (another instance's relayer waiting for the pool's window).
    try {
      await deps.broadcast(attempt.rawTx);
      return periodAnswer("CONFIRMING", terms, id, period, attempt.txHash);
    } catch (error) {
      // This instance has no relayer key: its owner's outbox may still hold it, so the record stays.
      if (error instanceof DomainError && error.code === "RELAYER_UNAVAILABLE") throw error;
      // Refused because its owner sent it meanwhile (already known, or its nonce already used by
      // it): it is on its way or mined, and its record must stay. Only a transaction the node still
      // does not know, and that charged nothing, is gone for good.
      if (await isKnownTransaction(client, attempt.txHash)) return periodAnswer("CONFIRMING", terms, id, period, attempt.txHash);
      const charged = await contract.chargedBlock(id, period);
      if (charged !== 0n) return chargedInAnswer(deps, terms, id, period, charged);
      await attempts.remove(id, period, attempt.txHash);
      return null;
    }
  }
  if (receipt.status !== "success") {
    await attempts.remove(id, period, attempt.txHash);
    const paidIn = await contract.chargedBlock(id, period);
    if (paidIn !== 0n) return chargedInAnswer(deps, terms, id, period, paidIn);
    // A lone charge carries nothing but this payer's: its revert (out of gas in the payer's check, or
    // any refusal the simulation did not see) is theirs.
    if (isLoneCharge(attempt.rawTx)) await deps.refusePayer(terms.payer);
    throw new DomainError("TRANSACTION_REVERTED");
  }
  if (!contract.chargedIn(receipt, id, period)) {
    // Mined, but this period was not charged by it: a batch item skipped (its reason is in the
    // receipt), so nothing was charged for it by this transaction.
    await attempts.remove(id, period, attempt.txHash);
    const paidIn = await contract.chargedBlock(id, period);
    if (paidIn !== 0n) return chargedInAnswer(deps, terms, id, period, paidIn);
    const reason = contract.skippedIn(receipt, id, period);
    const refusal = reason === undefined ? null : skippedRefusal(reason, 0n);
    if (refusal && PAYERS_FAILURES.has(refusal.code)) await deps.refusePayer(terms.payer);
    throw refusal ?? new DomainError("TRANSACTION_REVERTED", { detail: "the batch charged nothing for this period" });
  }
  if (!isSettled(receipt.blockNumber, head)) {
    return periodAnswer("CONFIRMING", terms, id, period, receipt.transactionHash);
  }
  // The relayer takes its own transaction as mined, and the payer's period as paid, on the receipt a
  // majority of the nodes hold: it must itself be a success that charged this period.
  const held = await agreeOnReceipt("charged", client, deps.finality, receipt);
  if (held?.status !== "success" || !contract.chargedIn(held, id, period)) return periodAnswer("CONFIRMING", terms, id, period, receipt.transactionHash);
  // CHARGED once per period across every instance: only the caller whose compare-and-set moves the
  // attempt from 'sent' to 'reported' says CHARGED; every other answer for the period is ALREADY_CHARGED.
  const first = attempt.status === "sent" && (await attempts.markReported(id, period));
  return paidAnswer(first ? "CHARGED" : "ALREADY_CHARGED", terms, id, period, held);
}
