import { BaseError, ExecutionRevertedError, type Address, type Hex, type PublicClient } from "viem";
import type { VerdictKind } from "./agreement.js";
import { askEach, quorumth } from "./each-node.js";
import { majorityRead } from "./majority-read.js";
import type { ChainNode } from "./node.js";
import { nodesOf, type ChainNodes } from "./nodes.js";

/*
 * The relayer's reads that decide a send, each asked of every node and taken as a majority of
 * independent hosts gives it: whether a call passes and its gas (at one pinned block), and the
 * chain's pending nonce. One node alone can make the relayer pay for a revert, or park a call behind
 * a nonce gap; here it can do neither.
 */

/**
 * The chain's pending nonce for `address` as a majority of hosts holds it at least (the quorum-th
 * highest): a node claiming more (a gap) or less is outvoted. One node: its answer.
 */
export async function agreedPendingNonce(client: PublicClient, address: Address): Promise<number> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return client.getTransactionCount({ address, blockTag: "pending" });
  const answers = await askEach(nodes, (node) => node.client.getTransactionCount({ address, blockTag: "pending" }));
  const held = quorumth(
    nodes,
    answers.map(({ node, answer }) => ({ node, value: BigInt(answer) })),
  );
  if (held === null) throw new Error("no majority of the chain's nodes answered the relayer's pending nonce");
  return Number(held);
}

/** A call as the relayer would send it. */
export interface RelayerEstimate {
  account: Address;
  to: Address;
  data: Hex;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * The call's gas, simulated on every node at one block (the head the reader answers): null unless
 * a majority of hosts say it passes there; then the quorum-th highest of their estimates (a node
 * answering too little gas, which would make it revert, is outvoted, as is one answering too much).
 * A node that says otherwise than the majority (passes or reverts) is set aside. One node: its estimate.
 */
export async function agreedEstimate(client: PublicClient, call: RelayerEstimate): Promise<bigint | null> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return client.estimateGas(call).catch(() => null);
  const blockNumber = await pinnedHead(nodes);
  const answers = await askEach(nodes, (node) =>
    node.client.estimateGas({ ...call, blockNumber }).catch((error: unknown) => {
      // Only a revert is an answer; any other error is the node's, and it has no say.
      if (!isRevert(error)) throw error;
      return "reverts" as const;
    }),
  );
  const passing = answers.filter((a): a is { node: ChainNode; answer: bigint } => a.answer !== "reverts");
  const gas = quorumth(
    nodes,
    passing.map(({ node, answer }) => ({ node, value: answer })),
  );
  const reverting = new Set(answers.filter((a) => a.answer === "reverts").map((a) => a.node.independentAs));
  const majorityReverts = reverting.size >= nodes.quorum;
  for (const { node, answer } of answers)
    if ((gas !== null && answer === "reverts") || (majorityReverts && answer !== "reverts")) nodes.setAside(node, "disagreed");
  return gas;
}

/** A head to simulate at, where a majority of hosts has reached (a head far ahead or behind moves nothing). */
async function pinnedHead(nodes: ChainNodes): Promise<bigint> {
  const heads = await askEach(nodes, (node) => node.client.getBlockNumber({ cacheTime: 0 }));
  const blockNumber = quorumth(
    nodes,
    heads.map(({ node, answer }) => ({ node, value: answer })),
  );
  if (blockNumber === null) throw new Error("no majority of the chain's nodes answered a head to simulate at");
  return blockNumber;
}

/** A relayer call's simulation at its gas ceiling: it passes within it, or it needs more. */
export type CeilingSimulation = { passes: boolean };

/**
 * A relayer call simulated once, at its gas ceiling: `simulate` (an eth_call given the ceiling as its
 * gas: one run, never an estimate's search, which a payer's code that burns gas makes a node spend
 * seconds on) asked of every node at one pinned block, and what a majority of hosts answer alike
 * (majority-read.ts): it passes within the ceiling, it needs more (the node ran out of gas), or its
 * revert, thrown as the majority's. One node: its answer, at its head. `kind` is the verdict the
 * majority's revert becomes (the escrow's refusal): named here, as every door call names its kind.
 */
export async function agreedSimulation(
  _kind: VerdictKind,
  client: PublicClient,
  simulate: (node: PublicClient, blockNumber: bigint | undefined) => Promise<unknown>,
): Promise<CeilingSimulation> {
  const nodes = nodesOf(client);
  const blockNumber = nodes && nodes.quorum > 1 ? await pinnedHead(nodes) : undefined;
  return majorityRead<CeilingSimulation>(client, (node) =>
    simulate(node, blockNumber).then(
      () => ({ passes: true }),
      (error: unknown) => {
        if (!isRevert(error) && needsMoreGas(error)) return { passes: false };
        throw error;
      },
    ),
  );
}

/**
 * Whether an estimate capped at a ceiling failed for want of gas, in the node's own words (viem has
 * no class for it): geth and Base's nodes "gas required exceeds allowance" or "out of gas", Hardhat/EDR
 * "Transaction ran out of gas", anvil "OutOfGas".
 */
function needsMoreGas(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return (
    error.walk((e) => {
      const { details, message } = e as { details?: unknown; message?: unknown };
      return [details, message].some((text) => typeof text === "string" && /out of gas|outofgas|exceeds allowance/i.test(text));
    }) !== null
  );
}

/** Whether a simulation's error is the call's revert (the node ran it), rather than the node's own failure. */
function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((e) => e instanceof ExecutionRevertedError || (e as { code?: unknown }).code === 3) !== null;
}
