import type { Address, Hex, Log, RpcLog } from "viem";

/** A block as the follower knows it: what a header (`newHeads`, `eth_getBlockByNumber`) says. */
export interface Head {
  number: bigint;
  hash: Hex;
  /** Unix seconds (several of Base's 200 ms blocks share one). */
  timestamp: bigint;
}

/**
 * What the follower hands its consumers each round: the head, the finality head, the headers it has
 * seen lately, and the logs of the blocks it read (its filter's: our contracts' and the token's
 * events). A consumer reads a range through {@link logsIn}: from memory when the round covers it,
 * from the node otherwise (its own catch-up).
 */
export interface ChainView {
  head: Head;
  /** The highest block whose transactions count as settled (chain/finality.ts). */
  finalHead: bigint;
  /** A header the follower saw at that height lately (a reorg replaces it), if any. */
  headerAt(number: bigint): Head | undefined;
  /** The raw logs of `[from, to]` for `address`, or null when this round did not read all of that range. */
  logs(address: Address, from: bigint, to: bigint): Log[] | null;
}

/** A consumer of the follower's rounds: the deposit settler, the webhook watcher, … Each keeps its own cursor. */
export interface FollowerConsumer {
  name: string;
  follow(view: ChainView): Promise<unknown>;
}

/** A `logs` filter as a node takes it: addresses, and each topic position's alternatives (null: any). */
export interface LogFilter {
  address: Address[];
  topics: (Hex[] | null)[];
}

/** Where new heads (and, pushed, new logs) come from: a WebSocket subscription, or nothing (the follower polls). */
export interface HeadFeed {
  /** Calls `onHead` with each new header and `onLog` with each pushed log of `filters`; resolves once subscribed. */
  subscribe(filters: LogFilter[], onHead: (head: Head) => void, onLog: (log: RpcLog) => void): Promise<void>;
  /** Replaces the `logs` subscriptions with `filters` (the recipients we watch changed); the heads' stays. */
  resubscribe(filters: LogFilter[]): Promise<void>;
  close(): Promise<void>;
}
