import { encodeFunctionData, getAddress, isAddressEqual, toEventSelector, type Address, type Hex, type PublicClient } from "viem";
import { majorityLogs } from "../chain/majority-logs.js";
import { pinnedBlock } from "../chain/majority-read.js";
import { receiptCopies } from "../chain/receipt-copies.js";
import { decodeEscrowEvent } from "./escrow-events.js";
import { blocksIn } from "../block-time.js";
import { rpc } from "../chain/rpc-errors.js";
import { authCaptureEscrowAbi, fiatTokenAbi } from "../generated/contracts.js";
import type { HoldStateName } from "../wire/holds.js";
import type { FinalHoldEvent, HoldEvent, HoldLog } from "./hold-log.js";
import type { PaymentInfo } from "./payment-info.js";
import { HOLD_AUTHORIZE_SECONDS } from "./terms.js";

/** Past the authorize window, in case the chain's blocks ran slower than its block time says. */
const AUTHORIZE_WINDOW_MARGIN_SECONDS = 3600;

const AUTHORIZATION_USED = toEventSelector(
  fiatTokenAbi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === "AuthorizationUsed")!,
);

/** The escrow's events that open a payment (an authorization, or a charge: both in the buyer's one transaction). */
const OPENED = ["PaymentAuthorized", "PaymentCharged"].map((name) =>
  toEventSelector(authCaptureEscrowAbi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === name)!),
);
/** How many payers' payment hashes one escrow read asks about (an OR of topics). */
const CANDIDATES_PER_READ = 50;

/** Which escrow a hold's payer must have opened a payment on, and that payment's hash for a given payer. */
export interface HoldOpening {
  escrow: Address;
  hashOf: (payer: Address) => Hex;
  /** Ask the escrow even of a lone authorizer (before a new authorization: a stranger's lone use of the id must not refuse the buyer). */
  confirmLone?: boolean;
}

/**
 * The buyer whose authorization of a hold the service sent: the payer of the first payment opened
 * (PaymentAuthorized or PaymentCharged) in the receipts of its recorded calls whose hash is the hold's
 * terms with that payer. Every node's copy of each receipt is read (receipt-copies.ts): a node that
 * forges its copy hides nothing the others hold, and a forged log names no payer, since the payment's
 * hash binds it. It only picks which payment's events to read, as {@link payerOf} does; null while
 * none is mined. No log range is read.
 */
export async function recordedPayer(client: PublicClient, escrow: Address, calls: readonly Hex[], hashOf: (payer: Address) => Hex): Promise<Address | null> {
  for (const hash of calls) {
    for (const receipt of await receiptCopies(client, hash)) {
      if (receipt.status !== "success") continue;
      for (const log of receipt.logs) {
        if (!isAddressEqual(log.address, escrow)) continue;
        const event = decodeEscrowEvent(log);
        if (event?.eventName !== "PaymentAuthorized" && event?.eventName !== "PaymentCharged") continue;
        const payer = getAddress(event.args.paymentInfo.payer);
        if (log.topics[1]?.toLowerCase() === hashOf(payer).toLowerCase()) return payer;
      }
    }
  }
  return null;
}

/**
 * The buyer who authorized a hold, from the token's own `AuthorizationUsed(authorizer, nonce)`: the
 * hold's id is the nonce its buyer signed, so the chain names the payer and nothing is stored. It only
 * picks which payment's events to read; every verdict stands on those events through the door. Each
 * log search is what a majority of the nodes answer alike, so no node adds or hides a payer. Null
 * while no authorization is mined.
 * Anyone may use the hold's id as the nonce of its own `TransferWithAuthorization` (of 0, to itself),
 * so where several accounts used it, the payer is the first whose payment the escrow opened.
 */
export async function payerOf(
  client: PublicClient,
  token: Address,
  holdId: Hex,
  fromBlock: bigint,
  chainId: number,
  opening: HoldOpening,
): Promise<Address | null> {
  // Only the authorize window can hold it (authorize_before is at most a day after the hold was made).
  const windowEnd = fromBlock + blocksIn(HOLD_AUTHORIZE_SECONDS + AUTHORIZE_WINDOW_MARGIN_SECONDS, chainId);
  // Read up to a block a majority of the nodes reached, each search a majority's answer (majority-logs.ts).
  const head = (await rpc(() => pinnedBlock(client))) ?? (await rpc(() => client.getBlockNumber({ cacheTime: 0 })));
  const toBlock = head < windowEnd ? head : windowEnd;
  if (toBlock < fromBlock) return null;
  const read = (address: Address, topics: unknown[]) => majorityLogs(client, { address, topics, fromBlock, toBlock });
  const logs = await read(token, [AUTHORIZATION_USED, null, holdId]);
  const candidates = [...new Set(logs.map((l) => l.topics[1]).filter((t): t is string => t !== undefined))].map((t) => getAddress(`0x${t.slice(26)}`));
  // One account only: its authorization is the buyer's, or nobody's payment is open yet (no events either way).
  if (candidates.length === 0 || (candidates.length === 1 && !opening.confirmLone)) return candidates[0] ?? null;
  for (let i = 0; i < candidates.length; i += CANDIDATES_PER_READ) {
    const chunk = candidates.slice(i, i + CANDIDATES_PER_READ);
    const hashes = chunk.map((payer) => opening.hashOf(payer).toLowerCase());
    const opened = new Set((await read(opening.escrow, [OPENED, hashes])).map((l) => l.topics[1]?.toLowerCase()));
    const payer = chunk.find((_, j) => opened.has(hashes[j]));
    if (payer) return payer;
  }
  return null;
}

/** A hold's amounts and state, from its final steps alone (a step still confirming changes nothing yet). */
export interface HoldFigures {
  state: HoldStateName;
  authorized: bigint;
  captured: bigint;
  fee: bigint;
  capturable: bigint;
  voided: bigint;
  reclaimed: bigint;
  refunded: bigint;
}

/** Sums a hold's final steps (each agreed: the type is the guarantee) and names its state at `nowSeconds` against its deadlines. */
export function holdFigures(final: readonly FinalHoldEvent[], deadlines: { authorizeBefore: number; captureBefore: number }, nowSeconds: number): HoldFigures {
  const sum = (steps: HoldEvent["step"][]) => final.filter((e) => steps.includes(e.step)).reduce((t, e) => t + e.amount, 0n);
  const authorized = sum(["authorized", "charged"]);
  const captured = sum(["captured", "charged"]);
  const fee = final.filter((e) => e.step === "captured" || e.step === "charged").reduce((t, e) => t + (e.feeAmount ?? 0n), 0n);
  const voided = sum(["voided"]);
  const reclaimed = sum(["reclaimed"]);
  const capturable = authorized - captured - voided - reclaimed;
  const state: HoldStateName =
    authorized === 0n
      ? nowSeconds < deadlines.authorizeBefore
        ? "AWAITING_AUTHORIZATION"
        : "AUTHORIZATION_EXPIRED"
      : capturable > 0n
        ? nowSeconds < deadlines.captureBefore
          ? "AUTHORIZED"
          : "EXPIRED"
        : reclaimed > 0n
          ? "RECLAIMED"
          : voided > 0n
            ? "VOIDED"
            : "CAPTURED";
  return { state, authorized, captured, fee, capturable, voided, reclaimed, refunded: sum(["refunded"]) };
}

/** The buyer's own reclaim, prepared for its wallet once the hold is EXPIRED with funds left: the escrow's `reclaim(paymentInfo)`, sent from the payer. */
export function reclaimCall(escrow: Address, info: PaymentInfo) {
  return { from: info.payer, to: escrow, data: encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: "reclaim", args: [info] }) };
}

/** A step as the wire shows it. */
export function stepOnWire(e: HoldEvent, final: boolean) {
  const step = e.step === "charged" ? "captured" : e.step;
  return {
    step,
    amount_units: e.amount.toString(),
    ...(e.feeAmount !== undefined ? { fee_units: e.feeAmount.toString() } : {}),
    tx_hash: e.txHash,
    block_number: e.blockNumber.toString(),
    final,
  } as const;
}

export type { HoldLog };
