import { getAddress, toEventSelector, type Address, type Hex, type PublicClient } from "viem";
import type { ClaimedLog } from "../chain/agreement.js";
import { majorityLogs } from "../chain/majority-logs.js";
import { pinnedBlock } from "../chain/majority-read.js";
import { rpc } from "../chain/rpc-errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import { type RangeCap, readBackwards } from "../payments/log-ranges.js";
import { paymentStates, type PaymentLedger } from "./payment-state.js";

const RECLAIMED = toEventSelector(
  authCaptureEscrowAbi.find((i): i is Extract<typeof i, { type: "event" }> => i.type === "event" && i.name === "PaymentReclaimed")!,
);
/** The most ranges one search asks: a reclaim older than that many ranges is left to the hold's events (hold.reclaimed). */
export const RECLAIM_MAX_READS = 50;

export interface ReclaimSearchDeps {
  client: PublicClient;
  escrow: Address;
  /** What the node accepts for one log range, learned once for every search. */
  cap: RangeCap;
  /** The widest range one read asks (LOG_RANGE_SECONDS in blocks). */
  maxSpan: bigint;
}

/**
 * The buyer's reclaim of an expired hold: the one step of a hold that is not the service's own call,
 * so it is not in its recorded receipts. Asked only once the escrow's ledger (`paymentState`, as a
 * majority of the nodes answer it: payment-state.ts) holds less than the hold's recorded steps leave
 * capturable past its capture deadline, and then read backwards, a range at a time, from a head a
 * majority of the nodes reached (within `maxSpan` and the node's cap, never below the hold's block),
 * each range the logs a majority of the nodes answer alike (majority-logs.ts), at most
 * {@link RECLAIM_MAX_READS} ranges: a reclaim is looked for where it must be.
 */
export async function findReclaim(deps: ReclaimSearchDeps, paymentHash: Hex, fromBlock: bigint): Promise<ClaimedLog[]> {
  const { client, escrow } = deps;
  const [{ capturable }] = (await paymentStates(client, escrow, [paymentHash])) as [PaymentLedger];
  if (capturable > 0n) return [];
  const head = (await rpc(() => pinnedBlock(client))) ?? (await rpc(() => client.getBlockNumber({ cacheTime: 0 })));
  const { found } = await readBackwards<ClaimedLog>({
    cap: deps.cap,
    top: head,
    floor: fromBlock < head ? fromBlock : head,
    maxReads: RECLAIM_MAX_READS,
    maxSpan: deps.maxSpan,
    read: async (from, to) =>
      (await majorityLogs(client, { address: escrow, topics: [RECLAIMED, paymentHash], fromBlock: from, toBlock: to })).map((l) => ({
        address: getAddress(l.address),
        topics: l.topics as ClaimedLog["topics"],
        data: l.data as Hex,
        logIndex: Number(BigInt(l.logIndex)),
        transactionHash: l.transactionHash as Hex,
        blockNumber: BigInt(l.blockNumber),
        blockHash: l.blockHash as Hex,
      })),
    enough: (f) => f.length > 0,
  });
  return found;
}
