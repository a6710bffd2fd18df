import { formatLog, type Address, type Hex, type Log, type PublicClient, type RpcLog } from "viem";
import type { ChainView, FollowerConsumer, Head, HeadFeed, LogFilter } from "./follower-types.js";
import { nodesOf } from "./nodes.js";
import { PushedFilters } from "./pushed-filters.js";
import { isNotYet, NotYetError } from "./not-yet.js";
import { rpc } from "./rpc-errors.js";

export type { ChainView, FollowerConsumer, Head, HeadFeed, LogFilter } from "./follower-types.js";
export { logsIn } from "./logs-in.js";

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
  /**
   * What the feed is asked to push, given the addresses whose incoming transfers are ours (open
   * payment addresses, x402 receivers): our contracts' events and the token's transfers to those
   * only, so strangers' transfers push nothing and start no round. Without it, {@link filter}.
   */
  pushFilters?: (recipients: Address[]) => LogFilter[];
}

/** The `safe` block moves with L1 batches (minutes): read it at most this often. */
export const SAFE_READ_EVERY_MS = 12_000;
/** A pushed head older than this (the socket dropped, the node stalled) is not trusted: the round reads the head itself. */
export const PUSHED_HEAD_STALE_MS = 10_000;
/** With a WebSocket feed, a pushed log starts a round this soon (later pushes within it join that round). */
export const PUSHED_ROUND_DELAY_MS = 100;
/**
 * Chunks of `maxRangeBlocks` one round reads before handing its consumers what it read: a round
 * catching up after downtime holds one chunk's logs at a time, never the whole gap's; the next
 * round follows at once.
 */
export const CHUNKS_PER_ROUND = 1;
/**
 * The token's transfers are kept this many overlaps behind the head: a consumer that reads its own
 * overlap back from where the last round left it (the deposit settler) still reads from memory.
 */
const KEEP_SHORT_OVERLAPS = 2n;

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
  /** The first block whose token transfers are kept (what the last round read, and two overlaps behind its head). */
  #shortFrom = -1n;
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
  /** Whether a round stopped short of the head while catching up: the next follows at once. */
  #behind = false;
  /** Whether the last chunk read stopped at the node's head, short of the range asked. */
  #notYet = false;

  readonly #pushed: PushedFilters;

  constructor(private readonly deps: FollowerDeps) {
    this.#pushed = new PushedFilters(
      deps,
      () => this.#stopped,
      (where, error) => this.#onFailure(where, error),
    );
  }

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

  /**
   * Where the recipients of the token transfers that are ours come from (open payment addresses,
   * x402 receivers): with a feed, only their transfers are pushed.
   */
  watchRecipients(recipients: () => Promise<Address[]>): this {
    this.#pushed.from(recipients);
    return this;
  }

  /** Subscribes to the feed (when there is one): from now on heads are pushed, and a pushed log of ours starts a round. */
  async connect(): Promise<void> {
    this.#stopped = false;
    if (!this.deps.feed) return;
    const filters = await this.#pushed.current();
    await this.deps.feed.subscribe(
      filters,
      (head) => this.#onHead(head),
      (log) => this.#onLog(log),
    );
    this.#pushed.subscribed(filters);
  }

  /**
   * Our recipients changed here (a payment address opened): the `logs` subscriptions are re-made at
   * once (pushed-filters.ts).
   */
  recipientsChanged(): Promise<void> {
    return this.#pushed.changed();
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
        } while ((this.#again || this.#behind) && !this.#stopped);
      } finally {
        this.#busy = null;
      }
    })();
    return this.#busy;
  }

  async #round(): Promise<void> {
    let head: Head;
    this.#behind = false;
    try {
      await this.#pushed.refresh().catch((error: unknown) => this.#onFailure("follower", error));
      head = await this.#read(await this.#head());
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

  /**
   * The head: the last one pushed (no request) while the feed is live and neither far ahead of nor
   * far behind what a quorum of the nodes has reached (a node pushing an old head again and again
   * would freeze the rounds), else read (through the nodes, which set aside a head far ahead of or
   * behind the others').
   */
  async #head(): Promise<Head> {
    const pushed = this.#pushedHead;
    const fresh = pushed && this.deps.now() - this.#pushedAt <= PUSHED_HEAD_STALE_MS;
    if (fresh && (nodesOf(this.deps.client)?.withinQuorumHead(pushed.number) ?? true)) return pushed;
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
   * the head has not moved), in chunks of at most `maxRangeBlocks`, a refused chunk halved, at most
   * {@link CHUNKS_PER_ROUND} chunks a round. Returns the head the round's view stands on: the head,
   * or the last block read when the round stopped short (catching up, or a range past the node's
   * head: "not yet", read again next round).
   */
  async #read(head: Head): Promise<Head> {
    // Nothing new: the same head (a reorg at the same height has another hash, and is read again).
    if (head.number === this.#readTo && head.hash === this.#readHash) return head;
    const { overlapBlocks } = this.deps;
    const first = this.#readTo < 0n || head.number < this.#readTo;
    let from = first ? head.number - overlapBlocks + 1n : this.#readTo - overlapBlocks + 1n;
    if (from < 0n) from = 0n;
    const roundFrom = from;
    let readTo = from - 1n;
    for (let chunks = 0; readTo < head.number; chunks++) {
      if (chunks === CHUNKS_PER_ROUND) {
        this.#behind = true;
        break;
      }
      this.#notYet = false;
      const to = await this.#readChunk(from, head.number);
      if (to >= from) readTo = to;
      // Not yet on the node: what was read stands, the rest next round (not at once: the node must move first).
      if (this.#notYet) break;
      from = to + 1n;
    }
    if (first && readTo < head.number - overlapBlocks + 1n) throw new NotYetError(null);
    // Stopped short of what an earlier round read (a range not yet on the node): that round's stands.
    if (!first && readTo <= this.#readTo) return this.#standing(this.#readTo, head);
    const reached = readTo >= head.number ? head : this.#standing(readTo, head);
    if (first) this.#readFrom = reached.number - overlapBlocks + 1n < 0n ? 0n : reached.number - overlapBlocks + 1n;
    this.#readTo = reached.number;
    this.#readHash = reached.number === head.number ? head.hash : null;
    const longFrom = reached.number - this.deps.keepLong.blocks + 1n;
    if (this.#readFrom < longFrom) this.#readFrom = longFrom;
    // The token's transfers: what this round read, and two overlaps behind the head.
    const behind = reached.number - KEEP_SHORT_OVERLAPS * overlapBlocks + 1n;
    const shortFrom = roundFrom < behind ? roundFrom : behind;
    this.#shortFrom = shortFrom;
    const long = new Set(this.deps.keepLong.address.map((a) => a.toLowerCase()));
    for (const [n, logs] of this.#logs) {
      if (n < this.#readFrom || n > reached.number) this.#logs.delete(n);
      else if (n < shortFrom)
        this.#logs.set(
          n,
          logs.filter((l) => long.has(l.address.toLowerCase())),
        );
    }
    return reached;
  }

  /** The head a round stopped at, short of the chain's: its header when seen, else its number alone. */
  #standing(number: bigint, head: Head): Head {
    if (number === head.number) return head;
    return this.#headers.get(number) ?? { number, hash: "0x" as Hex, timestamp: 0n };
  }

  /** How many logs the follower holds in memory now (the catch-up's bound is one chunk's, with the overlap). */
  get logsHeld(): number {
    let held = 0;
    for (const logs of this.#logs.values()) held += logs.length;
    return held;
  }

  /**
   * Reads `[from, min(to, from + maxRange - 1)]`, halving a refused range; returns where it ended,
   * `from - 1` when the range is past the node's head (not yet: nothing halved, nothing lost).
   */
  async #readChunk(from: bigint, to: bigint): Promise<bigint> {
    let end = to - from + 1n > this.deps.maxRangeBlocks ? from + this.deps.maxRangeBlocks - 1n : to;
    let asked = false;
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
        if (isNotYet(error)) {
          // Past the node's head: read up to the head the nodes answer now (one request), the rest next round.
          this.#notYet = true;
          if (asked) return from - 1n;
          asked = true;
          const reached = await rpc(() => this.deps.client.getBlockNumber({ cacheTime: 0 }));
          if (reached < from) return from - 1n;
          if (reached < end) end = reached;
          continue;
        }
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
    const shortFrom = this.#shortFrom > longFrom ? this.#shortFrom : longFrom;
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
