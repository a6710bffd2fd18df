import { numberToHex, type Address, type Hex, type Log, type PublicClient, type TransactionReceipt } from "viem";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { isNodeFailure, nodesOf, type ChainNode, type ChainNodes } from "./nodes.js";

/**
 * What a verdict that releases goods or money was computed on: a mined transaction (its status, the
 * logs the verdict read, its block) and the contract reads (`eth_call`) that gated it.
 */
export interface Claim {
  /** The transaction, when the verdict stands on one (a contract read alone names none). */
  txHash?: Hex;
  blockNumber: bigint;
  /** The block's hash as the verdict read it; absent: whichever hash a majority holds final there. */
  blockHash?: Hex;
  status?: "success" | "reverted";
  /** The receipt's logs the verdict stands on, each at its position in the block. */
  logs?: ReadonlyArray<Pick<Log, "address" | "topics" | "data" | "logIndex">>;
  /** Contract reads the verdict stands on, each read at the claim's block, with the answer it had. */
  calls?: ReadonlyArray<{ to: Address; data: Hex; result: Hex }>;
}

/** The claim of a whole receipt: its status, every log it holds, its block. */
export function receiptClaim(receipt: TransactionReceipt, calls?: Claim["calls"]): Claim {
  return {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    status: receipt.status,
    logs: receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
    ...(calls ? { calls } : {}),
  };
}

/**
 * Whether a majority of the chain's nodes (RPC_QUORUM) agree with a verdict's claim: each node, in
 * one batch, is asked its finality head, the transaction's receipt, its block at the claim's height
 * and the claim's contract reads at that block. A node agrees when, at or below its own finality
 * head, its canonical block there has the claim's hash and its receipt and reads say what the
 * claim says. False: short of a majority (still in progress). Throws RPC_BUSY when too few nodes
 * answer for a majority to be possible. A node whose final answer differs from the majority's is set
 * aside (logged and counted once), and so is the node the claim was read from when the majority holds
 * otherwise; a node behind the claim's block is not wrong, only not there yet.
 *
 * A client that reads through one node, or a quorum of one, is that node's word: true, nothing asked.
 */
export async function agreed(client: PublicClient, finality: Finality, claim: Claim): Promise<boolean> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return true;
  return new Tally(nodes, claim).run(finality);
}

/** A node's view of the claim: not there yet, or the key of what it holds final at the claim's height. */
type View = { behind: true } | { behind: false; key: string };

class Tally {
  readonly #claimKey: string;
  readonly #views = new Map<ChainNode, View | "failed">();

  constructor(
    private readonly nodes: ChainNodes,
    private readonly claim: Claim,
  ) {
    this.#claimKey = keyOf(claim, {
      blockHash: claim.blockHash ?? null,
      receipt:
        claim.txHash === undefined
          ? null
          : {
              status: claim.status === "reverted" ? "0x0" : "0x1",
              blockHash: claim.blockHash ?? "0x",
              logs: (claim.logs ?? []).map((l) => ({ ...l, logIndex: numberToHex(l.logIndex ?? 0) })),
            },
      calls: (claim.calls ?? []).map((c) => c.result),
    });
  }

  run(finality: Finality): Promise<boolean> {
    const { nodes } = this;
    const serving = nodes.serving;
    return new Promise<boolean>((resolve, reject) => {
      let decided = false;
      const decide = (outcome: boolean | DomainError) => {
        if (decided) return;
        decided = true;
        if (outcome instanceof DomainError) reject(outcome);
        else resolve(outcome);
      };
      for (const node of nodes.nodes)
        void this.#view(node, finality)
          .catch(() => "failed" as const)
          .then((view) => {
            this.#views.set(node, view);
            const views = [...this.#views.values()];
            const failed = views.filter((v) => v === "failed").length;
            const agreeing = views.filter((v) => v !== "failed" && !v.behind && v.key === this.#claimKey).length;
            if (agreeing >= nodes.quorum) decide(true);
            else if (nodes.size - failed < nodes.quorum) decide(new DomainError("RPC_BUSY", { detail: "no majority of the chain's nodes answered" }));
            if (views.length < nodes.size) return;
            // Every node answered or failed: the nodes against a majority are set aside, whatever was decided.
            const majority = this.#majority();
            for (const [n, v] of this.#views) if (majority !== null && v !== "failed" && !v.behind && v.key !== majority) nodes.setAside(n, "disagreed");
            // The claim itself against a majority: the node it was read from answered otherwise than it holds (a forged log read, say).
            if (majority !== null && majority !== this.#claimKey) nodes.setAside(serving, "disagreed");
            decide(majority === this.#claimKey);
          });
    });
  }

  /** The key that a quorum of nodes hold final, if any. */
  #majority(): string | null {
    const counts = new Map<string, number>();
    for (const v of this.#views.values()) if (v !== "failed" && !v.behind) counts.set(v.key, (counts.get(v.key) ?? 0) + 1);
    for (const [key, count] of counts) if (count >= this.nodes.quorum) return key;
    return null;
  }

  async #view(node: ChainNode, finality: Finality): Promise<View> {
    const { claim } = this;
    const ask = (method: string, params: unknown[]) => node.client.request({ method, params } as never) as Promise<unknown>;
    const at = numberToHex(claim.blockNumber);
    const headRead =
      finality.kind === "safe"
        ? (ask("eth_getBlockByNumber", ["safe", false]) as Promise<{ number: Hex } | null>).then((b) => (b ? BigInt(b.number) : -1n))
        : (ask("eth_blockNumber", []) as Promise<Hex>).then((n) => BigInt(n) - BigInt(finality.confirmations));
    const [head, receipt, block, ...calls] = await Promise.all([
      headRead,
      claim.txHash === undefined ? null : (ask("eth_getTransactionReceipt", [claim.txHash]) as Promise<RawReceipt | null>),
      ask("eth_getBlockByNumber", [at, false]) as Promise<{ hash: Hex } | null>,
      ...(claim.calls ?? []).map((c) =>
        (ask("eth_call", [{ to: c.to, data: c.data }, at]) as Promise<Hex>).catch((error: unknown) => {
          if (isNodeFailure(error)) throw error;
          return "reverted";
        }),
      ),
    ]);
    if (head < claim.blockNumber || !block) return { behind: true };
    return { behind: false, key: keyOf(claim, { blockHash: block.hash, receipt, calls: calls as string[] }) };
  }
}

interface RawReceipt {
  status: Hex;
  blockHash: Hex;
  logs: Array<{ address: Hex; topics: Hex[]; data: Hex; logIndex: Hex }>;
}

/** What a node holds at the claim's height, reduced to what the claim stands on: its block's hash, the receipt's status, block and the claim's logs, the reads. */
function keyOf(claim: Claim, held: { blockHash: Hex | null; receipt: RawReceipt | null; calls: string[] }): string {
  const wanted = new Set((claim.logs ?? []).map((l) => numberToHex(l.logIndex ?? 0)));
  const { receipt } = held;
  return JSON.stringify([
    claim.blockHash === undefined ? null : held.blockHash?.toLowerCase(),
    receipt === null
      ? null
      : [
          BigInt(receipt.status).toString(),
          receipt.blockHash.toLowerCase(),
          receipt.logs
            .filter((l) => wanted.has(numberToHex(BigInt(l.logIndex))))
            .map((l) => [numberToHex(BigInt(l.logIndex)), l.address.toLowerCase(), l.topics.map((t) => t.toLowerCase()), l.data.toLowerCase()]),
        ],
    held.calls.map((c) => c.toLowerCase()),
  ]);
}

/**
 * Whether a majority of the nodes agree on every log of `logs` (grouped by transaction: each
 * transaction's claim is its logs here, in their final block): what a settled event is announced on.
 * Throws RPC_BUSY as {@link agreed} does.
 */
export async function logsAgreed(
  client: PublicClient,
  finality: Finality,
  logs: ReadonlyArray<Pick<Log, "address" | "topics" | "data" | "logIndex" | "transactionHash" | "blockNumber" | "blockHash">>,
): Promise<boolean> {
  const byTransaction = new Map<Hex, typeof logs>();
  for (const log of logs) byTransaction.set(log.transactionHash!, [...(byTransaction.get(log.transactionHash!) ?? []), log]);
  const claims = [...byTransaction].map(([txHash, own]) => ({
    txHash,
    blockNumber: own[0]!.blockNumber!,
    blockHash: own[0]!.blockHash!,
    status: "success" as const,
    logs: own,
  }));
  return (await Promise.all(claims.map((claim) => agreed(client, finality, claim)))).every(Boolean);
}
