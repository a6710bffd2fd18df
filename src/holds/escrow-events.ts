import { decodeEventLog, type Address, type Hex, type PublicClient } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";

/** A log decoded against the escrow's ABI; null for a log that is none of its events. */
export function decodeEscrowEvent(log: { data: Hex; topics: readonly Hex[] }) {
  try {
    return decodeEventLog({ abi: authCaptureEscrowAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
  } catch {
    return null;
  }
}

/** One `eth_getLogs` of the escrow's logs matching `topics` in `[from, to]`, as the node answers them (hex fields). */
export function readEscrowLogs<T>(client: PublicClient, escrow: Address, topics: unknown[], from: bigint, to: bigint): Promise<T[]> {
  return rpc(
    () =>
      client.request({
        method: "eth_getLogs",
        params: [{ address: escrow, topics, fromBlock: `0x${from.toString(16)}`, toBlock: `0x${to.toString(16)}` }],
      } as never) as Promise<T[]>,
  );
}
