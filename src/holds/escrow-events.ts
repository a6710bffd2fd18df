import { decodeEventLog, type Hex } from "viem";
import { authCaptureEscrowAbi } from "../generated/contracts.js";

/** A log decoded against the escrow's ABI; null for a log that is none of its events. */
export function decodeEscrowEvent(log: { data: Hex; topics: readonly Hex[] }) {
  try {
    return decodeEventLog({ abi: authCaptureEscrowAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
  } catch {
    return null;
  }
}
