import type { Hex } from "viem";
import { DomainError } from "../errors.js";
import { finalityHead, isSettled } from "../chain/finality.js";
import { agreeOnLogs, type Agreed } from "../chain/agreement.js";
import type { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import type { Finality } from "../config.js";
import { formatAmount } from "../money.js";
import type { ChargeResponse, ChargeStatus } from "../wire/index.js";
import type { PublicClient } from "viem";
import type { Terms } from "./terms.js";

/** What a charge's answers read: the chain, its finality rule, and RecurringCharges. */
export type ChargeChain = { client: PublicClient; finality: Finality; contract: RecurringChargesReader };

/**
 * A charge's answer for one period still confirming (WAIT): the period's bounds and, when a
 * transaction is named, its hash and the amount. A paid answer is {@link paidAnswer}'s alone.
 */
export function periodAnswer(status: "CONFIRMING", terms: Terms, id: Hex, period: bigint, txHash?: Hex): ChargeResponse {
  return answer(status, terms, id, period, txHash);
}

/**
 * What a period's paid answer stands on: the door's agreed receipt of the charge, or the agreed
 * Charged log(s) of the period (the first names the transaction). Only agreement.ts makes one.
 */
export type PaidProof = Agreed<{ transactionHash: Hex }> | Agreed<ReadonlyArray<{ transactionHash: Hex | null }>>;

/**
 * A period's paid answer, CHARGED or ALREADY_CHARGED: built only from what a majority of the nodes
 * hold (the type is the guarantee: one node's receipt or log does not compile here), naming the
 * transaction the majority holds.
 */
export function paidAnswer(status: Exclude<ChargeStatus, "CONFIRMING">, terms: Terms, id: Hex, period: bigint, proof: PaidProof): ChargeResponse {
  const txHash = "transactionHash" in proof ? proof.transactionHash : (proof as ReadonlyArray<{ transactionHash: Hex | null }>)[0]?.transactionHash;
  if (!txHash) throw new Error("a paid answer stands on a transaction");
  return answer(status, terms, id, period, txHash);
}

function answer(status: ChargeStatus, terms: Terms, id: Hex, period: bigint, txHash?: Hex): ChargeResponse {
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
export async function chargedInAnswer(chain: ChargeChain, terms: Terms, id: Hex, period: bigint, paidIn: bigint): Promise<ChargeResponse> {
  const [logs, head] = await Promise.all([chain.contract.chargedLogs(id, period, paidIn), finalityHead(chain.client, chain.finality)]);
  // Already charged on what a majority of the nodes hold: this period's Charged log, in the block the
  // contract names, final on each. No log is no claim: a node naming a block with no log proves nothing.
  // Every such log the node read answered is claimed: a forged one it put first is left out, not taken
  // for the period's.
  const claimed = logs.filter((l) => l.blockNumber === paidIn);
  // Stryker disable next-line StringLiteral: the kind labels the sealed proof for tests and logs; the answer made of it does not carry it (test/unit/verdict-door.test.ts holds this call to its kind)
  const held = isSettled(paidIn, head) ? await agreeOnLogs("already_charged", chain.client, chain.finality, claimed) : null;
  return held?.[0] ? paidAnswer("ALREADY_CHARGED", terms, id, period, held) : periodAnswer("CONFIRMING", terms, id, period, logs[0]?.transactionHash);
}

/** When period `period` of `terms` stops being chargeable: its end, or the subscription's end if sooner. */
export function periodCloses(terms: Terms, period: bigint): bigint {
  const periodEnd = terms.start + (period + 1n) * terms.period;
  if (terms.end === 0n) return periodEnd;
  // Stryker disable next-line EqualityOperator: at terms.end = periodEnd either side of `<` and `<=` answers the same value
  return terms.end < periodEnd ? terms.end : periodEnd;
}

/**
 * How close to a period's close the service still sends its charge: 60 s (300 of Base's 200 ms blocks, room for a
 * full pool's queue and a replacement), or a quarter of a shorter period.
 */
export function sendMargin(terms: Terms): bigint {
  const quarter = terms.period / 4n;
  // Stryker disable next-line EqualityOperator: at a quarter of 60 either side of `<` and `<=` answers 60
  return quarter < 60n ? quarter : 60n;
}

/**
 * The contract charges only the period named (PeriodMismatch otherwise): a charge that could be
 * mined after its period ends is not sent. Ask again when the next period starts.
 */
export function refuseNearClose(terms: Terms, period: bigint, now: bigint): void {
  const closes = periodCloses(terms, period);
  if (closes - now <= sendMargin(terms)) throw new DomainError("NOT_DUE", { retryAfter: Number(closes - now) + 1 });
}

// Stryker disable next-line StringLiteral: an RPC_ERROR's detail reaches no answer, header or log (its body is the code, action and retry_after)
const MOVED_UNDER = "the chain moved under the charge (reorg in progress)";

/** This period was charged (the simulation reverted `PeriodAlreadyCharged`): the block it was charged in, then its answer. */
export async function alreadyChargedAnswer(chain: ChargeChain, terms: Terms, id: Hex, period: bigint): Promise<ChargeResponse> {
  const paid = await chain.contract.chargedBlock(id, period);
  // Stryker disable next-line ObjectLiteral: an RPC_ERROR's detail reaches no answer, header or log (its body is the code, action and retry_after)
  if (paid === 0n) throw new DomainError("RPC_ERROR", { detail: MOVED_UNDER });
  return chargedInAnswer(chain, terms, id, period, paid);
}

/**
 * Without a relayer key nothing can be sent or simulated (the contract takes charges from its
 * relayers only): the subscription's state still answers first (revoked, ended, this period
 * charged), then the period's close, then RELAYER_UNAVAILABLE.
 */
export async function answerWithoutRelayer(
  chain: ChargeChain,
  terms: Terms,
  id: Hex,
  period: bigint,
  block: { number: bigint; timestamp: bigint },
): Promise<ChargeResponse> {
  const now = block.timestamp;
  const { revoked, paidCount, lastPeriod } = await chain.contract.subscription(id, block.number);
  if (revoked) throw new DomainError("PERMISSION_REVOKED");
  if (terms.end !== 0n && now >= terms.end) throw new DomainError("SUBSCRIPTION_EXPIRED");
  if (paidCount > 0 && lastPeriod === period) {
    const paidIn = await chain.contract.chargedBlock(id, period, block.number);
    if (paidIn !== 0n) return chargedInAnswer(chain, terms, id, period, paidIn);
  }
  refuseNearClose(terms, period, now);
  throw new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key" });
}
