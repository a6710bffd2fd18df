import { parseEventLogs, type AbiEvent, type Address, type Log, type PublicClient } from "viem";
import type { ChainView } from "./follower-types.js";
import { rpc } from "./rpc-errors.js";

/**
 * The logs of `event` (or `events`) emitted by `address` in `[fromBlock, toBlock]`, decoded as
 * `client.getLogs` decodes them: from the follower's round when it read that range, else one read
 * from the node (a consumer catching up behind the round).
 */
export async function logsIn<const E extends readonly AbiEvent[]>(
  client: PublicClient,
  view: ChainView | null | undefined,
  query: { address: Address | Address[]; events: E; fromBlock: bigint; toBlock: bigint },
) {
  const addresses = Array.isArray(query.address) ? query.address : [query.address];
  const kept = view ? addresses.map((a) => view.logs(a, query.fromBlock, query.toBlock)) : [null];
  if (kept.every((k) => k !== null)) {
    const raw = (kept as Log[][])
      .flat()
      .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex! - b.logIndex! : a.blockNumber! < b.blockNumber! ? -1 : 1));
    return parseEventLogs({ abi: query.events, logs: raw, strict: true }) as unknown as Awaited<
      ReturnType<typeof client.getLogs<undefined, E, true, bigint, bigint>>
    >;
  }
  return rpc(() => client.getLogs({ address: query.address, events: query.events, fromBlock: query.fromBlock, toBlock: query.toBlock, strict: true }));
}
