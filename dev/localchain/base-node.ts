import { EventEmitter } from "node:events";
import { getAddress, type Hex } from "viem";
import { BlockTimes } from "./block-times.js";
import { BASE_TIME_ADDRESS, BASE_TIME_RUNTIME, DENIM_BLOCK_GAS_LIMIT, DENIM_BLOCK_MS, nextBaseFee } from "./denim.js";
import type { LocalChain } from "./harness.js";
import { serveJsonRpc, type RequestProvider } from "./rpc-server.js";
import { ReadWriteGate } from "./rw-gate.js";
import { serveWebSocket } from "./ws-server.js";
import { NODE_ACCOUNT_SLOTS, SenderPool } from "./node-pool.js";
import { timedOneAtATime } from "./node-trace.js";
import { sendSync } from "./send-sync.js";
import type { BaseNode, BaseNodeOptions, BaseNodeStats, MinedHeader, NodeEvents, RpcLog } from "./base-node-types.js";

export type { BaseNode, BaseNodeOptions, BaseNodeStats, MinedHeader, NodeEvents, RpcLog } from "./base-node-types.js";
export { NODE_ACCOUNT_SLOTS } from "./node-pool.js";
export { SYNC_DEFAULT_TIMEOUT_MS, SYNC_MAX_TIMEOUT_MS, SYNC_TIMEOUT_CODE } from "./send-sync.js";

/** What a round trip to a remote node costs. */
export const REMOTE_NODE_LATENCY_MS = 50;

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
  const stats: BaseNodeStats = { accepted: 0, refusedFull: 0, blocks: 0, methods: {}, blocksByTransactions: new Map() };
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

  const pool = new SenderPool(upstream, gate, slots, stats);

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
    const miningStarted = performance.now();
    await upstream.request({ method: "evm_mine", params: [Math.floor(ms / 1000)] });
    const miningMs = performance.now() - miningStarted;
    baseFeePinnedByCaller = false;
    const head = await headBlock();
    const sized = stats.blocksByTransactions.get(head.transactions.length) ?? { blocks: 0, ms: 0 };
    stats.blocksByTransactions.set(head.transactions.length, { blocks: sized.blocks + 1, ms: sized.ms + miningMs });
    lastMs = ms;
    times.record(Number(BigInt(head.number)), ms);
    stats.blocks++;
    await pinNextBaseFee(head);
    if (head.transactions.length > 0) await pool.pruneMined();
    const { transactions: _transactions, ...header } = times.block(head);
    events.emit("block", header);
    return header as MinedHeader;
  }

  async function mine(blocks = 1): Promise<bigint> {
    let last: MinedHeader | null = null;
    for (let i = 0; i < blocks; i++) last = await gate.write(mineOne);
    return last ? BigInt(last.number) : BigInt((await headBlock()).number);
  }

  async function drop(hash: Hex): Promise<void> {
    await gate.write(async () => {
      const tx = (await upstream.request({ method: "eth_getTransactionByHash", params: [hash] })) as { from: Hex; nonce: Hex; blockNumber: Hex | null } | null;
      await upstream.request({ method: "hardhat_dropTransaction", params: [hash] });
      if (tx && tx.blockNumber === null) pool.forget(getAddress(tx.from), Number(BigInt(tx.nonce)));
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
      await pool.rebuild();
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

  async function answer(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const params = Array.isArray(args.params) ? args.params : [];
    switch (args.method) {
      case "eth_sendRawTransaction":
        return pool.admit(params[0] as Hex);
      case "eth_sendRawTransactionSync":
        return sendSync(params, pool, (hash) => gate.read(() => upstream.request({ method: "eth_getTransactionReceipt", params: [hash] })), nodeEvents);
      case "eth_getTransactionCount":
        if (params[1] === "pending") return pool.pendingNonce(getAddress(params[0] as string));
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
          await pool.rebuild();
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
