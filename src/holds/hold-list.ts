import { getAddress, toEventSelector, type Address, type Hex, type PublicClient } from "viem";
import { blocksIn } from "../block-time.js";
import { rpc } from "../chain/rpc-errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import type { ListHoldsResponse } from "../wire/holds.js";
import { decodeEscrowEvent } from "./escrow-events.js";
import { holdFigures } from "./hold-state.js";
import { payerAgnosticHash } from "./payment-info.js";
import { HOLD_AUTHORIZE_SECONDS, HOLD_MAX_CAPTURE_SECONDS } from "./terms.js";
import type { HoldEvent } from "./hold-log.js";

const selector = (name: string) =>
  toEventSelector(authCaptureEscrowAbi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === name)!);
const OPENED = [selector("PaymentAuthorized"), selector("PaymentCharged")];
/** How far back the list reads: the longest a hold can stay open (authorize window and capture window). */
export const HOLD_LIST_SECONDS = HOLD_MAX_CAPTURE_SECONDS + HOLD_AUTHORIZE_SECONDS;
/** The most holds one answer lists (newest first). */
export const HOLD_LIST_LIMIT = 200;

export interface HoldListDeps {
  client: PublicClient;
  chainId: number;
  escrow: Address;
  /** The escrow's operator for this service's holds: another operator's payments to the same receiver are not ours to list. */
  operator: () => Address;
  deployBlock: bigint;
  now: () => number;
}

/**
 * POST /v1/holds/list: a recipient's holds, for the merchant page, from the escrow's own events (no
 * account, nothing stored): the authorizations of the last {@link HOLD_LIST_SECONDS} whose terms name
 * this service as operator and the recipient as receiver (the escrow indexes payments by hash only,
 * so its authorizations are read and filtered), then every later event of those payments in one read.
 * Two `eth_getLogs` per call, limited per IP like the payments list. A listing is not a verdict: each
 * state comes from mined events, final or not; act on POST /v1/holds/state.
 */
export async function listHolds(deps: HoldListDeps, recipient: Address): Promise<ListHoldsResponse> {
  const { client, escrow } = deps;
  const head = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
  const span = blocksIn(HOLD_LIST_SECONDS, deps.chainId);
  const fromBlock = head - span > deps.deployBlock ? head - span : deps.deployBlock;
  const range = { fromBlock: `0x${fromBlock.toString(16)}`, toBlock: `0x${head.toString(16)}` };
  const read = (topics: unknown[]) =>
    rpc(() => client.request({ method: "eth_getLogs", params: [{ address: escrow, topics, ...range }] } as never) as Promise<RawLog[]>);
  const operator = deps.operator().toLowerCase();
  const opened = (await read([OPENED]))
    .map((l) => ({ log: l, event: decodeEscrowEvent(l) }))
    .filter(
      (o) =>
        (o.event?.eventName === "PaymentAuthorized" || o.event?.eventName === "PaymentCharged") &&
        o.event.args.paymentInfo.receiver.toLowerCase() === recipient.toLowerCase() &&
        o.event.args.paymentInfo.operator.toLowerCase() === operator,
    )
    .reverse()
    .slice(0, HOLD_LIST_LIMIT);
  const hashes = opened.map((o) => o.log.topics[1]!);
  const later = hashes.length > 0 ? await read([null, hashes]) : [];
  const nowSeconds = Math.floor(deps.now() / 1000);
  return {
    holds: opened.map(({ log, event }) => {
      const info = (event as { args: { paymentInfo: Parameters<typeof payerAgnosticHash>[0] } }).args.paymentInfo;
      const steps = later.filter((l) => l.topics[1] === log.topics[1]).flatMap((l) => stepOf(l));
      const figures = holdFigures(steps, { authorizeBefore: Number(info.preApprovalExpiry), captureBefore: Number(info.authorizationExpiry) }, nowSeconds);
      return {
        hold_id: payerAgnosticHash(info, deps.chainId, escrow),
        payer: getAddress(info.payer),
        amount_units: info.maxAmount.toString(),
        state: figures.state,
        captured_units: figures.captured.toString(),
        capturable_units: figures.capturable.toString(),
        capture_before: Number(info.authorizationExpiry),
        authorized_tx_hash: log.transactionHash,
        block_number: BigInt(log.blockNumber).toString(),
      };
    }),
    from_block: fromBlock.toString(),
    as_of_block: head.toString(),
  };
}

interface RawLog {
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  logIndex: Hex;
}

function stepOf(l: RawLog): HoldEvent[] {
  const event = decodeEscrowEvent(l);
  if (!event) return [];
  const at = { txHash: l.transactionHash, blockNumber: BigInt(l.blockNumber), logIndex: Number(l.logIndex) };
  switch (event.eventName) {
    case "PaymentAuthorized":
      return [{ step: "authorized", amount: event.args.amount, ...at }];
    case "PaymentCharged":
      return [{ step: "charged", amount: event.args.amount, feeAmount: event.args.feeAmount, ...at }];
    case "PaymentCaptured":
      return [{ step: "captured", amount: event.args.amount, feeAmount: event.args.feeAmount, ...at }];
    case "PaymentVoided":
      return [{ step: "voided", amount: event.args.amount, ...at }];
    case "PaymentReclaimed":
      return [{ step: "reclaimed", amount: event.args.amount, ...at }];
    default:
      return [];
  }
}
