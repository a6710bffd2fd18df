import { formatLog, parseEventLogs, type AbiEvent, type Address, type Hex, type Log, type PublicClient, type RpcLog } from "viem";
import { rpc } from "./rpc-errors.js";

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

/** Where new heads (and, pushed, new logs) come from: a WebSocket subscription, or nothing (the follower polls). */
export interface HeadFeed {
  /** Calls `onHead` with each new header and `onLogs` with each pushed log of the filter; resolves once subscribed. */
  subscribe(filter: { address: Address[]; topics: Hex[] }, onHead: (head: Head) => void, onLog: (log: RpcLog) => void): Promise<void>;
  close(): Promise<void>;
}

export interface FollowerDeps {
  client: PublicClient;
  /** The contracts and token whose logs the consumers need, and the events' first topics (one `eth_getLogs` over all). */
  filter: { address: Address[]; topics: Hex[] };
  /** The finality head of a head: `head - confirmations`, or the node's `safe` block (read at most every {@link SAFE_READ_EVERY_MS}). */
  finality: { kind: "safe" } | { kind: "confirmations"; confirmations: number };
  /** Most blocks one `eth_getLogs` covers (a node caps ranges; a refused range is halved). */
  maxRangeBlocks: bigint;
  /**
   * Blocks behind the last one read that each round reads again (a short reorg moves logs between
   * blocks, and changes the headers the follower keeps).
   */
  overlapBlocks: bigint;
  /**
   * The logs of these addresses (our contracts: few logs) are kept this many blocks behind the head,
   * so consumers that follow the finality head (`safe` lags minutes on Base) read them from memory;
   * the others' (the token's transfers: many) only over the overlap.
   */
  keepLong: { address: Address[]; blocks: bigint };
  /** Milliseconds since the epoch. */
  now: () => number;
  feed?: HeadFeed | null;
}

/** The `safe` block moves with L1 batches (minutes): read it at most this often. */
export const SAFE_READ_EVERY_MS = 12_000;
/** A pushed head older than this (the socket dropped, the node stalled) is not trusted: the round reads the head itself. */
export const PUSHED_HEAD_STALE_MS = 10_000;
/** With a WebSocket feed, a pushed log starts a round this soon (later pushes within it join that round). */
export const PUSHED_ROUND_DELAY_MS = 100;

/**
 * Follows the chain's head once per instance and hands every consumer the new blocks' logs, read
 * once: one `eth_getLogs` over the consumers' contracts and events per round (plus the head, unless a
 * WebSocket feed pushes it). Rounds run by time, never per block (Base makes five blocks a second):
 * every interval, and with a feed also soon after a pushed log of the filter. With nothing new
 * (the head has not moved) a round reads nothing more.
 */
export class ChainFollower {
  readonly #consumers: FollowerConsumer[] = [];
  /** Logs kept, by block number, for the blocks `[#keptFrom, #readTo]`. */
  readonly #logs = new Map<bigint, Log[]>();
  #readTo = -1n;
  #readHash: Hex | null = null;
  /** The first block of the unbroken stretch read up to `#readTo`. */
  #readFrom = -1n;
  readonly #headers = new Map<bigint, Head>();
  #pushedHead: Head | null = null;
  #pushedAt = 0;
  #safe: { at: number; number: bigint } | null = null;
  #timer: NodeJS.Timeout | null = null;
  #busy: Promise<void> | null = null;
  #again = false;
  #stopped = true;

  constructor(private readonly deps: FollowerDeps) {}

  /** Adds a consumer: told each round, in the order added. */
  add(consumer: FollowerConsumer): this {
    this.#consumers.push(consumer);
    return this;
  }

  /**
   * Starts rounds every `everyMs` (and, with a feed, on pushed logs); failures go to `onFailure`
   * with the consumer's name (the other consumers' rounds go on).
   */
  async start(everyMs: number, onFailure: (where: string, error: unknown) => void): Promise<void> {
    this.#onFailure = onFailure;
    try {
      await this.connect();
    } catch (error) {
      onFailure("follower", error);
    }
    const tick = () => {
      if (this.#stopped) return;
      void this.round().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, everyMs).unref();
      });
    };
    this.#timer = setTimeout(tick, 0).unref();
  }

  /** Subscribes to the feed (when there is one): from now on heads are pushed, and a pushed log of ours starts a round. */
  async connect(): Promise<void> {
    this.#stopped = false;
    await this.deps.feed?.subscribe(
      this.deps.filter,
      (head) => this.#onHead(head),
      (log) => this.#onLog(log),
    );
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.deps.feed?.close().catch(() => {});
    await this.#busy;
  }

  #onFailure: (where: string, error: unknown) => void = () => {};

  /** The number of the last head the feed pushed (null without a feed, or before the first). */
  get pushedHead(): bigint | null {
    return this.#pushedHead?.number ?? null;
  }

  #onHead(head: Head): void {
    this.#remember(head);
    // The node pushes heads in order: the last one is the head, a reorg's lower one included.
    this.#pushedHead = head;
    this.#pushedAt = this.deps.now();
  }

  #onLog(raw: RpcLog): void {
    const log = formatLog(raw) as Log;
    if (log.blockNumber === null) return;
    // A pushed log starts a round soon; the round reads the blocks again (one request), so what it
    // hands the consumers is the node's answer, complete for the range, not the pushes alone.
    if (this.#stopped || this.#pushTimer) return;
    this.#pushTimer = setTimeout(() => {
      this.#pushTimer = null;
      void this.round();
    }, PUSHED_ROUND_DELAY_MS).unref();
  }

  #pushTimer: NodeJS.Timeout | null = null;

  /**
   * One round: the head (pushed, or one read), the new blocks' logs (one read, in chunks while
   * catching up), then each consumer. Never two at once: a round asked for while one runs follows it.
   */
  round(): Promise<void> {
    if (this.#busy) {
      this.#again = true;
      return this.#busy;
    }
    this.#busy = (async () => {
      try {
        do {
          this.#again = false;
          await this.#round();
        } while (this.#again && !this.#stopped);
      } finally {
        this.#busy = null;
      }
    })();
    return this.#busy;
  }

  async #round(): Promise<void> {
    let head: Head;
    try {
      head = await this.#head();
      await this.#read(head);
    } catch (error) {
      this.#onFailure("follower", error);
      return;
    }
    const view = this.#view(head, await this.#finalHead(head).catch(() => null));
    if (!view) return;
    for (const consumer of this.#consumers) {
      try {
        await consumer.follow(view);
      } catch (error) {
        this.#onFailure(consumer.name, error);
      }
    }
  }

  /** The head: the last one pushed (no request) while the feed is live, else read. */
  async #head(): Promise<Head> {
    const pushed = this.#pushedHead;
    if (pushed && this.deps.now() - this.#pushedAt <= PUSHED_HEAD_STALE_MS) return pushed;
    const block = await rpc(() => this.deps.client.getBlock({ blockTag: "latest" }));
    const head = { number: block.number, hash: block.hash, timestamp: block.timestamp };
    this.#remember(head);
    return head;
  }

  #remember(head: Head): void {
    this.#headers.set(head.number, head);
    // Only recent headers are worth keeping (the finality depth and the overlap behind the head).
    for (const n of this.#headers.keys()) if (n < head.number - this.deps.overlapBlocks * 4n) this.#headers.delete(n);
  }

  /**
   * Reads the logs of the blocks from the overlap behind the last read up to the head (nothing when
   * the head has not moved), in chunks of at most `maxRangeBlocks`, a refused chunk halved.
   */
  async #read(head: Head): Promise<void> {
    // Nothing new: the same head (a reorg at the same height has another hash, and is read again).
    if (head.number === this.#readTo && head.hash === this.#readHash) return;
    const { overlapBlocks } = this.deps;
    let from = this.#readTo < 0n || head.number < this.#readTo ? head.number - overlapBlocks + 1n : this.#readTo - overlapBlocks + 1n;
    if (from < 0n) from = 0n;
    while (from <= head.number) {
      const to = await this.#readChunk(from, head.number);
      from = to + 1n;
    }
    const first = this.#readTo < 0n || head.number < this.#readTo;
    this.#readTo = head.number;
    this.#readHash = head.hash;
    if (first) this.#readFrom = head.number - overlapBlocks + 1n < 0n ? 0n : head.number - overlapBlocks + 1n;
    const longFrom = head.number - this.deps.keepLong.blocks + 1n;
    if (this.#readFrom < longFrom) this.#readFrom = longFrom;
    const shortFrom = head.number - overlapBlocks + 1n;
    const long = new Set(this.deps.keepLong.address.map((a) => a.toLowerCase()));
    for (const [n, logs] of this.#logs) {
      if (n < this.#readFrom) this.#logs.delete(n);
      else if (n < shortFrom)
        this.#logs.set(
          n,
          logs.filter((l) => long.has(l.address.toLowerCase())),
        );
    }
  }

  /** Reads `[from, min(to, from + maxRange - 1)]`, halving a refused range; returns where it ended. */
  async #readChunk(from: bigint, to: bigint): Promise<bigint> {
    let end = to - from + 1n > this.deps.maxRangeBlocks ? from + this.deps.maxRangeBlocks - 1n : to;
    for (;;) {
      try {
        const logs = (await rpc(() =>
          this.deps.client.request({
            method: "eth_getLogs",
            params: [
              { address: this.deps.filter.address, topics: [this.deps.filter.topics], fromBlock: `0x${from.toString(16)}`, toBlock: `0x${end.toString(16)}` },
            ],
          }),
        )) as RpcLog[];
        for (let n = from; n <= end; n++) this.#logs.delete(n);
        for (const raw of logs) {
          const log = formatLog(raw) as Log;
          if (log.blockNumber === null || log.removed) continue;
          const at = this.#logs.get(log.blockNumber);
          if (at) at.push(log);
          else this.#logs.set(log.blockNumber, [log]);
        }
        return end;
      } catch (error) {
        if (end === from) throw error;
        end = from + (end - from) / 2n;
      }
    }
  }

  async #finalHead(head: Head): Promise<bigint> {
    const { finality } = this.deps;
    if (finality.kind === "confirmations") return head.number - BigInt(finality.confirmations);
    const now = this.deps.now();
    if (!this.#safe || now - this.#safe.at >= SAFE_READ_EVERY_MS) {
      const block = await rpc(() => this.deps.client.getBlock({ blockTag: "safe" }));
      this.#safe = { at: now, number: block.number };
    }
    return this.#safe.number > head.number ? head.number : this.#safe.number;
  }

  #view(head: Head, finalHead: bigint | null): ChainView | null {
    if (finalHead === null) return null;
    const readTo = this.#readTo;
    const longFrom = this.#readFrom;
    const shortFrom = head.number - this.deps.overlapBlocks + 1n > longFrom ? head.number - this.deps.overlapBlocks + 1n : longFrom;
    const long = new Set(this.deps.keepLong.address.map((a) => a.toLowerCase()));
    const logs = this.#logs;
    const headers = this.#headers;
    return {
      head,
      finalHead,
      headerAt: (n) => headers.get(n),
      logs: (address, from, to) => {
        const keptFrom = long.has(address.toLowerCase()) ? longFrom : shortFrom;
        if (readTo < 0n || from < keptFrom || to > readTo) return null;
        const found: Log[] = [];
        for (let n = from; n <= to; n++) for (const log of logs.get(n) ?? []) if (log.address.toLowerCase() === address.toLowerCase()) found.push(log);
        return found;
      },
    };
  }
}

/**
 * The logs of `event` (or `events`) emitted by `address` in `[fromBlock, toBlock]`, decoded as
 * `client.getLogs` decodes them: from the follower's round when it read that range, else one read
 * from the node (a consumer catching up behind the round).
 */
export async function logsIn<const E extends readonly AbiEvent[]>(
  client: PublicClient,
  view: ChainView | null | undefined,
  query: { address: Address | Address[]; events: E; fromBlock: bigint; toBlock: bigint },
) {
  const addresses = Array.isArray(query.address) ? query.address : [query.address];
  const kept = view ? addresses.map((a) => view.logs(a, query.fromBlock, query.toBlock)) : [null];
  if (kept.every((k) => k !== null)) {
    const raw = (kept as Log[][])
      .flat()
      .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex! - b.logIndex! : a.blockNumber! < b.blockNumber! ? -1 : 1));
    return parseEventLogs({ abi: query.events, logs: raw, strict: true }) as unknown as Awaited<
      ReturnType<typeof client.getLogs<undefined, E, true, bigint, bigint>>
    >;
  }
  return rpc(() => client.getLogs({ address: query.address, events: query.events, fromBlock: query.fromBlock, toBlock: query.toBlock, strict: true }));
}
