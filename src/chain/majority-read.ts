import type { PublicClient } from "viem";
import { DomainError } from "../errors.js";
import { stableKey, tally } from "./agreement-tally.js";
import { isRequestAnswer } from "./node.js";
import { nodesOf } from "./nodes.js";
import { askEach, quorumth } from "./each-node.js";

/**
 * A read that decides an answer without being a verdict's proof (x402's simulation of an
 * authorization, say): asked of every node, and what a majority of hosts answer alike, a revert
 * included (thrown, as the majority's). One node's answer, or its error, decides nothing; a node
 * answering otherwise is set aside. RPC_BUSY when no majority answers alike.
 */
export async function majorityRead<T>(client: PublicClient, read: (client: PublicClient) => Promise<T>): Promise<T> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return read(client);
  type Answer = { value: T } | { error: unknown };
  const held = await tally<Answer>(nodes, (node) =>
    read(node.client).then(
      (value) => ({ behind: false, key: `answered ${stableKey(value)}`, value: { value } }),
      (error: unknown) => {
        // Only the request's own answer (a revert) votes; any other error is the node's, which has no say.
        if (!isRequestAnswer(error)) throw error;
        return { behind: false, key: `refused ${(error as Error).message}`, value: { error } };
      },
    ),
  );
  if (!held) throw new DomainError("RPC_BUSY", { detail: "the chain's nodes answered the read, no majority of them alike" });
  if ("error" in held.value) throw held.value.error;
  return held.value.value;
}

/**
 * A block a majority of independent hosts has reached, asked now (the quorum-th highest of their
 * heads): a read pinned there is answered alike by every honest node, and no head far ahead or far
 * behind moves it. Null with one node (its reads stand at its latest).
 */
export async function pinnedBlock(client: PublicClient): Promise<bigint | null> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return null;
  const heads = await askEach(nodes, (node) => node.client.getBlockNumber({ cacheTime: 0 }));
  const block = quorumth(
    nodes,
    heads.map(({ node, answer }) => ({ node, value: answer })),
  );
  // Stryker disable next-line ObjectLiteral,StringLiteral: this RPC_BUSY's detail reaches no answer, header or log (its body is the code, action and retry_after)
  if (block === null) throw new DomainError("RPC_BUSY", { detail: "no majority of the chain's nodes answered a head to read at" });
  return block;
}
