import type { Hex } from "viem";

export interface BaseNodeOptions {
  latencyMs?: number;
  /** A block every so many ms (default 200, Denim's); 0: no block clock, blocks only by `mine()`. */
  blockMs?: number;
  /** Start with the block clock paused (`resume()` starts it): a test mines with `mine()`. */
  paused?: boolean;
  /** Gas limit per block (default Denim's, DENIM_BLOCK_GAS_LIMIT). */
  blockGasLimit?: bigint;
  accountSlots?: number;
  /** Every block's base fee, wei: an L2 whose base fee holds still (default: EIP-1559 with Denim's denominator). */
  baseFeePerGas?: bigint;
  /** Keep a snapshot before each of the latest so many blocks, so `reorg(depth)` can retract them (default 0: no reorg). */
  reorgDepth?: number;
  host?: string;
  port?: number;
}

export interface BaseNodeStats {
  /** eth_sendRawTransaction accepted into the pool. */
  accepted: number;
  /** eth_sendRawTransaction refused because the sender's slots were taken. */
  refusedFull: number;
  /** Blocks mined (by the node's clock or `mine()`). */
  blocks: number;
  /**
   * With BASE_NODE_TRACE set: per method, the chain's calls (the service's, the block clock's and the
   * pool's own) and the time the chain spent on them, each timed alone (the calls then run one at a time).
   */
  methods: Record<string, { calls: number; ms: number }>;
  /**
   * Blocks mined, by how many transactions each carried: how many such blocks, and the wall time
   * their `evm_mine` took in all (the chain executing them; no read runs meanwhile).
   */
  blocksByTransactions: Map<number, { blocks: number; ms: number }>;
}

/** A mined block's header as `newHeads` carries it (with `timestampMs`). */
export interface MinedHeader {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  timestampMs: Hex;
  [field: string]: unknown;
}

/** A log as eth_getLogs answers it. */
export interface RpcLog {
  address: Hex;
  topics: Hex[];
  blockHash: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  removed?: boolean;
  [field: string]: unknown;
}

/** What the node tells its WebSocket endpoint: each mined block, and the logs a reorg retracted. */
export interface NodeEvents {
  onBlock(listener: (header: MinedHeader) => void): () => void;
  onRetracted(listener: (logs: RpcLog[]) => void): () => void;
}

export interface BaseNode {
  /** The node's JSON-RPC endpoint. */
  url: string;
  /** The same endpoint over WebSocket: JSON-RPC, and eth_subscribe `newHeads` and `logs`. */
  wsUrl: string;
  readonly stats: BaseNodeStats;
  /**
   * Pins the base fee of the next block and of every block the node mines after it (null: EIP-1559
   * with Denim's denominator again). eth_feeHistory quotes the pinned fee as the next block's.
   */
  setBaseFee(wei: bigint | null): Promise<void>;
  /** Mines `blocks` blocks now (default 1), each 200 ms after the one before; resolves with the last one's number. */
  mine(blocks?: number): Promise<bigint>;
  /** Stops the block clock: transactions wait in the pool until `mine()` or `resume()`. */
  pause(): void;
  /** Starts the block clock again. */
  resume(): void;
  /** Removes a transaction from the pool (and frees its sender's slot): it is never mined. */
  drop(hash: Hex): Promise<void>;
  /**
   * Retracts the latest `depth` blocks (at most `reorgDepth`): their logs are sent again with
   * `removed: true` to `logs` subscribers, and the chain continues from the block before them. Their
   * transactions go back to the pool (as on a node after a reorg) and are mined again in the next
   * block unless a test `drop`s them first. Resolves with the new head.
   */
  reorg(depth: number): Promise<bigint>;
  /** Stops the clock and the endpoint (the chain itself stays, automining again: its owner closes it). */
  close(): Promise<void>;
}
