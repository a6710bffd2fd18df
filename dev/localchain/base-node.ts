import { EventEmitter } from "node:events";
import { getAddress, parseTransaction, recoverTransactionAddress, type Address, type Hex, type TransactionSerialized } from "viem";
import { BlockTimes } from "./block-times.js";
import { BASE_TIME_ADDRESS, BASE_TIME_RUNTIME, DENIM_BLOCK_GAS_LIMIT, DENIM_BLOCK_MS, nextBaseFee, TRANSACTION_GAS_CAP } from "./denim.js";
import type { LocalChain } from "./harness.js";
import { serveJsonRpc, type RequestProvider } from "./rpc-server.js";
import { ReadWriteGate } from "./rw-gate.js";
import { serveWebSocket } from "./ws-server.js";

/** What a round trip to a remote node costs. */
export const REMOTE_NODE_LATENCY_MS = 50;
/** The per-sender slots of geth's and reth's default transaction pool: the 17th is refused. */
export const NODE_ACCOUNT_SLOTS = 16;
/** EIP-7966's error for a transaction accepted into the pool but not processed within the timeout. */
export const SYNC_TIMEOUT_CODE = 4;
/** How long eth_sendRawTransactionSync waits when the caller names no timeout, and at most. */
export const SYNC_DEFAULT_TIMEOUT_MS = 6_000;
export const SYNC_MAX_TIMEOUT_MS = 60_000;

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

/** The pool's answer to a sender past its slots: geth's `ErrAccountLimitExceeded`. */
const ACCOUNT_LIMIT_ERROR = { code: -32000, message: "account limit exceeded" };

/** Methods that move the chain or its clock: answered between blocks, never during one. */
const CHAIN_MOVERS = new Set([
  "evm_snapshot",
  "evm_increaseTime",
  "evm_setNextBlockTimestamp",
  "hardhat_dropTransaction",
  "hardhat_setBalance",
  "hardhat_setCode",
  "hardhat_setStorageAt",
  "hardhat_setNonce",
]);

interface HeadBlock {
  number: Hex;
  hash: Hex;
  timestamp: Hex;
  gasUsed: Hex;
  gasLimit: Hex;
  baseFeePerGas: Hex;
  transactions: Hex[];
  [field: string]: unknown;
}

/**
 * A node that plays Base after Denim in front of the local chain (EDR, automining off): a canonical
 * block every `blockMs` (200 ms) with or without transactions, `latencyMs` per JSON-RPC round trip.
 * - Blocks carry whole-second `timestamp`s, about five sharing one, and the node keeps each block's
 *   milliseconds: `timestampMs` on blocks and `newHeads`, `blockTimestampMs` on transactions,
 *   receipts and logs, and BaseTime's `timestampMs()` on chain (BASE_TIME_ADDRESS). The chain must
 *   allow blocks with the same timestamp (`startLocalChain({ sameSecondBlocks: true })`).
 * - The gas limit per block and the base fee follow Denim's figures (dev/localchain/denim.ts).
 * - The pool holds at most `accountSlots` unmined transactions per sender (the next is refused with
 *   "account limit exceeded", as geth's and reth's default pools do); a refused transaction is not in
 *   the pool: its nonce is still free.
 * - `pending` is answered as `latest` (Base has no pending state since Denim), but for
 *   eth_getTransactionCount, which counts the sender's transactions in the pool, as geth and reth do.
 * - eth_subscribe `newHeads` and `logs` on the WebSocket endpoint that shares the HTTP port;
 *   eth_sendRawTransactionSync answers the receipt once the transaction is mined.
 * Not played: the two deposit transactions each Base block begins with (users' transactions start at
 * index 0 here, at 2 on Base). While the node runs, the chain's in-process provider
 * (`chain.provider`, its clients) is answered by the node too, without the latency.
 */
export async function startBaseNode(chain: LocalChain, options: BaseNodeOptions = {}): Promise<BaseNode> {
  if (!chain.sameSecondBlocks)
    throw new Error("the Base node needs a chain that allows blocks with one timestamp: startLocalChain({ sameSecondBlocks: true })");
  const latencyMs = options.latencyMs ?? REMOTE_NODE_LATENCY_MS;
  const blockMs = options.blockMs ?? DENIM_BLOCK_MS;
  /** How far apart blocks mined on demand are (`mine()`, hardhat_mine), in chain time. */
  const spacingMs = blockMs || DENIM_BLOCK_MS;
  const slots = options.accountSlots ?? NODE_ACCOUNT_SLOTS;
  const reorgDepth = options.reorgDepth ?? 0;
  const stats: BaseNodeStats = { accepted: 0, refusedFull: 0, blocks: 0, methods: {} };
  const upstream = process.env.BASE_NODE_TRACE ? timedOneAtATime(chain.direct, stats.methods) : chain.direct;
  const gate = new ReadWriteGate();
  const times = new BlockTimes();
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const nodeEvents: NodeEvents = {
    onBlock: (listener) => {
      events.on("block", listener);
      return () => events.off("block", listener);
    },
    onRetracted: (listener) => {
      events.on("retracted", listener);
      return () => events.off("retracted", listener);
    },
  };

  await upstream.request({ method: "evm_setAutomine", params: [false] });
  await upstream.request({ method: "evm_setBlockGasLimit", params: [hex(options.blockGasLimit ?? DENIM_BLOCK_GAS_LIMIT)] });
  await upstream.request({ method: "hardhat_setCode", params: [BASE_TIME_ADDRESS, BASE_TIME_RUNTIME] });

  /** Per sender: the nonces of its transactions in the pool (unmined), and its next nonce as of the last block. */
  const pool = new Map<Address, { nonces: Set<number>; mined: number }>();

  const headBlock = async () => (await upstream.request({ method: "eth_getBlockByNumber", params: ["latest", false] })) as HeadBlock;

  /** The chain's clock: the next block's milliseconds are the wall clock plus this offset (moved by evm_increaseTime and evm_setNextBlockTimestamp). */
  let offsetMs = 0;
  /** The latest block's milliseconds. */
  let lastMs = 0;
  /** The next block's timestamp as a test pinned it (evm_setNextBlockTimestamp), seconds. */
  let pinnedSeconds: number | null = null;
  /** The base fee every block is mined with (setBaseFee), or null: Denim's EIP-1559. */
  let fixedBaseFee = options.baseFeePerGas ?? null;
  /** A test pinned the next block's base fee itself (hardhat_setNextBlockBaseFeePerGas): the node leaves it. */
  let baseFeePinnedByCaller = false;
  /** The head and the base fee the node pinned for the block after it, or null when a caller moved either since. */
  let pinnedNext: { head: HeadBlock; baseFee: bigint } | null = null;
  /** Snapshots taken before each of the latest blocks, newest last (for `reorg`). */
  let checkpoints: { id: Hex; number: number }[] = [];

  /** The head's milliseconds and the next block's base fee, read again after anything moved the chain. */
  async function resync(): Promise<HeadBlock> {
    const head = await headBlock();
    const number = Number(BigInt(head.number));
    times.forgetAbove(number);
    lastMs = times.msOf(number, head.timestamp)!;
    if (lastMs > Date.now() + offsetMs) offsetMs = lastMs - Date.now();
    await pinNextBaseFee(head);
    return head;
  }

  async function pinNextBaseFee(head: HeadBlock): Promise<void> {
    if (baseFeePinnedByCaller) return;
    const wei = fixedBaseFee ?? nextBaseFee({ baseFeePerGas: BigInt(head.baseFeePerGas), gasUsed: BigInt(head.gasUsed), gasLimit: BigInt(head.gasLimit) });
    await upstream.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [hex(wei)] });
    pinnedNext = { head, baseFee: wei };
  }

  await resync();

  /**
   * Mines one block (inside the gate's write): its milliseconds are the chain's clock, at least
   * `spacingMs` after the block before (a test's pinned timestamp wins); BaseTime holds them, and
   * the block's `timestamp` is their whole second.
   */
  async function mineOne(): Promise<MinedHeader> {
    let ms = Math.max(Date.now() + offsetMs, lastMs + spacingMs);
    if (pinnedSeconds !== null) {
      ms = Math.max(pinnedSeconds * 1000, lastMs + 1);
      offsetMs = ms - Date.now();
      pinnedSeconds = null;
    }
    if (reorgDepth > 0) {
      const id = (await upstream.request({ method: "evm_snapshot", params: [] })) as Hex;
      checkpoints.push({ id, number: Number(BigInt((await headBlock()).number)) });
      if (checkpoints.length > reorgDepth) checkpoints = checkpoints.slice(-reorgDepth);
    }
    await upstream.request({ method: "hardhat_setStorageAt", params: [BASE_TIME_ADDRESS, hex(0n, 32), hex(BigInt(ms), 32)] });
    await upstream.request({ method: "evm_mine", params: [Math.floor(ms / 1000)] });
    baseFeePinnedByCaller = false;
    const head = await headBlock();
    lastMs = ms;
    times.record(Number(BigInt(head.number)), ms);
    stats.blocks++;
    await pinNextBaseFee(head);
    if (head.transactions.length > 0) await pruneMined();
    const { transactions: _transactions, ...header } = times.block(head);
    events.emit("block", header);
    return header as MinedHeader;
  }

  async function mine(blocks = 1): Promise<bigint> {
    let last: MinedHeader | null = null;
    for (let i = 0; i < blocks; i++) last = await gate.write(mineOne);
    return last ? BigInt(last.number) : BigInt((await headBlock()).number);
  }

  /** After a block: each sender's mined nonce, and the pool without what the block took. */
  async function pruneMined() {
    for (const [sender, entry] of pool) {
      if (entry.nonces.size === 0) continue;
      entry.mined = Number(await upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
      for (const n of entry.nonces) if (n < entry.mined) entry.nonces.delete(n);
    }
  }

  /** A sender's pool entry, its mined nonce read once (afterwards kept by `pruneMined` after each block). */
  async function entryOf(sender: Address) {
    let entry = pool.get(sender);
    if (!entry) {
      const mined = Number(await upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
      entry = pool.get(sender) ?? { nonces: new Set<number>(), mined };
      pool.set(sender, entry);
    }
    return entry;
  }

  async function admit(raw: Hex): Promise<Hex> {
    const tx = parseTransaction(raw);
    // EIP-7825: refused before the pool, as geth's and reth's pools refuse it (the nonce stays free).
    if ((tx.gas ?? 0n) > TRANSACTION_GAS_CAP)
      throw Object.assign(new Error(`transaction gas limit too high (cap: ${TRANSACTION_GAS_CAP}, tx: ${tx.gas})`), { code: -32000 });
    const sender = await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized });
    const entry = await entryOf(sender);
    const nonce = tx.nonce ?? 0;
    // The slot is counted and taken at once (no await between), as a node's pool does under its lock.
    // A replacement takes the slot it replaces; a nonce already mined is the node's to refuse.
    const fresh = nonce >= entry.mined && !entry.nonces.has(nonce);
    if (fresh && entry.nonces.size >= slots) {
      stats.refusedFull++;
      throw Object.assign(new Error(ACCOUNT_LIMIT_ERROR.message), { code: ACCOUNT_LIMIT_ERROR.code });
    }
    if (fresh) entry.nonces.add(nonce);
    try {
      const hash = (await gate.read(() => upstream.request({ method: "eth_sendRawTransaction", params: [raw] }))) as Hex;
      stats.accepted++;
      return hash;
    } catch (error) {
      if (fresh) entry.nonces.delete(nonce); // refused by the node itself: the slot is free again
      throw error;
    }
  }

  /**
   * A sender's pending nonce as a node's pool answers it: its latest nonce and the unbroken run of its
   * transactions in the pool above it. The local chain would build a pending block from its whole
   * pool to answer it.
   */
  async function pendingNonce(sender: Address): Promise<Hex> {
    let next = Number(await upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
    const entry = pool.get(sender);
    if (entry) while (entry.nonces.has(next)) next++;
    return hex(BigInt(next));
  }

  /** The pool as the chain holds it (after a revert brought transactions back into it). */
  async function rebuildPool(): Promise<void> {
    pool.clear();
    const pending = (await upstream.request({ method: "eth_pendingTransactions", params: [] })) as { from: Hex; nonce: Hex }[];
    for (const tx of pending) (await entryOf(getAddress(tx.from))).nonces.add(Number(BigInt(tx.nonce)));
  }

  async function drop(hash: Hex): Promise<void> {
    await gate.write(async () => {
      const tx = (await upstream.request({ method: "eth_getTransactionByHash", params: [hash] })) as { from: Hex; nonce: Hex; blockNumber: Hex | null } | null;
      await upstream.request({ method: "hardhat_dropTransaction", params: [hash] });
      if (tx && tx.blockNumber === null) pool.get(getAddress(tx.from))?.nonces.delete(Number(BigInt(tx.nonce)));
    });
  }

  async function reorg(depth: number): Promise<bigint> {
    if (depth < 1 || depth > checkpoints.length)
      throw new Error(`the node keeps snapshots for ${checkpoints.length} block(s) (reorgDepth ${reorgDepth}): cannot retract ${depth}`);
    return gate.write(async () => {
      const target = checkpoints[checkpoints.length - depth]!;
      const head = Number(BigInt((await headBlock()).number));
      const retracted = (await upstream.request({
        method: "eth_getLogs",
        params: [{ fromBlock: hex(BigInt(target.number + 1)), toBlock: hex(BigInt(head)) }],
      })) as RpcLog[];
      const removed = (times.stamp("eth_getLogs", retracted) as RpcLog[]).map((log) => ({ ...log, removed: true }));
      await upstream.request({ method: "evm_revert", params: [target.id] });
      checkpoints = checkpoints.slice(0, checkpoints.length - depth);
      await rebuildPool();
      const now = await resync();
      if (removed.length > 0) events.emit("retracted", removed);
      return BigInt(now.number);
    });
  }

  /** A request that moves the chain or its clock, between blocks. */
  function move(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const params = Array.isArray(args.params) ? args.params : [];
    return gate.write(async () => {
      pinnedNext = null;
      const result = await upstream.request(args);
      if (args.method === "evm_increaseTime") offsetMs += Number(params[0]) * 1000;
      else if (args.method === "evm_setNextBlockTimestamp") pinnedSeconds = Number(params[0]);
      else if (args.method === "hardhat_setNextBlockBaseFeePerGas") baseFeePinnedByCaller = true;
      else if (args.method === "hardhat_dropTransaction") pool.clear(); // read again from the chain on the sender's next transaction
      return result;
    });
  }

  /**
   * eth_feeHistory once per head: the next block's base fee follows from the head alone (it is pinned
   * after each block), so the answer holds until a block is mined or the fee is pinned again. The
   * local chain builds a pending block from its whole pool for each one.
   */
  let feeHistory: { key: string; answer: Promise<unknown> } | null = null;
  async function feeHistoryOnce(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const head = await upstream.request({ method: "eth_blockNumber", params: [] });
    const known = headFeeHistory(args.params, head as Hex);
    if (known) return known;
    const key = `${head}:${JSON.stringify(args.params ?? [])}`;
    if (feeHistory?.key !== key) {
      const answer = upstream.request(args);
      feeHistory = { key, answer };
      answer.catch(() => {
        if (feeHistory?.answer === answer) feeHistory = null;
      });
    }
    return feeHistory.answer;
  }

  /**
   * The last block's fee history without percentiles, as a node answers it from its head: the head's
   * base fee and use, and the next block's base fee, which this node pinned itself. The local chain
   * builds a pending block from its whole pool to answer it (tens of milliseconds of the bench's CPU
   * per head in a renewal wave, a cost no remote node charges the service). Null for any other
   * question, or when a caller pinned the fee or moved the chain since.
   */
  function headFeeHistory(params: unknown, head: Hex): object | null {
    if (!pinnedNext || BigInt(pinnedNext.head.number) !== BigInt(head) || !Array.isArray(params)) return null;
    const [count, newest, percentiles] = params as unknown[];
    if (count === undefined || BigInt(count as string | number) !== 1n) return null;
    if (newest !== "latest" && (typeof newest !== "string" || !newest.startsWith("0x") || BigInt(newest) !== BigInt(head))) return null;
    if (percentiles !== undefined && (!Array.isArray(percentiles) || percentiles.length > 0)) return null;
    const { head: block, baseFee } = pinnedNext;
    return {
      oldestBlock: hex(BigInt(block.number)),
      baseFeePerGas: [hex(BigInt(block.baseFeePerGas)), hex(baseFee)],
      gasUsedRatio: [Number(BigInt(block.gasUsed)) / Number(BigInt(block.gasLimit))],
    };
  }

  /** eth_sendRawTransactionSync (EIP-7966): the receipt once mined, or error 4 with the hash after the timeout. */
  async function sendSync(params: unknown[]): Promise<unknown> {
    const hash = await admit(params[0] as Hex);
    const asked = params[1] === undefined || params[1] === null ? SYNC_DEFAULT_TIMEOUT_MS : Number(params[1]);
    const timeoutMs = Number.isFinite(asked) && asked > 0 ? Math.min(asked, SYNC_MAX_TIMEOUT_MS) : SYNC_DEFAULT_TIMEOUT_MS;
    const find = () => gate.read(() => upstream.request({ method: "eth_getTransactionReceipt", params: [hash] }));
    const receipt = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => finish(null), timeoutMs);
      const off = nodeEvents.onBlock(() => void find().then((r) => r && finish(r), fail));
      const finish = (r: unknown) => {
        clearTimeout(timer);
        off();
        resolve(r);
      };
      const fail = (error: unknown) => {
        clearTimeout(timer);
        off();
        reject(error);
      };
      void find().then((r) => r && finish(r), fail);
    });
    if (receipt) return receipt;
    throw Object.assign(new Error(`the transaction was added to the pool but not processed within ${timeoutMs} ms`), {
      code: SYNC_TIMEOUT_CODE,
      data: hash,
    });
  }

  async function answer(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const params = Array.isArray(args.params) ? args.params : [];
    switch (args.method) {
      case "eth_sendRawTransaction":
        return admit(params[0] as Hex);
      case "eth_sendRawTransactionSync":
        return sendSync(params);
      case "eth_getTransactionCount":
        if (params[1] === "pending") return pendingNonce(getAddress(params[0] as string));
        break;
      case "eth_feeHistory":
        return feeHistoryOnce({ ...args, params: params.map(latestForPending) });
      case "evm_mine":
        if (typeof params[0] === "number" || typeof params[0] === "string") pinnedSeconds = Number(params[0]);
        await mine(1);
        return "0x0";
      case "hardhat_mine": {
        // A count of blocks, `interval` seconds apart as Hardhat mines them; without one (or 0), 200 ms apart as on Base.
        const count = params[0] === undefined ? 1 : Number(BigInt(params[0] as string));
        const interval = params[1] === undefined ? 0 : Number(BigInt(params[1] as string));
        if (interval === 0) {
          await mine(count);
          return true;
        }
        await mine(1);
        if (count > 1)
          await gate.write(async () => {
            await upstream.request({ method: "hardhat_mine", params: [hex(BigInt(count - 1)), params[1]] });
            checkpoints = [];
            offsetMs += (count - 1) * interval * 1000;
            await resync();
          });
        return true;
      }
      case "evm_revert":
        return gate.write(async () => {
          const result = await upstream.request(args);
          checkpoints = [];
          await rebuildPool();
          // The clock goes back with the chain: the wall clock, or the head if the head is ahead of it.
          offsetMs = 0;
          pinnedSeconds = null;
          await resync();
          return result;
        });
      case "evm_setAutomine":
        throw Object.assign(new Error("this node builds its own blocks (a block every 200 ms): automining cannot be turned on"), { code: -32601 });
      default:
        if (CHAIN_MOVERS.has(args.method) || args.method === "hardhat_setNextBlockBaseFeePerGas") return move(args);
    }
    return gate.read(() => upstream.request({ ...args, params: params.map(latestForPending) }));
  }

  const provider: RequestProvider = {
    async request(args) {
      return times.stamp(args.method, await answer(args));
    },
  };

  const served = await serveJsonRpc(provider, options.host, options.port ?? 0, { latencyMs });
  const ws = serveWebSocket(served.server, provider, nodeEvents, { latencyMs });
  chain.routeThrough(provider);

  /**
   * The block clock: ticks on a grid `blockMs` apart in wall time (a late tick does not push the next
   * ones back); a block that takes longer than a tick skips the ticks it overran.
   */
  let paused = options.paused ?? false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let nextTickAt = 0;
  const schedule = () => {
    const now = performance.now();
    nextTickAt += blockMs;
    if (nextTickAt < now) nextTickAt = now + blockMs - ((now - nextTickAt) % blockMs);
    timer = setTimeout(tick, nextTickAt - now);
    timer.unref();
  };
  const tick = () => {
    timer = null;
    if (closed || paused || blockMs === 0) return;
    void gate
      .write(mineOne)
      .catch(() => {})
      .finally(() => {
        if (!closed && !paused && !timer) schedule();
      });
  };
  const resume = () => {
    paused = false;
    if (!timer && !closed && blockMs > 0) {
      nextTickAt = performance.now();
      schedule();
    }
  };
  const pause = () => {
    paused = true;
    if (timer) clearTimeout(timer);
    timer = null;
  };
  if (!paused) resume();

  return {
    url: served.url,
    wsUrl: served.url.replace(/^http/, "ws"),
    stats,
    setBaseFee: async (wei) => {
      fixedBaseFee = wei;
      feeHistory = null;
      await gate.write(async () => pinNextBaseFee(await headBlock()));
    },
    mine,
    pause,
    resume,
    drop,
    reorg,
    close: async () => {
      closed = true;
      pause();
      chain.routeThrough(null);
      await ws.close();
      await served.close();
      // A block being mined finishes before automining comes back.
      await gate.write(async () => {
        await upstream.request({ method: "evm_setAutomine", params: [true] });
      });
    },
  };
}

/** A block tag `pending` (alone or as a filter's fromBlock/toBlock/blockTag) read as `latest`: Base has no pending state since Denim. */
function latestForPending(param: unknown): unknown {
  if (param === "pending") return "latest";
  if (param && typeof param === "object" && !Array.isArray(param)) {
    const entries = Object.entries(param as Record<string, unknown>);
    if (entries.some(([, v]) => v === "pending")) return Object.fromEntries(entries.map(([k, v]) => [k, v === "pending" ? "latest" : v]));
  }
  return param;
}

function hex(n: bigint, bytes?: number): Hex {
  const digits = n.toString(16);
  return `0x${bytes === undefined ? digits : digits.padStart(bytes * 2, "0")}`;
}

/** `provider` with its calls run one at a time and timed per method (the in-process chain's own time, no queueing). */
function timedOneAtATime(provider: RequestProvider, methods: BaseNodeStats["methods"]): RequestProvider {
  let last: Promise<unknown> = Promise.resolve();
  return {
    request(args) {
      const run = last.then(async () => {
        const method = methods[args.method] ?? { calls: 0, ms: 0 };
        methods[args.method] = method;
        method.calls++;
        const start = performance.now();
        try {
          return await provider.request(args);
        } finally {
          method.ms += performance.now() - start;
        }
      });
      last = run.catch(() => {});
      return run;
    },
  };
}
