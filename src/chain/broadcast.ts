import { keccak256, type Hex } from "viem";
import { isAlreadyKnown, type ChainNode } from "./node.js";

/**
 * A raw transaction to every node at once: the first node that takes it answers. A node that
 * already has it (another node's peers passed it on) or whose nonce is used is no failure. Only
 * when no node took it is the best ranked node's refusal the answer, as one node's would be.
 */
export function broadcast(ranked: ChainNode[], args: { method: string; params?: unknown }): Promise<unknown> {
  const raw = (args.params as [Hex])[0];
  const [first, ...others] = ranked;
  if (args.method !== "eth_sendRawTransaction") {
    // eth_sendRawTransactionSync waits for the receipt on one node; the others are only handed the transaction.
    for (const node of others) void node.request({ method: "eth_sendRawTransaction", params: [raw] } as never).catch(() => undefined);
    return first!.request(args as never);
  }
  const order = [first!, ...others];
  return new Promise((resolve, reject) => {
    const refusals = new Map<ChainNode, unknown>();
    let done = false;
    for (const node of order)
      node.request({ method: "eth_sendRawTransaction", params: [raw] } as never).then(
        (result) => {
          if (done) return;
          done = true;
          resolve(result);
        },
        (error) => {
          refusals.set(node, error);
          if (done || refusals.size < order.length) return;
          done = true;
          // A node holding it already took it (from us before, or from a peer); otherwise the best ranked node's refusal.
          if ([...refusals.values()].some(isAlreadyKnown)) resolve(keccak256(raw));
          else reject(refusals.get(order[0]!));
        },
      );
  });
}
