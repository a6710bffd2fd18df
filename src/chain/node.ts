import { BaseError, createTransport, shouldThrow, type EIP1193RequestFn, type PublicClient, type Transport } from "viem";

/*
 * One of the chain's nodes, and how its answers read: what it has shown so far (latency, errors, its
 * head, whether it is set aside), the failures that are its own rather than the request's, and the
 * two answers a cross-checked log read merges. The set of them is `ChainNodes` (nodes.ts).
 */

export type SetAsideReason = "failed" | "lagging" | "ahead" | "disagreed";

/** What the operator sees of the nodes: by position in RPC_URLS, never by URL. */
export interface NodeEvents {
  /** Each request sent to node `position` (a JSON-RPC batch's elements each count): its method, and whether it failed. */
  onRequest?: (position: number, failed: boolean, method: string) => void;
  /** A node set aside (once per setting aside, not per request it then misses). */
  onSetAside?: (position: number, reason: SetAsideReason) => void;
}

/** One of the chain's nodes: its own client (no fallback), and what its answers have shown so far. */
export class ChainNode {
  /** Smoothed round-trip time, in ms; null until it has answered once. */
  latencyMs: number | null = null;
  /** Smoothed share of failed requests, 0 to 1. */
  errorRate = 0;
  /** The head it last answered (`eth_blockNumber`, the `latest` block; a numbered block only raises it). */
  head = 0n;
  /** When it answered {@link head} (epoch ms). */
  headAt = 0;
  /** Until when it is left out of reads (epoch ms). */
  asideUntil = 0;
  /** Why it was last set aside. */
  asideFor: SetAsideReason | null = null;
  /** Its chain id was read and is the deployment's; unset at first and after it failed (a node back may be another). */
  chainChecked = false;
  chainChecking: Promise<void> | null = null;
  /** The most blocks one `eth_getLogs` of its has been shown to take (a refusal halves it); null until it refuses one. */
  logSpanCap: bigint | null = null;
  /** Whose word it is, for a majority: its host (URLs of one host count once), or its own position under RPC_QUORUM_UNSAFE. */
  independentAs = "";
  readonly client: PublicClient;

  constructor(
    /** Its position in RPC_URLS, from 0: the only name it is given in logs and metrics. */
    readonly position: number,
    readonly request: EIP1193RequestFn,
    client: (transport: Transport) => PublicClient,
  ) {
    this.client = client(() => createTransport({ key: `node${position}`, name: `node ${position}`, type: "node", retryCount: 0, request }));
  }

  isAside(now: number): boolean {
    return this.asideUntil > now;
  }

  /** Lower is better: latency weighted by failures; a node not yet measured ranks after measured healthy ones. */
  score(): number {
    return (this.latencyMs ?? 1_000) * (1 + 10 * this.errorRate);
  }
}

/** A node on another chain than the deployment's: never read, and at start, no start. */
export class WrongChainError extends Error {
  constructor(
    readonly position: number,
    readonly chainId: number,
    readonly expected: number,
  ) {
    super(`RPC_URLS position ${position}: the node is on chain ${chainId}, not the deployment's ${expected} (CHAIN_ID)`);
    this.name = "WrongChainError";
  }
}

/**
 * Whether a failure is the node's (unreachable, timing out, overloaded, garbled, erring inside) and
 * another node may answer, rather than the request's own answer (a revert, a refused transaction).
 */
export function isNodeFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  if (shouldThrow(error)) return false;
  if (error instanceof BaseError) {
    const code = (error.walk((e) => typeof (e as { code?: unknown }).code === "number") as { code?: number } | null)?.code;
    // A node's answer to the request itself: invalid input, a refused transaction, a range over its cap.
    if (code !== undefined && code !== -32603 && code > -32100 && code <= -32000) return false;
    // 3: a call or estimate reverted (geth's code; EDR's too); -32602, -32601: invalid params, unknown method.
    if (code === 3 || code === -32602 || code === -32601) return false;
    if (/revert/i.test(error.details ?? "")) return false;
  }
  return true;
}

/**
 * Whether a node's error is the request's own answer, which every node would give: a revert (code 3,
 * or "revert" in its text), invalid params or an unknown method. Any other error of a read is the node's.
 */
export function isRequestAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const code = (error.walk((e) => typeof (e as { code?: unknown }).code === "number") as { code?: number } | null)?.code;
  if (code === 3 || code === -32602 || code === -32601) return true;
  return error.walk((e) => /revert/i.test(`${(e as BaseError).details ?? ""} ${(e as Error).message}`)) !== null;
}

/**
 * Two nodes' answers to one log read, as one: every log either holds, once, in chain order. Two
 * different logs at one place both stay: the consumers' verdicts (chain/agreement.ts) tell the forged one.
 */
export function mergeLogs(answers: unknown[][]): unknown[] {
  if (answers.length === 1) return answers[0]!;
  type Raw = { blockNumber: string; blockHash: string; logIndex: string; address: string; topics: string[]; data: string };
  const seen = new Map<string, Raw>();
  for (const answer of answers) for (const log of answer as Raw[]) seen.set(logKey(log), log);
  return [...seen.values()].sort((a, b) => Number(BigInt(a.blockNumber) - BigInt(b.blockNumber)) || Number(BigInt(a.logIndex) - BigInt(b.logIndex)));
}

/** A log's identity across nodes' answers: its place, its source and its contents. */
export function logKey(log: { blockHash?: unknown; logIndex?: unknown; address: string; topics: readonly string[]; data: string }): string {
  const index = typeof log.logIndex === "string" || typeof log.logIndex === "number" || typeof log.logIndex === "bigint" ? BigInt(log.logIndex).toString() : "";
  return `${String(log.blockHash)}:${index}:${log.address}:${log.topics.join(",")}:${log.data}`.toLowerCase();
}

/** What a node answers for a transaction it already holds: taken, as far as a broadcast is concerned. */
const ALREADY_KNOWN = /already known|known transaction|already imported|already exists/i;

/** A broadcast the node already holds: taken. */
export function isAlreadyKnown(error: unknown): boolean {
  return error instanceof Error && ALREADY_KNOWN.test(`${(error as BaseError).details ?? ""} ${error.message}`);
}

/** Whether a receipt answered (or none) is of the transaction asked. */
export function isReceiptOf(result: unknown, params: unknown): boolean {
  const asked = (params as unknown[] | undefined)?.[0];
  const hash = (result as { transactionHash?: unknown } | null)?.transactionHash;
  return result === null || typeof asked !== "string" || (typeof hash === "string" && hash.toLowerCase() === asked.toLowerCase());
}
