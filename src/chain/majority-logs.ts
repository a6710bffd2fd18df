import { numberToHex, type Address, type PublicClient } from "viem";
import { DomainError } from "../errors.js";
import { canonicalLog, stableKey, tally, type RawLog } from "./agreement-tally.js";
import { nodeLogs } from "./log-ranges.js";
import { nodesOf } from "./nodes.js";
import { rpc } from "./rpc-errors.js";

/** A log search: an address, its topics and a block range. */
export interface LogSearch {
  address: Address;
  topics: unknown[];
  fromBlock: bigint;
  toBlock: bigint;
}

/**
 * A log search that decides an answer without being a verdict's proof (which payer authorized a
 * hold, whether its buyer reclaimed it): asked of every node on its own, each within the range caps
 * it has shown (log-ranges.ts), and the logs a majority of hosts answer alike, every field of each.
 * The range should end at a block a majority reached (majority-read.ts, pinnedBlock), where honest
 * nodes answer alike. A node that errs has no say and stops nothing; one that invents, drops, alters
 * or duplicates a log is outvoted (and set aside). RPC_BUSY when no majority answers alike. One node:
 * its answer, as it is (lower-cased).
 */
export async function majorityLogs(client: PublicClient, search: LogSearch): Promise<RawLog[]> {
  const args = {
    method: "eth_getLogs",
    params: [{ address: search.address, topics: search.topics, fromBlock: numberToHex(search.fromBlock), toBlock: numberToHex(search.toBlock) }],
  };
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return ((await rpc(() => client.request(args as never))) as unknown[]).map(canonicalLog);
  const held = await tally<RawLog[]>(nodes, (node) =>
    nodeLogs(node, args).then((logs) => {
      const value = logs
        .map(canonicalLog)
        .sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
      return { behind: false as const, key: stableKey(value), value };
    }),
  );
  if (!held) throw new DomainError("RPC_BUSY", { detail: "the chain's nodes answered a log search, no majority of them alike" });
  return held.value;
}
