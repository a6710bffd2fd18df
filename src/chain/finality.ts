import type { PublicClient, TransactionReceipt } from "viem";
import type { Finality } from "../config.js";
import { rpc } from "./rpc-errors.js";

/**
 * The finality head: the highest block number whose transactions count as settled.
 * On Base networks the node's `safe` tag; on the local chain `latest - confirmations`
 * (its `safe` tag is simply the latest block). `knownLatest` saves a read when the caller has it.
 */
export async function finalityHead(client: PublicClient, finality: Finality, knownLatest?: bigint): Promise<bigint> {
  if (finality.kind === "safe") {
    const block = await rpc(() => client.getBlock({ blockTag: "safe" }));
    return block.number;
  }
  const latest = knownLatest ?? (await rpc(() => client.getBlockNumber({ cacheTime: 0 })));
  return latest - BigInt(finality.confirmations);
}

/** Whether a transaction mined in `blockNumber` is settled under the finality head `head`. */
export function isSettled(blockNumber: bigint, head: bigint): boolean {
  return blockNumber <= head;
}

/**
 * Whether a receipt is settled: its block is still canonical (same hash at that height) and at or
 * below the finality head. A reorg under way reads as not settled.
 */
export async function isReceiptSettled(client: PublicClient, finality: Finality, receipt: Pick<TransactionReceipt, "blockNumber" | "blockHash">): Promise<boolean> {
  const [head, block] = await Promise.all([finalityHead(client, finality), rpc(() => client.getBlock({ blockNumber: receipt.blockNumber }))]);
  return block.hash === receipt.blockHash && isSettled(receipt.blockNumber, head);
}
