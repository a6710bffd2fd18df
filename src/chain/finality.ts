import type { Hex, PublicClient, TransactionReceipt } from "viem";
import { readReceipt } from "./transactions.js";
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
export async function isReceiptSettled(
  client: PublicClient,
  finality: Finality,
  receipt: Pick<TransactionReceipt, "blockNumber" | "blockHash">,
): Promise<boolean> {
  const [head, block] = await Promise.all([finalityHead(client, finality), rpc(() => client.getBlock({ blockNumber: receipt.blockNumber }))]);
  return block.hash === receipt.blockHash && isSettled(receipt.blockNumber, head);
}

/**
 * Receipts read after the finality head: the head first, then every receipt at once (one JSON-RPC
 * batch). A node answers a receipt from its canonical chain only, so a receipt read after the head
 * whose block is at or below that head is settled: no block-hash check, no third read. (The head
 * read first can only be lower than the head at the receipt's read, never higher.)
 */
export async function readReceiptsAfterHead(
  client: PublicClient,
  finality: Finality,
  hashes: Hex[],
): Promise<{ head: bigint; receipts: Array<TransactionReceipt | null> }> {
  const head = await finalityHead(client, finality);
  const receipts = await Promise.all(hashes.map((hash) => readReceipt(client, hash)));
  return { head, receipts };
}
