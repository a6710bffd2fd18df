import type { Hex, PublicClient, TransactionReceipt } from "viem";
import { nodesOf } from "./nodes.js";
import { readReceipt } from "./transactions.js";

/**
 * Every node's copy of a transaction's receipt (those that answered one; one node: its own). It is
 * where a caller finds which logs to ask the door about, never a verdict: each log found is judged by
 * the door, and a node that forges, shifts or withholds its copy hides nothing the others hold.
 * Throws (RPC_ERROR or RPC_BUSY) only when no node answered at all.
 */
export async function receiptCopies(client: PublicClient, hash: Hex): Promise<TransactionReceipt[]> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.size === 1) {
    const receipt = await readReceipt(client, hash);
    return receipt ? [receipt] : [];
  }
  const answers = await Promise.allSettled(nodes.nodes.map((node) => readReceipt(node.client, hash)));
  const answered = answers.filter((a): a is PromiseFulfilledResult<TransactionReceipt | null> => a.status === "fulfilled");
  if (answered.length === 0) throw (answers[0] as PromiseRejectedResult).reason;
  return answered.flatMap((a) => (a.value ? [a.value] : []));
}
