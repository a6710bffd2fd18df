import { getAddress, parseTransaction, recoverTransactionAddress, type Address, type Hex, type TransactionSerialized } from "viem";
import type { LocalChain } from "./harness.js";
import { FlashblockBuilder, SYNC_DEFAULT_TIMEOUT_MS, SYNC_MAX_TIMEOUT_MS, SYNC_TIMEOUT_CODE } from "./flashblocks.js";
import { serveJsonRpc, type RequestProvider } from "./rpc-server.js";
import { serveWebSocket } from "./ws-server.js";

/**
 * Base Sepolia's block gas limit as set in its SystemConfig at genesis (25,000,000 gas:
 * ethereum-optimism/superchain-registry, `superchain/configs/sepolia/base.toml`, `gasLimit`). Base
 * raises it over time (Base mainnet ran 140M in 2025, docs.base.org "Block Building"); the bench
 * takes BASE_BLOCK_GAS_LIMIT to play another value. It does not bind for single charges (16 per
 * block per sender is 2M gas) but does for large batches.
 */
export const BASE_SEPOLIA_BLOCK_GAS_LIMIT = 25_000_000n;
/** Base's block time. */
export const BASE_BLOCK_MS = 2000;
/** What a round trip to a remote node costs. */
export const REMOTE_NODE_LATENCY_MS = 50;
/** The per-sender slots of geth's and reth's default transaction pool: the 17th is refused. */
export const NODE_ACCOUNT_SLOTS = 16;

/** Base's Flashblock interval: a preconfirmed slice of the next block every 200 ms. */
export const BASE_FLASHBLOCK_MS = 200;

export interface BaseNodeOptions {
  latencyMs?: number;
  /** A block every so many ms (default 2000); 0: no block clock, blocks only by `seal()`. */
  blockMs?: number;
  /** A Flashblock every so many ms (default 200); 0: no preconfirmations (a node without Flashblocks). */
  flashblockMs?: number;
  /** No clocks at all: a test builds Flashblocks with `flashblock()` and seals with `seal()`. */
  manual?: boolean;
  blockGasLimit?: bigint;
  accountSlots?: number;
  /** Every block's base fee, wei (hardhat_setNextBlockBaseFeePerGas before each): an L2 whose base fee holds still. */
  baseFeePerGas?: bigint;
  host?: string;
  port?: number;
}

export interface BaseNodeStats {
  /** eth_sendRawTransaction accepted into the pool. */
  accepted: number;
  /** eth_sendRawTransaction refused because the sender's slots were taken. */
  refusedFull: number;
  /** Blocks sealed (by the node's clock or `seal()`). */
  blocks: number;
  /** Flashblocks built (each preconfirmed what the pool gained since the one before). */
  flashblocks: number;
  /**
   * With BASE_NODE_TRACE set: per method, the chain's calls (the service's, the block clock's and the
   * pool's own) and the time the chain spent on them, each timed alone (the calls then run one at a time).
   */
  methods: Record<string, { calls: number; ms: number }>;
}

export interface BaseNode {
  /** The node's JSON-RPC endpoint. */
  url: string;
  /** The same endpoint over WebSocket: JSON-RPC, and eth_subscribe (newFlashblocks, newFlashblockTransactions, pendingLogs, newHeads). */
  wsUrl: string;
  readonly stats: BaseNodeStats;
  /** Whether Flashblocks are being built (false: a node without preconfirmations, Base's fallback). */
  readonly preconfirmations: boolean;
  /**
   * Pins the base fee of the next block and of every block the node mines after it (null: the chain's
   * own EIP-1559 rule again). eth_feeHistory quotes the pinned fee as the next block's.
   */
  setBaseFee(wei: bigint | null): Promise<void>;
  /** Builds a Flashblock now (what the pool gained since the last one is preconfirmed). */
  flashblock(): Promise<void>;
  /** Seals the block being built now; resolves with its number. */
  seal(): Promise<bigint>;
  /** Leaves a preconfirmed transaction (and its sender's later nonces) out of the block it was preconfirmed for: Base's rare Flashblock reorg. */
  dropFromSeal(hash: Hex): void;
  /** Stops or resumes Flashblocks mid-run (Base's fallback to 2 s blocks); blocks keep coming. */
  setPreconfirmations(on: boolean): Promise<void>;
  /** Stops the clocks and the endpoint (the chain itself stays, automining again: its owner closes it). */
  close(): Promise<void>;
}

/** The pool's answer to a sender past its slots: geth's `ErrAccountLimitExceeded`. */
const ACCOUNT_LIMIT_ERROR = { code: -32000, message: "account limit exceeded" };

/**
 * A node that plays Base in front of the local chain: `latencyMs` per JSON-RPC round trip, a block
 * every `blockMs` (automining off: transactions wait in the pool for the next block) with
 * `blockGasLimit`, a Flashblock every `flashblockMs` (dev/localchain/flashblocks.ts: receipts,
 * `pending` and the WebSocket subscriptions serve what is preconfirmed), and a pool that holds at
 * most `accountSlots` unmined transactions per sender (the next is refused with "account limit
 * exceeded", as geth's and reth's default pools do). A refused transaction is not in the pool: its
 * nonce is still free. While the node runs, the chain's in-process provider (`chain.provider`, its
 * clients) is answered by the node too, without the latency.
 */
export async function startBaseNode(chain: LocalChain, options: BaseNodeOptions = {}): Promise<BaseNode> {
  const latencyMs = options.latencyMs ?? REMOTE_NODE_LATENCY_MS;
  const blockMs = options.blockMs ?? BASE_BLOCK_MS;
  const flashblockMs = options.flashblockMs ?? BASE_FLASHBLOCK_MS;
  const slots = options.accountSlots ?? NODE_ACCOUNT_SLOTS;
  const stats: BaseNodeStats = { accepted: 0, refusedFull: 0, blocks: 0, flashblocks: 0, methods: {} };
  const upstream = process.env.BASE_NODE_TRACE ? timedOneAtATime(chain.direct, stats.methods) : chain.direct;
  await upstream.request({ method: "evm_setAutomine", params: [false] });
  await upstream.request({ method: "evm_setBlockGasLimit", params: [`0x${(options.blockGasLimit ?? BASE_SEPOLIA_BLOCK_GAS_LIMIT).toString(16)}`] });

  /** Per sender: the nonces of its transactions in the pool (unmined), and its next nonce as of the last block. */
  const pool = new Map<Address, { nonces: Set<number>; mined: number }>();

  let baseFee = options.baseFeePerGas ?? null;
  const pinBaseFee = async () => {
    if (baseFee !== null) await upstream.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${baseFee.toString(16)}`] });
  };
  const builder = new FlashblockBuilder(upstream, {
    blockSeconds: Math.max(1, Math.round((blockMs || BASE_BLOCK_MS) / 1000)),
    beforeMine: pinBaseFee,
    afterSeal: async (_block, dropped) => {
      stats.blocks++;
      for (const tx of dropped) pool.get(getAddress(tx.from))?.nonces.delete(Number(BigInt(tx.nonce)));
      await pruneMined();
    },
  });
  builder.onFlashblock(() => stats.flashblocks++);
  await builder.start();
  if (flashblockMs === 0) await builder.setPreconfirmations(false);

  /** A sender's pool entry, its mined nonce read once (afterwards kept by `pruneMined` after each block). */
  async function entryOf(sender: Address) {
    let entry = pool.get(sender);
    if (!entry) {
      const mined = Number(await builder.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
      entry = pool.get(sender) ?? { nonces: new Set<number>(), mined };
      pool.set(sender, entry);
    }
    return entry;
  }

  /** After a block (inside the builder's write): each sender's mined nonce, and the pool without what the block took. */
  async function pruneMined() {
    for (const [sender, entry] of pool) {
      if (entry.nonces.size === 0) continue;
      entry.mined = Number(await upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
      for (const n of entry.nonces) if (n < entry.mined) entry.nonces.delete(n);
    }
  }

  async function admit(raw: Hex): Promise<Hex> {
    const tx = parseTransaction(raw);
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
      const hash = (await builder.request({ method: "eth_sendRawTransaction", params: [raw] })) as Hex;
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
   * pool to answer it (a wave's 16 batches of renewals executed again for every read).
   */
  async function pendingNonce(sender: Address): Promise<Hex> {
    let next = Number(await upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
    const entry = pool.get(sender);
    if (entry) while (entry.nonces.has(next)) next++;
    return `0x${next.toString(16)}`;
  }

  /**
   * eth_feeHistory once per head: the next block's base fee follows from the head alone (EIP-1559, or
   * the pinned fee), so the answer holds until a block is mined or the fee is pinned again. The local
   * chain builds a pending block from its whole pool for each one.
   */
  let feeHistory: { key: string; answer: Promise<unknown> } | null = null;
  async function feeHistoryOnce(args: { method: string; params?: unknown[] | object }): Promise<unknown> {
    const head = await upstream.request({ method: "eth_blockNumber", params: [] });
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

  const provider: RequestProvider = {
    async request(args) {
      const params = Array.isArray(args.params) ? args.params : [];
      if (args.method === "eth_sendRawTransaction") return admit(params[0] as Hex);
      // Without Flashblocks the pending nonce is the pool's (with them, the builder's preconfirmed state
      // answers it, as Base's preconf endpoints do).
      if (args.method === "eth_getTransactionCount" && params[1] === "pending" && !builder.preconfirmations)
        return pendingNonce(getAddress(params[0] as string));
      if (args.method === "eth_feeHistory") return feeHistoryOnce(args);
      if (args.method === "eth_sendRawTransactionSync") {
        // EIP-7966: the receipt (preconfirmed when Flashblocks run), or error 4 with the hash after the timeout.
        const hash = await admit(params[0] as Hex);
        const asked = params[1] === undefined || params[1] === null ? SYNC_DEFAULT_TIMEOUT_MS : Number(params[1]);
        const timeoutMs = Number.isFinite(asked) && asked > 0 ? Math.min(asked, SYNC_MAX_TIMEOUT_MS) : SYNC_DEFAULT_TIMEOUT_MS;
        const receipt = await builder.waitForReceipt(hash, timeoutMs);
        if (receipt) return receipt;
        throw Object.assign(new Error(`the transaction was added to the pool but not processed within ${timeoutMs} ms`), {
          code: SYNC_TIMEOUT_CODE,
          data: hash,
        });
      }
      return builder.request(args);
    },
  };

  const served = await serveJsonRpc(provider, options.host, options.port ?? 0, { latencyMs });
  const ws = serveWebSocket(served.server, provider, builder, { latencyMs });
  chain.routeThrough(provider);
  await pinBaseFee();

  const timers: NodeJS.Timeout[] = [];
  if (!options.manual) {
    if (blockMs > 0) timers.push(setInterval(() => void builder.seal().catch(() => {}), blockMs));
    if (flashblockMs > 0) timers.push(setInterval(() => void builder.flashblock({ paced: true }).catch(() => {}), flashblockMs));
  }
  for (const timer of timers) timer.unref();

  return {
    url: served.url,
    wsUrl: served.url.replace(/^http/, "ws"),
    stats,
    get preconfirmations() {
      return builder.preconfirmations;
    },
    setBaseFee: async (wei) => {
      baseFee = wei;
      feeHistory = null;
      await pinBaseFee();
    },
    flashblock: () => builder.flashblock(),
    seal: async () => BigInt((await builder.seal()).number),
    dropFromSeal: (hash) => builder.dropFromSeal(hash),
    setPreconfirmations: (on) => builder.setPreconfirmations(on),
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      chain.routeThrough(null);
      await ws.close();
      await served.close();
      // A seal or Flashblock in flight finishes before automining comes back.
      await builder.setPreconfirmations(false);
      await upstream.request({ method: "evm_setAutomine", params: [true] });
    },
  };
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
