/*
 * The type is the guarantee (issue 59): where a verdict is formed, only what the door agreed
 * compiles. `npm run typecheck` reads this file: each `@ts-expect-error` below fails the typecheck
 * the day one node's value is accepted there. Never run; only compiled.
 */
import type { Hex, TransactionReceipt } from "viem";
import type { Agreed, ClaimedLog } from "../../src/chain/agreement.js";
import type { FinalHoldEvent, HoldEvent } from "../../src/holds/hold-log.js";
import { holdFigures } from "../../src/holds/hold-state.js";
import { paidAnswer, periodAnswer } from "../../src/recurring/charge-answers.js";
import type { Terms } from "../../src/recurring/terms.js";
import type { x402Hold } from "../../src/x402/auth-capture-hold.js";
import type { PayToTarget } from "../../src/x402/target.js";

export function rawReceiptsFormNoVerdict(target: PayToTarget, raw: TransactionReceipt, agreed: Agreed<TransactionReceipt>): boolean[] {
  return [
    // @ts-expect-error one node's receipt settles no x402 payment
    target.settledIn(raw),
    target.settledIn(agreed),
    // @ts-expect-error an Agreed value is made by the door alone
    target.settledIn({ ...raw } as TransactionReceipt & { agreed: true }),
  ];
}

/** Charges (src/recurring): CHARGED and ALREADY_CHARGED stand on the door's receipt or Charged log, never a node's. */
export function rawChargesFormNoVerdict(
  terms: Terms,
  id: Hex,
  raw: TransactionReceipt,
  agreed: Agreed<TransactionReceipt>,
  rawLogs: ClaimedLog[],
  agreedLogs: Agreed<ClaimedLog[]>,
) {
  return [
    // @ts-expect-error one node's receipt charges no period
    paidAnswer("CHARGED", terms, id, 0n, raw),
    paidAnswer("CHARGED", terms, id, 0n, agreed),
    // @ts-expect-error one node's Charged log says no period was already charged
    paidAnswer("ALREADY_CHARGED", terms, id, 0n, rawLogs),
    paidAnswer("ALREADY_CHARGED", terms, id, 0n, agreedLogs),
    // @ts-expect-error a paid answer is paidAnswer's alone: periodAnswer answers CONFIRMING
    periodAnswer("CHARGED", terms, id, 0n, raw.transactionHash),
    periodAnswer("CONFIRMING", terms, id, 0n, raw.transactionHash),
  ];
}

/** Holds (src/holds): a hold's figures and state are summed from agreed steps alone. */
export function rawStepsFormNoHoldState(raw: HoldEvent, final: FinalHoldEvent) {
  const deadlines = { authorizeBefore: 0, captureBefore: 0 };
  return [
    // @ts-expect-error a step read from one node's copy is no final step
    holdFigures([raw], deadlines, 0),
    holdFigures([final], deadlines, 0),
    // @ts-expect-error an Agreed proof is made by the door alone
    holdFigures([{ ...raw, proof: [] as ClaimedLog[] }], deadlines, 0),
  ];
}

/** x402 `auth-capture`: the hold a settle hands out starts at the block a majority holds its authorization in. */
export function rawReceiptsFormNoX402Hold(
  hold: ReturnType<typeof x402Hold>,
  terms: Parameters<ReturnType<typeof x402Hold>>[0],
  raw: TransactionReceipt,
  agreed: Agreed<TransactionReceipt>,
) {
  return [
    // @ts-expect-error one node's receipt names no hold's block
    hold(terms, raw),
    hold(terms, agreed),
    // @ts-expect-error a bare block number is no agreed receipt
    hold(terms, raw.blockNumber),
  ];
}
