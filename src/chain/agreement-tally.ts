import { numberToHex, type Hex } from "viem";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { isNodeFailure, type ChainNode } from "./node.js";
import type { ChainNodes } from "./nodes.js";

/*
 * How the door counts: each node asked on its own, its answer reduced to a key of exactly the fields
 * a verdict may use, and the value a quorum gives under one key is the answer. A node whose key is
 * not the majority's is set aside, and only that node: never the one that merely answered first or last.
 */

/** A node's answer: not there yet (its head is below the claim, or its chain moved under it), or its key and the value the key was made of. */
export type Vote<V> = { behind: true } | { behind: false; key: string; value: V };

/**
 * Every node asked at once: the key and value a quorum of them answer alike, as soon as a quorum
 * does (a slow node is not waited for); null when every node answered and no quorum is alike.
 * Throws RPC_BUSY when too many nodes failed for a quorum to be possible. Once every node has
 * answered, each that answered otherwise than a quorum is set aside as "disagreed".
 */
export function tally<V>(nodes: ChainNodes, vote: (node: ChainNode) => Promise<Vote<V>>): Promise<{ key: string; value: V } | null> {
  return new Promise((resolve, reject) => {
    const votes = new Map<ChainNode, Vote<V> | "failed">();
    // The promise settles once: the first decision stands, a later one (the last vote's) changes nothing.
    const decide = (outcome: { key: string; value: V } | null | DomainError) => {
      if (outcome instanceof DomainError) reject(outcome);
      else resolve(outcome);
    };
    // Voices are hosts, not URLs: the nodes of one host count once (ChainNode.independentAs).
    const majority = (): { key: string; value: V } | null => {
      const counts = new Map<string, { hosts: Set<string>; value: V }>();
      for (const [node, v] of votes) {
        if (v === "failed" || v.behind) continue;
        const seen = counts.get(v.key) ?? { hosts: new Set<string>(), value: v.value };
        seen.hosts.add(node.independentAs);
        counts.set(v.key, seen);
      }
      for (const [key, { hosts, value }] of counts) if (hosts.size >= nodes.quorum) return { key, value };
      return null;
    };
    const hostsLeft = () => new Set(nodes.nodes.filter((n) => votes.get(n) !== "failed").map((n) => n.independentAs)).size;
    for (const node of nodes.nodes)
      void vote(node)
        .catch(() => "failed" as const)
        .then((v) => {
          votes.set(node, v);
          const held = majority();
          if (held) decide(held);
          else if (hostsLeft() < nodes.quorum) decide(new DomainError("RPC_BUSY", { detail: "no majority of the chain's nodes answered" }));
          if (votes.size < nodes.size) return;
          if (held) for (const [n, x] of votes) if (x !== "failed" && !x.behind && x.key !== held.key) nodes.setAside(n, "disagreed");
          decide(held);
        });
  });
}

/** Every field of a receipt (viem's `TransactionReceipt`, before formatting) a majority compares: an agreed receipt has these and no other. */
const RECEIPT_FIELDS = [
  "transactionHash",
  "transactionIndex",
  "blockHash",
  "blockNumber",
  "from",
  "to",
  "contractAddress",
  "status",
  "type",
  "gasUsed",
  "cumulativeGasUsed",
  "effectiveGasPrice",
  "blobGasUsed",
  "blobGasPrice",
  "logsBloom",
  "root",
] as const;
/** Every field of a log a majority compares. */
const LOG_FIELDS = ["address", "topics", "data", "logIndex", "transactionHash", "transactionIndex", "blockHash", "blockNumber", "removed"] as const;

/** A receipt as JSON-RPC answers it, reduced to {@link RECEIPT_FIELDS} (lower-cased): a node's object never passes, only this copy of what it said. */
export type RawReceipt = Record<(typeof RECEIPT_FIELDS)[number], string | null> & { logs: RawLog[] };
export type RawLog = Record<Exclude<(typeof LOG_FIELDS)[number], "topics" | "removed">, string> & { topics: string[]; removed: boolean };

function lower(value: unknown): unknown {
  if (typeof value === "string") return value.toLowerCase();
  if (Array.isArray(value)) return value.map(lower);
  return value ?? null;
}

export function canonicalLog(raw: unknown): RawLog {
  const log = raw as Record<string, unknown>;
  return Object.fromEntries(LOG_FIELDS.map((f) => [f, f === "removed" ? log[f] === true : lower(log[f])])) as RawLog;
}

export function canonicalReceipt(raw: unknown): RawReceipt {
  const receipt = raw as Record<string, unknown>;
  const fields = Object.fromEntries(RECEIPT_FIELDS.map((f) => [f, lower(receipt[f])]));
  const logs = Array.isArray(receipt.logs) ? receipt.logs.map(canonicalLog) : [];
  return { ...fields, logs } as RawReceipt;
}

/** Asks one node, as it is (no other node answers for it). */
export function ask<T>(node: ChainNode, method: string, params: unknown[]): Promise<T> {
  return node.client.request({ method, params } as never) as Promise<T>;
}

/** The highest block `node` holds final under `finality`. */
export function finalHead(node: ChainNode, finality: Finality): Promise<bigint> {
  if (finality.kind === "safe") {
    // Stryker disable next-line BooleanLiteral: whole transactions or their hashes, the block's number read is the same
    return ask<{ number: Hex } | null>(node, "eth_getBlockByNumber", ["safe", false]).then((b) => (b ? BigInt(b.number) : -1n));
  }
  return ask<Hex>(node, "eth_blockNumber", []).then((n) => BigInt(n) - BigInt(finality.confirmations));
}

/**
 * One node's receipt of `txHash`, final on it: behind while its final head is below the receipt's
 * block (or below `expected`, the block the receipt was first read in, when it has none); "none"
 * when it holds the transaction nowhere it holds final; its receipt's key otherwise. A receipt
 * whose block the node holds under another hash is its own fork's, and counts for nothing but itself.
 */
export async function receiptVote(node: ChainNode, finality: Finality, txHash: Hex, expected: bigint): Promise<Vote<RawReceipt | null>> {
  const [head, raw, block] = await Promise.all([
    finalHead(node, finality),
    ask<unknown>(node, "eth_getTransactionReceipt", [txHash]),
    // Stryker disable next-line BooleanLiteral: whole transactions or their hashes, the block's hash read is the same
    ask<{ hash: Hex } | null>(node, "eth_getBlockByNumber", [numberToHex(expected), false]),
  ]);
  // Stryker disable next-line StringLiteral: the key of no receipt only has to differ from every receipt's (JSON)
  if (raw === null || raw === undefined) return head < expected ? { behind: true } : { behind: false, key: "none", value: null };
  const receipt = canonicalReceipt(raw);
  // Stryker disable next-line StringLiteral: BigInt("") is 0n too
  const at = BigInt(receipt.blockNumber ?? "0x0");
  if (head < at) return { behind: true };
  // Stryker disable next-line BooleanLiteral: whole transactions or their hashes, the block's hash read is the same
  const hash = at === expected ? block?.hash : (await ask<{ hash: Hex } | null>(node, "eth_getBlockByNumber", [numberToHex(at), false]))?.hash;
  const key = JSON.stringify(receipt);
  return hash?.toLowerCase() === receipt.blockHash ? { behind: false, key, value: receipt } : { behind: false, key: `off its own chain ${key}`, value: null };
}

/** One node's answers to contract reads at block `at`: each result, or "reverted". */
export function callsAt(node: ChainNode, calls: ReadonlyArray<{ to: Hex; data: Hex }>, at: bigint): Promise<string[]> {
  return Promise.all(
    calls.map((c) =>
      ask<Hex>(node, "eth_call", [{ to: c.to, data: c.data }, numberToHex(at)]).then(
        (r) => r.toLowerCase(),
        (error: unknown) => {
          if (isNodeFailure(error)) throw error;
          // Stryker disable next-line StringLiteral: the word only has to differ from every answer (hex)
          return "reverted";
        },
      ),
    ),
  );
}

/** A value's key for comparing answers: every field, as JSON (bigints marked, strings lower-cased). */
export function stableKey(value: unknown): string {
  // Stryker disable next-line MethodExpression: any one case for every string compares alike
  return JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : typeof v === "string" ? v.toLowerCase() : v)) ?? "undefined";
}
