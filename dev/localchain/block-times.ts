import type { Hex } from "viem";

/** How many blocks' milliseconds the node keeps (about 3.3 hours of 200 ms blocks); older blocks answer `timestamp` × 1000. */
export const BLOCK_TIMES_KEPT = 60_000;

/**
 * Each block's full millisecond timestamp, by number, as the node mined it, and the answers of the
 * JSON-RPC methods that carry blocks, transactions, receipts and logs with Base's millisecond fields
 * added: `timestampMs` on blocks and headers, `blockTimestampMs` on transactions, receipts and logs
 * (hex quantities, as Base's RPC serves them). A block the node did not mine (the chain's history
 * before it started) answers its `timestamp` × 1000.
 */
export class BlockTimes {
  readonly #ms = new Map<number, number>();
  readonly #kept: number;

  constructor(kept = BLOCK_TIMES_KEPT) {
    this.#kept = kept;
  }

  record(number: number, ms: number): void {
    this.#ms.delete(number);
    this.#ms.set(number, ms);
    if (this.#ms.size > this.#kept) this.#ms.delete(this.#ms.keys().next().value!);
  }

  /** Forgets the blocks above `head` (they were reverted: their numbers will be mined again). */
  forgetAbove(head: number): void {
    for (const number of [...this.#ms.keys()]) if (number > head) this.#ms.delete(number);
  }

  /** Block `number`'s milliseconds; `timestamp` (seconds, hex) when the node did not mine it. */
  msOf(number: number, timestamp?: Hex | bigint): number | null {
    const ms = this.#ms.get(number);
    if (ms !== undefined) return ms;
    return timestamp === undefined ? null : Number(BigInt(timestamp)) * 1000;
  }

  /** `answer` of `method` with the millisecond fields added (answers of other methods unchanged). */
  stamp(method: string, answer: unknown): unknown {
    if (answer === null || typeof answer !== "object") return answer;
    switch (method) {
      case "eth_getBlockByNumber":
      case "eth_getBlockByHash":
        return this.block(answer as RpcBlockLike);
      case "eth_getTransactionByHash":
      case "eth_getTransactionByBlockHashAndIndex":
      case "eth_getTransactionByBlockNumberAndIndex":
        return this.#withBlockMs(answer as Stampable);
      case "eth_getTransactionReceipt":
      case "eth_sendRawTransactionSync":
        return this.receipt(answer as RpcReceiptLike);
      case "eth_getBlockReceipts":
        return Array.isArray(answer) ? answer.map((r) => this.receipt(r as RpcReceiptLike)) : answer;
      case "eth_getLogs":
      case "eth_getFilterLogs":
      case "eth_getFilterChanges":
        return Array.isArray(answer)
          ? answer.map((entry) => (typeof entry === "object" && entry !== null ? this.#withBlockMs(entry as Stampable) : entry))
          : answer;
      default:
        return answer;
    }
  }

  block<T extends RpcBlockLike>(block: T): T & { timestampMs: Hex } {
    const ms = this.msOf(Number(BigInt(block.number)), block.timestamp)!;
    const transactions = Array.isArray(block.transactions)
      ? block.transactions.map((tx) => (typeof tx === "object" && tx !== null ? { ...tx, blockTimestampMs: hex(ms) } : tx))
      : block.transactions;
    return { ...block, timestampMs: hex(ms), ...(transactions !== undefined ? { transactions } : {}) };
  }

  receipt<T extends RpcReceiptLike>(receipt: T): T {
    const stamped = this.#withBlockMs(receipt) as T;
    return Array.isArray(receipt.logs) ? { ...stamped, logs: receipt.logs.map((log) => this.#withBlockMs(log as Stampable)) } : stamped;
  }

  #withBlockMs<T extends Stampable>(entry: T): T {
    if (typeof entry.blockNumber !== "string") return entry; // not mined yet
    const ms = this.msOf(Number(BigInt(entry.blockNumber)));
    return ms === null ? entry : { ...entry, blockTimestampMs: hex(ms) };
  }
}

interface Stampable {
  blockNumber?: unknown;
  [field: string]: unknown;
}

export interface RpcBlockLike {
  number: Hex;
  timestamp: Hex;
  transactions?: unknown[];
  [field: string]: unknown;
}

interface RpcReceiptLike extends Stampable {
  logs?: unknown[];
}

function hex(n: number): Hex {
  return `0x${n.toString(16)}`;
}
