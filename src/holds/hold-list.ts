import { getAddress, toEventSelector, type Address, type Hex, type PublicClient } from "viem";
import { blocksIn } from "../block-time.js";
import { rpc } from "../chain/rpc-errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import type { HoldStateName, ListHoldsResponse } from "../wire/holds.js";
import { type RangeCap, readBackwards } from "../payments/log-ranges.js";
import { decodeEscrowEvent, readEscrowLogs } from "./escrow-events.js";
import { payerAgnosticHash } from "./payment-info.js";
import { paymentStates } from "./payment-state.js";
import { HOLD_AUTHORIZE_SECONDS, HOLD_MAX_CAPTURE_SECONDS } from "./terms.js";

const selector = (name: string) =>
  toEventSelector(authCaptureEscrowAbi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === name)!);
const OPENED = [selector("PaymentAuthorized"), selector("PaymentCharged")];
/** How far back the list reads: the longest a hold can stay open (authorize window and capture window). */
export const HOLD_LIST_SECONDS = HOLD_MAX_CAPTURE_SECONDS + HOLD_AUTHORIZE_SECONDS;
/** The most holds one answer lists (newest first). */
export const HOLD_LIST_LIMIT = 200;
/** The most log ranges one page asks (the payments list's budget): a page may end early, and says where the next starts. */
export const HOLD_LIST_MAX_READS = 12;

export interface HoldListDeps {
  client: PublicClient;
  chainId: number;
  escrow: Address;
  /** The escrow's operator for this service's holds: another operator's payments to the same receiver are not ours to list. */
  operator: () => Address;
  deployBlock: bigint;
  now: () => number;
  /** What the node accepts for one log range, learned once for every page and caller. */
  cap: RangeCap;
  /** The widest range one read asks (LOG_RANGE_SECONDS in blocks). */
  maxSpan: bigint;
  /** Which of these payments the service voided (its recorded calls): the escrow's ledger cannot tell a void from a reclaim. */
  voided: (paymentHashes: Hex[]) => Promise<Set<string>>;
}

/**
 * POST /v1/holds/list: a recipient's holds, for the merchant page, from the escrow (no account,
 * nothing stored): its authorizations of the last {@link HOLD_LIST_SECONDS} whose terms name this
 * service as operator and the recipient as receiver (the escrow indexes payments by hash only, so its
 * authorizations are read and filtered), by pages read backwards from `beforeBlock` (or the head) a
 * range at a time, within `maxSpan` and the node's cap, at most {@link HOLD_LIST_MAX_READS} ranges a
 * page. Each hold's figures come from the escrow's ledger (`paymentState`, all asked at once, each as a
 * majority of the nodes answer it at one block: payment-state.ts) and the
 * service's own voids, never from a read of its later events. A listing is not a verdict: act on
 * POST /v1/holds/state.
 */
export async function listHolds(deps: HoldListDeps, request: { recipient: Address; beforeBlock?: bigint }): Promise<ListHoldsResponse> {
  const { client, escrow } = deps;
  const head = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
  const top = request.beforeBlock !== undefined && request.beforeBlock - 1n < head ? request.beforeBlock - 1n : head;
  const span = blocksIn(HOLD_LIST_SECONDS, deps.chainId);
  const oldest = head - span > deps.deployBlock ? head - span : deps.deployBlock;
  const floor = oldest <= top ? oldest : top;
  const operator = deps.operator().toLowerCase();
  const ours = (logs: RawLog[]) =>
    logs
      .map((l) => ({ log: l, event: decodeEscrowEvent(l) }))
      .filter(
        (o): o is { log: RawLog; event: Opened } =>
          (o.event?.eventName === "PaymentAuthorized" || o.event?.eventName === "PaymentCharged") &&
          o.event.args.paymentInfo.receiver.toLowerCase() === request.recipient.toLowerCase() &&
          o.event.args.paymentInfo.operator.toLowerCase() === operator,
      );
  const { found, next } = await readBackwards<RawLog>({
    cap: deps.cap,
    top,
    floor,
    maxReads: HOLD_LIST_MAX_READS,
    maxSpan: deps.maxSpan,
    read: (from, to) => readEscrowLogs<RawLog>(client, escrow, [OPENED], from, to),
    enough: (f) => ours(f).length >= HOLD_LIST_LIMIT,
  });
  const newest = ours(found).sort((a, b) =>
    BigInt(b.log.blockNumber) === BigInt(a.log.blockNumber)
      ? Number(b.log.logIndex) - Number(a.log.logIndex)
      : BigInt(b.log.blockNumber) > BigInt(a.log.blockNumber)
        ? 1
        : -1,
  );
  // Past the limit, the page ends at the block of the last one listed (all of that block's listed), and the next page reads below it.
  const lastBlock = newest.length > HOLD_LIST_LIMIT ? BigInt(newest[HOLD_LIST_LIMIT - 1]!.log.blockNumber) : null;
  const opened = lastBlock === null ? newest : newest.filter((o) => BigInt(o.log.blockNumber) >= lastBlock);
  const end = lastBlock ?? next;
  const hashes = opened.map((o) => o.log.topics[1]!);
  const [ledgers, voided] = await Promise.all([
    paymentStates(client, escrow, hashes),
    hashes.length > 0 ? deps.voided(hashes) : Promise.resolve(new Set<string>()),
  ]);
  const nowSeconds = Math.floor(deps.now() / 1000);
  return {
    holds: opened.map(({ log, event }, i) => {
      const info = event.args.paymentInfo;
      const { capturable, refundable } = ledgers[i]!;
      const state = ledgerState(
        { authorized: event.args.amount, captured: refundable, capturable, voided: voided.has(hashes[i]!.toLowerCase()) },
        Number(info.authorizationExpiry),
        nowSeconds,
      );
      return {
        hold_id: payerAgnosticHash(info, deps.chainId, escrow),
        payer: getAddress(info.payer),
        amount_units: info.maxAmount.toString(),
        state,
        captured_units: refundable.toString(),
        capturable_units: capturable.toString(),
        capture_before: Number(info.authorizationExpiry),
        authorized_tx_hash: log.transactionHash,
        block_number: BigInt(log.blockNumber).toString(),
      };
    }),
    from_block: end.toString(),
    next_before_block: end > oldest ? end.toString() : null,
    as_of_block: head.toString(),
  };
}

type Opened = Extract<NonNullable<ReturnType<typeof decodeEscrowEvent>>, { eventName: "PaymentAuthorized" | "PaymentCharged" }>;

/**
 * A listed hold's state from the escrow's ledger: funds capturable are AUTHORIZED (EXPIRED past the
 * capture deadline); none left is CAPTURED when all was captured, else VOIDED where the service voided
 * it (or before the deadline, when only a void can release funds), else RECLAIMED by the buyer.
 */
export function ledgerState(
  figures: { authorized: bigint; captured: bigint; capturable: bigint; voided: boolean },
  captureBefore: number,
  nowSeconds: number,
): HoldStateName {
  if (figures.capturable > 0n) return nowSeconds < captureBefore ? "AUTHORIZED" : "EXPIRED";
  if (figures.captured >= figures.authorized) return "CAPTURED";
  return figures.voided || nowSeconds < captureBefore ? "VOIDED" : "RECLAIMED";
}

interface RawLog {
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  logIndex: Hex;
}
