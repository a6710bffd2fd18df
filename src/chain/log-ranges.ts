import { BaseError, numberToHex } from "viem";
import { logKey, type ChainNode } from "./node.js";
import { isNotYet } from "./not-yet.js";

/*
 * One node's log reads within the caps it has shown: providers cap a log read's blocks or results
 * each their own way (-32005 "more than 10000 results", "block range too large"), so a refusal
 * shrinks that node's ranges alone and the read is served in pieces, never failed for the others.
 */

/** Most pieces one read is split into for a node; a node that takes less is failed for the read (others serve it). */
export const MAX_PIECES = 16n;

const RANGE_REFUSAL =
  /more than \d+ results|too many (results|logs|blocks)|range (is )?too (large|big|wide)|exceed(s|ed)? (the )?(max(imum)?|limit)|limit exceeded|block range|query timeout/i;

/** Whether a node refused a log read for its size (blocks or results), rather than for being past its head. */
export function isRangeRefusal(error: unknown): boolean {
  if (!(error instanceof Error) || isNotYet(error)) return false;
  const code =
    error instanceof BaseError ? (error.walk((e) => typeof (e as { code?: unknown }).code === "number") as { code?: number } | null)?.code : undefined;
  const text = error instanceof BaseError ? `${error.details ?? ""} ${error.shortMessage} ${error.message}` : error.message;
  return code === -32005 || RANGE_REFUSAL.test(text);
}

/** A node refused a read's range more finely than {@link MAX_PIECES} pieces would serve. */
export class RangeCapError extends Error {
  constructor(readonly position: number) {
    super(`node ${position} takes log ranges too small to serve this read`);
    this.name = "RangeCapError";
  }
}

type Filter = { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown } & Record<string, unknown>;

/**
 * `node`'s answer to an `eth_getLogs`, split into ranges within the cap it showed (a refused range
 * halved, and the cap remembered for it). A filter by block hash or tag is asked as it is.
 */
export async function nodeLogs(node: ChainNode, args: { method: string; params?: unknown }): Promise<unknown[]> {
  const filter = (args.params as [Filter])[0];
  const from = quantity(filter.fromBlock);
  const to = quantity(filter.toBlock);
  if (from === null || to === null || filter.blockHash !== undefined || to < from) return (await node.request(args as never)) as unknown[];
  return span(node, filter, from, to);
}

async function span(node: ChainNode, filter: Filter, from: bigint, to: bigint): Promise<unknown[]> {
  const size = to - from + 1n;
  const cap = node.logSpanCap;
  if (cap !== null && size > cap) {
    if (size > cap * MAX_PIECES) throw new RangeCapError(node.position);
    const logs: unknown[] = [];
    for (let start = from; start <= to; start += cap) logs.push(...(await span(node, filter, start, min(start + cap - 1n, to))));
    return logs;
  }
  try {
    return (await node.request({
      method: "eth_getLogs",
      params: [{ ...filter, fromBlock: numberToHex(from), toBlock: numberToHex(to) }],
    } as never)) as unknown[];
  } catch (error) {
    if (!isRangeRefusal(error) || size === 1n) throw error;
    // Its cap is below this range: half of it, for this node alone, and the read goes on in halves.
    node.logSpanCap = size / 2n;
    return span(node, filter, from, to);
  }
}

function quantity(value: unknown): bigint | null {
  return typeof value === "string" && value.startsWith("0x") ? BigInt(value) : typeof value === "bigint" ? value : null;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** How many logs one node of a read's two answered and the other did not are remembered. */
const ODD_LOGS = 1_000;

/**
 * Logs only one of a log read's two nodes answered, each with that node (the oldest forgotten past
 * {@link ODD_LOGS}): when a majority holds such a log otherwise, the node that alone answered it is the liar.
 */
export class OddLogs {
  readonly #source = new Map<string, ChainNode>();

  note(answers: unknown[][], answered: ChainNode[]): void {
    const keys = answers.map((logs) => new Set((logs as Parameters<typeof logKey>[0][]).map(logKey)));
    keys.forEach((own, i) => {
      for (const key of own) if (!keys[1 - i]!.has(key)) this.#source.set(key, answered[i]!);
    });
    for (const key of this.#source.keys()) {
      if (this.#source.size <= ODD_LOGS) break;
      this.#source.delete(key);
    }
  }

  /** The node that alone answered `log`, forgotten once asked. */
  take(log: Parameters<typeof logKey>[0]): ChainNode | undefined {
    const key = logKey(log);
    const source = this.#source.get(key);
    this.#source.delete(key);
    return source;
  }
}
