import type { Hex } from "viem";
import type { RequestProvider } from "./rpc-server.js";
import { ReadWriteGate } from "./rw-gate.js";

/** A transaction as JSON-RPC carries it (the fields the builder reads; the rest passes through). */
export interface RpcTransaction {
  hash: Hex;
  from: Hex;
  nonce: Hex;
  blockHash: Hex | null;
  blockNumber: Hex | null;
  transactionIndex: Hex | null;
  [field: string]: unknown;
}

export interface RpcLog {
  address: Hex;
  topics: Hex[];
  blockHash: Hex;
  blockNumber: Hex;
  transactionHash: Hex;
  [field: string]: unknown;
}

export interface RpcReceipt {
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  logs: RpcLog[];
  [field: string]: unknown;
}

export interface RpcBlock {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  transactions: RpcTransaction[];
  [field: string]: unknown;
}

/** A block as eth_getBlockByNumber(…, false) answers it: transaction hashes only. */
export interface RpcBlockHeader {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  transactions: Hex[];
  [field: string]: unknown;
}

/** What one Flashblock added to the block being built. */
export interface Flashblock {
  /** The block being built as it stands after this Flashblock (full transactions; number = the block it will be sealed as). */
  block: RpcBlock;
  /** 1 for the block's first Flashblock, and so on. */
  index: number;
  /** The transactions this Flashblock preconfirmed, in order, with their receipts. */
  transactions: { transaction: RpcTransaction; receipt: RpcReceipt }[];
}

export interface FlashblockBuilderOptions {
  /** Seconds between sealed blocks' timestamps (Base: 2). */
  blockSeconds: number;
  /** Runs before every block the builder mines, trial or sealed (the node pins its base fee here). */
  beforeMine?: () => Promise<void>;
  /** Runs after a block is sealed, still inside the builder's write (the node prunes its pool here). */
  afterSeal?: (block: RpcBlockHeader, dropped: RpcTransaction[]) => Promise<void>;
}

/** A preconfirmed transaction: as the block being built holds it. */
interface Preconfirmed {
  transaction: RpcTransaction;
  receipt: RpcReceipt;
}

/** EIP-7966's error for a transaction accepted into the pool but not processed within the timeout. */
export const SYNC_TIMEOUT_CODE = 4;
/** How long eth_sendRawTransactionSync waits when the caller names no timeout, and at most. */
export const SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const SYNC_MAX_TIMEOUT_MS = 60_000;

/** Methods that move the chain or its clock outside the builder: the block being built is built again after them. */
const CHAIN_MOVERS = new Set([
  "evm_revert",
  "evm_snapshot",
  "evm_increaseTime",
  "evm_setNextBlockTimestamp",
  "hardhat_dropTransaction",
  "hardhat_setNextBlockBaseFeePerGas",
  "hardhat_setBalance",
  "hardhat_setCode",
  "hardhat_setStorageAt",
  "hardhat_setNonce",
]);

/**
 * Builds Base's blocks in front of EDR (automining off): the transactions in EDR's pool are the
 * block being built. Each Flashblock mines that block on trial (evm_snapshot, evm_mine, read its
 * transactions and receipts, evm_revert) and keeps what it read: the preconfirmed receipts, with the
 * number of the block they will be sealed in, the pending block and its logs. Sealing mines the same
 * pool for real, with the same timestamp and base fee, so the sealed block holds exactly what was
 * preconfirmed, in the same order (EDR's pool is FIFO), with the same receipts. Every other request
 * passes to EDR, whose own blocks are the sealed blocks: numbers, hashes, timestamps and logs of
 * sealed blocks are EDR's, untranslated.
 *
 * Every request goes through a readers–writer gate: a trial block is mined and reverted under a
 * write, so no reader ever sees it.
 */
export class FlashblockBuilder {
  readonly #upstream: RequestProvider;
  readonly #options: FlashblockBuilderOptions;
  readonly #gate = new ReadWriteGate();
  #preconfirmations = true;
  /** The block being built as the last Flashblock left it, or null before its first Flashblock. */
  #building: { block: RpcBlock; byHash: Map<Hex, Preconfirmed>; index: number } | null = null;
  /** Whether a transaction reached the pool since the last Flashblock (with nothing new, a Flashblock mines nothing). */
  #poolChanged = true;
  /** A paced Flashblock (the node's clock) waits until then: the gate stays free twice as long as the last trial held it. */
  #nextTrialAt = 0;
  /** The timestamp the block being built is sealed with (every trial uses it too). */
  #nextTimestamp = 0;
  /** Preconfirmed transactions to leave out of the sealed block (the Flashblock reorg hook). */
  readonly #dropAtSeal = new Set<Hex>();
  readonly #flashblockListeners = new Set<(flashblock: Flashblock) => void>();
  readonly #sealListeners = new Set<(block: RpcBlockHeader) => void>();
  /** Blocks sealed and Flashblocks built (both with transactions or without). */
  readonly stats = { sealed: 0, flashblocks: 0, trials: 0, trialMs: 0, longestTrialMs: 0 };
  /** A Flashblock waiting for the gate or being built: the clock does not queue another behind it. */
  #flashblockQueued = false;

  constructor(upstream: RequestProvider, options: FlashblockBuilderOptions) {
    this.#upstream = upstream;
    this.#options = options;
  }

  /** Reads the chain's head: the next block's timestamp follows it. */
  async start(): Promise<void> {
    await this.#gate.write(() => this.#resync());
  }

  get preconfirmations(): boolean {
    return this.#preconfirmations;
  }

  /**
   * Turns preconfirmations off (Base's fallback to 2 s blocks) or on again. Off, nothing is
   * preconfirmed: receipts come with the sealed block, `pending` is EDR's pool view, no Flashblock
   * is streamed. What was preconfirmed before is still sealed (it is in the pool).
   */
  async setPreconfirmations(on: boolean): Promise<void> {
    await this.#gate.write(async () => {
      this.#preconfirmations = on;
      this.#building = null;
      this.#poolChanged = true;
    });
  }

  /** Leaves a preconfirmed transaction (and its sender's later ones, which cannot go without it) out of the sealed block. */
  dropFromSeal(hash: Hex): void {
    this.#dropAtSeal.add(hash.toLowerCase() as Hex);
  }

  onFlashblock(listener: (flashblock: Flashblock) => void): () => void {
    this.#flashblockListeners.add(listener);
    return () => this.#flashblockListeners.delete(listener);
  }

  onSeal(listener: (block: RpcBlockHeader) => void): () => void {
    this.#sealListeners.add(listener);
    return () => this.#sealListeners.delete(listener);
  }

  /** The preconfirmed receipt of `hash`, when the block being built holds it. */
  preconfirmedReceipt(hash: Hex): RpcReceipt | null {
    return this.#building?.byHash.get(hash.toLowerCase() as Hex)?.receipt ?? null;
  }

  /** Builds a Flashblock now: preconfirms what the pool gained since the last one (nothing when preconfirmations are off). */
  async flashblock(options: { paced?: boolean } = {}): Promise<void> {
    if (!this.#preconfirmations || this.#flashblockQueued) return;
    if (options.paced && performance.now() < this.#nextTrialAt) return;
    this.#flashblockQueued = true;
    try {
      await this.#buildFlashblock();
    } finally {
      this.#flashblockQueued = false;
    }
  }

  async #buildFlashblock(): Promise<void> {
    await this.#gate.write(async () => {
      if (!this.#preconfirmations) return;
      if (this.#building && !this.#poolChanged) return;
      this.#poolChanged = false;
      const started = performance.now();
      const snapshot = (await this.#upstream.request({ method: "evm_snapshot", params: [] })) as Hex;
      try {
        this.stats.trials++;
        const header = await this.#mine();
        this.#take(header, await this.#collect(header), true);
      } finally {
        await this.#upstream.request({ method: "evm_revert", params: [snapshot] });
        const ms = performance.now() - started;
        this.stats.trialMs += ms;
        if (ms > this.stats.longestTrialMs) this.stats.longestTrialMs = ms;
        this.#nextTrialAt = performance.now() + 2 * ms;
      }
    });
  }

  /** Seals the block being built: mines the pool for real (less what `dropFromSeal` named). */
  async seal(): Promise<RpcBlockHeader> {
    return this.#gate.write(async () => {
      const dropped = await this.#dropMarked();
      const header = await this.#mine();
      // Whatever reached the pool since the last Flashblock is preconfirmed by the block's last one.
      if (this.#preconfirmations) this.#take(header, await this.#collect(header), false);
      this.#building = null;
      this.#poolChanged = true;
      this.#nextTimestamp = Number(BigInt(header.timestamp)) + this.#options.blockSeconds;
      this.stats.sealed++;
      await this.#options.afterSeal?.(header, dropped);
      for (const listener of this.#sealListeners) listener(header);
      return header;
    });
  }

  /**
   * Waits for `hash`'s receipt, preconfirmed or sealed, at most `timeoutMs`; null when none came
   * (eth_sendRawTransactionSync).
   */
  async waitForReceipt(hash: Hex, timeoutMs: number): Promise<unknown> {
    const find = () => this.request({ method: "eth_getTransactionReceipt", params: [hash] });
    const found = await find();
    if (found) return found;
    return new Promise((resolve, reject) => {
      let checking = false;
      const check = () => {
        if (checking) return;
        checking = true;
        find()
          .then((receipt) => {
            checking = false;
            if (receipt) finish(receipt);
          })
          .catch((error) => {
            stop();
            reject(error);
          });
      };
      const offFlashblock = this.onFlashblock(check);
      const offSeal = this.onSeal(check);
      const timer = setTimeout(() => finish(null), timeoutMs);
      const stop = () => {
        clearTimeout(timer);
        offFlashblock();
        offSeal();
      };
      const finish = (receipt: unknown) => {
        stop();
        resolve(receipt);
      };
    });
  }

  /** The chain as a Flashblocks-aware node answers it (see the class's comment). */
  async request(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const params = Array.isArray(args.params) ? args.params : [];
    switch (args.method) {
      case "eth_getTransactionReceipt": {
        const preconfirmed = this.preconfirmedReceipt(params[0] as Hex);
        return preconfirmed ?? this.#read(args);
      }
      case "eth_getTransactionByHash": {
        const preconfirmed = this.#building?.byHash.get(String(params[0]).toLowerCase() as Hex);
        return preconfirmed?.transaction ?? this.#read(args);
      }
      case "eth_getBlockByNumber": {
        if (params[0] !== "pending" || !this.#building) return this.#read(args);
        const block = this.#building.block;
        return params[1] === true ? block : { ...block, transactions: block.transactions.map((tx) => tx.hash) };
      }
      case "eth_getLogs":
        return this.#logs(args, params[0] as LogFilter | undefined);
      case "evm_mine":
        if (params[0] !== undefined) this.#nextTimestamp = Number(params[0]);
        await this.seal();
        return "0x0";
      case "hardhat_mine": {
        // The first block is sealed as any other; the rest (empty, at EDR's interval) are EDR's to mine at once.
        const count = params[0] === undefined ? 1 : Number(BigInt(params[0] as string));
        await this.seal();
        if (count <= 1) return true;
        return this.#move({ method: "hardhat_mine", params: [`0x${(count - 1).toString(16)}`, ...params.slice(1)] });
      }
      case "eth_sendRawTransaction":
      case "eth_sendTransaction": {
        const hash = await this.#read(args);
        this.#poolChanged = true;
        return hash;
      }
      case "evm_setAutomine":
        throw Object.assign(new Error("this node builds its own blocks (2 s blocks, Flashblocks): automining cannot be turned on"), { code: -32601 });
      default:
        if (CHAIN_MOVERS.has(args.method)) return this.#move(args);
        return this.#read(args);
    }
  }

  /** A request that moves the chain or its clock: the block being built is built again after it. */
  #move(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const params = Array.isArray(args.params) ? args.params : [];
    return this.#gate.write(async () => {
      const result = await this.#upstream.request(args);
      if (args.method === "evm_increaseTime") this.#nextTimestamp += Number(params[0]);
      else if (args.method === "evm_setNextBlockTimestamp") this.#nextTimestamp = Number(params[0]);
      else if (args.method === "evm_revert" || args.method === "hardhat_mine") await this.#resync();
      this.#building = null;
      this.#poolChanged = true;
      return result;
    });
  }

  #read(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    return this.#gate.read(() => this.#upstream.request(args));
  }

  /** eth_getLogs with `pending`: the sealed blocks' logs from EDR, then the preconfirmed ones. */
  async #logs(args: { method: string; params?: unknown[] | object }, filter: LogFilter | undefined): Promise<unknown> {
    const building = this.#building;
    if (!filter || !building) return this.#read(args);
    const pendingNumber = BigInt(building.block.number);
    const names = (tag: unknown) => tag === "pending" || (typeof tag === "string" && tag.startsWith("0x") && BigInt(tag) >= pendingNumber);
    const preconfirmedOnly = filter.blockHash !== undefined ? filter.blockHash.toLowerCase() === building.block.hash : names(filter.fromBlock);
    if (filter.blockHash !== undefined && !preconfirmedOnly) return this.#read(args);
    if (!preconfirmedOnly && !names(filter.toBlock)) return this.#read(args);
    // A range starting past the block being built holds nothing yet.
    if (typeof filter.fromBlock === "string" && filter.fromBlock.startsWith("0x") && BigInt(filter.fromBlock) > pendingNumber) return [];
    const sealed = preconfirmedOnly
      ? []
      : ((await this.#read({ method: "eth_getLogs", params: [{ ...filter, toBlock: `0x${(pendingNumber - 1n).toString(16)}` }] })) as RpcLog[]);
    const pending = [...building.byHash.values()].flatMap((p) => p.receipt.logs).filter((log) => matches(log, filter));
    return [...sealed, ...pending];
  }

  /** Mines the next block at the block's timestamp (a trial and the sealed block are mined alike). */
  async #mine(): Promise<RpcBlockHeader> {
    const head = (await this.#upstream.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { timestamp: Hex };
    const timestamp = Math.max(this.#nextTimestamp, Number(BigInt(head.timestamp)) + 1);
    this.#nextTimestamp = timestamp;
    await this.#upstream.request({ method: "evm_setNextBlockTimestamp", params: [timestamp] });
    await this.#options.beforeMine?.();
    await this.#upstream.request({ method: "evm_mine", params: [] });
    return (await this.#upstream.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as RpcBlockHeader;
  }

  /**
   * The transactions of a block just mined and their receipts: those the block being built already
   * held at the same position are known (the pool is FIFO: only new ones are read, which keeps a
   * Flashblock's cost to what it adds, not to the block).
   */
  async #collect(header: RpcBlockHeader): Promise<Preconfirmed[]> {
    const entries: Preconfirmed[] = [];
    for (const [i, hash] of header.transactions.entries()) {
      const known = this.#building?.byHash.get(hash);
      if (known && Number(BigInt(known.transaction.transactionIndex ?? "0x0")) === i) {
        entries.push(known);
        continue;
      }
      const transaction = (await this.#upstream.request({ method: "eth_getTransactionByHash", params: [hash] })) as RpcTransaction;
      const receipt = (await this.#upstream.request({ method: "eth_getTransactionReceipt", params: [hash] })) as RpcReceipt;
      entries.push({ transaction, receipt });
    }
    return entries;
  }

  /**
   * Makes the mined block the block being built and streams what it added as a Flashblock
   * (`always`: even when it added nothing); returns the block with its transactions.
   */
  #take(header: RpcBlockHeader, entries: Preconfirmed[], always: boolean): RpcBlock {
    const byHash = new Map<Hex, Preconfirmed>();
    const added: Preconfirmed[] = [];
    // Each Flashblock's block has its own hash: every transaction, receipt and log names the latest one.
    const named = (entry: Preconfirmed): Preconfirmed =>
      entry.receipt.blockHash === header.hash
        ? entry
        : {
            transaction: { ...entry.transaction, blockHash: header.hash },
            receipt: { ...entry.receipt, blockHash: header.hash, logs: entry.receipt.logs.map((log) => ({ ...log, blockHash: header.hash })) },
          };
    for (const entry of entries.map(named)) {
      byHash.set(entry.transaction.hash, entry);
      if (!this.#building?.byHash.has(entry.transaction.hash)) added.push(entry);
    }
    const block: RpcBlock = { ...header, transactions: [...byHash.values()].map((e) => e.transaction) };
    if (!always && added.length === 0) return block;
    const index = (this.#building?.index ?? 0) + 1;
    this.#building = { block, byHash, index };
    this.stats.flashblocks++;
    const flashblock: Flashblock = { block, index, transactions: added };
    for (const listener of this.#flashblockListeners) listener(flashblock);
    return block;
  }

  /** Removes the transactions `dropFromSeal` named from the pool, with their senders' later nonces. */
  async #dropMarked(): Promise<RpcTransaction[]> {
    if (this.#dropAtSeal.size === 0) return [];
    const pool = (await this.#upstream.request({ method: "eth_pendingTransactions", params: [] })) as RpcTransaction[];
    const dropped = pool.filter((tx) => this.#dropAtSeal.has(tx.hash));
    const doomed = pool.filter((tx) => dropped.some((d) => d.from === tx.from && BigInt(tx.nonce) >= BigInt(d.nonce)));
    for (const tx of doomed) await this.#upstream.request({ method: "hardhat_dropTransaction", params: [tx.hash] });
    this.#dropAtSeal.clear();
    return doomed;
  }

  /** The next block's timestamp from the chain's head (after anything moved the chain). */
  async #resync(): Promise<void> {
    const head = (await this.#upstream.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as { timestamp: Hex };
    this.#nextTimestamp = Number(BigInt(head.timestamp)) + this.#options.blockSeconds;
  }
}

export interface LogFilter {
  fromBlock?: string;
  toBlock?: string;
  blockHash?: string;
  address?: string | string[];
  topics?: (string | string[] | null)[];
}

/** Whether `log` passes an eth_getLogs / eth_subscribe filter (address and topics). */
export function matches(log: RpcLog, filter: Pick<LogFilter, "address" | "topics">): boolean {
  if (filter.address !== undefined) {
    const addresses = (Array.isArray(filter.address) ? filter.address : [filter.address]).map((a) => a.toLowerCase());
    if (addresses.length > 0 && !addresses.includes(log.address.toLowerCase())) return false;
  }
  const topics = filter.topics ?? [];
  for (let i = 0; i < topics.length; i++) {
    const wanted = topics[i];
    if (wanted === null || wanted === undefined) continue;
    const options = (Array.isArray(wanted) ? wanted : [wanted]).map((t) => t.toLowerCase());
    if (options.length === 0) continue;
    const topic = log.topics[i]?.toLowerCase();
    if (topic === undefined || !options.includes(topic)) return false;
  }
  return true;
}
