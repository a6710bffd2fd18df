import { createPublicClient, numberToHex, pad, type Address, type Hex, type PublicClient } from "viem";
import { baseSepolia } from "viem/chains";
import { ChainNode, type SetAsideReason } from "../../src/chain/node.js";
import type { ChainNodes } from "../../src/chain/nodes.js";

/*
 * Chain nodes of our own making, in process: each answers JSON-RPC from a view of the chain the test
 * writes (its head, its safe head, its block hashes, its receipts, its contract reads), so the door
 * (src/chain/agreement*.ts) is exercised on exactly the answers a test names, lies included, at a
 * unit test's speed. The set records what the door does to its nodes (set aside, a log blamed).
 */

/** A log as a node answers it (JSON-RPC, hex quantities). */
export interface FakeLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
  transactionIndex: Hex;
  blockHash: Hex;
  blockNumber: Hex;
  removed: boolean;
}

/** A receipt as a node answers it. */
export type FakeReceipt = Record<string, unknown> & { transactionHash: Hex; blockNumber: Hex; blockHash: Hex; status: Hex; logs: FakeLog[] };

/** What one node holds; a test changes it and the next request reads the change. */
export interface NodeView {
  /** Its latest block. */
  head: bigint;
  /** Its `safe` block; null: it answers no safe block. */
  safe?: bigint | null;
  /** The hash it holds at a height (absent: it answers no block there). */
  blocks: Map<bigint, Hex>;
  receipts: Map<Hex, FakeReceipt>;
  /** Its answer to an `eth_call` (to, data, block): a result, or "revert" (with `:reason`, a revert with that reason). */
  call?: (to: Address, data: Hex, block: bigint) => Hex | "revert" | `revert:${string}`;
  /** Every request fails, as an unreachable node's does. */
  down?: boolean;
  /** Requests of these methods fail, as a node's own failure (not the request's answer). */
  failing?: string[];
  /** A transaction it does not hold is answered with no result at all, rather than null. */
  noResult?: boolean;
  /** Each answer waits for this first (a slow node). */
  gate?: Promise<void>;
}

/** The hash of block `n` on the chain the honest nodes share (`fork` names another chain). */
export const blockHash = (n: bigint, fork = 0): Hex => pad(numberToHex(n * 16n + BigInt(fork)), { size: 32 });

/** A node of the honest chain: head `head`, every block up to it under {@link blockHash}. */
export function honestView(head: bigint, receipts: FakeReceipt[] = [], call?: NodeView["call"]): NodeView {
  const blocks = new Map<bigint, Hex>();
  for (let n = 0n; n <= head; n++) blocks.set(n, blockHash(n));
  return { head, blocks, receipts: new Map(receipts.map((r) => [r.transactionHash.toLowerCase() as Hex, structuredClone(r)])), ...(call ? { call } : {}) };
}

/** A log as a node answers it, in transaction `tx` of block `block`. */
export function fakeLog(tx: Hex, block: bigint, index: number, fields: { address: Address; topics: Hex[]; data: Hex }, fork = 0): FakeLog {
  return {
    ...fields,
    logIndex: numberToHex(index),
    transactionHash: tx,
    transactionIndex: "0x0",
    blockHash: blockHash(block, fork),
    blockNumber: numberToHex(block),
    removed: false,
  };
}

/** A mined transaction's receipt as a node answers it. */
export function fakeReceipt(
  tx: Hex,
  block: bigint,
  logs: FakeLog[],
  options: { status?: "0x1" | "0x0"; fork?: number; from?: Address; to?: Address } = {},
): FakeReceipt {
  return {
    transactionHash: tx,
    transactionIndex: "0x0",
    blockHash: blockHash(block, options.fork),
    blockNumber: numberToHex(block),
    from: options.from ?? "0x00000000000000000000000000000000000000f1",
    to: options.to ?? "0x00000000000000000000000000000000000000f2",
    contractAddress: null,
    status: options.status ?? "0x1",
    type: "0x2",
    gasUsed: "0x5208",
    cumulativeGasUsed: "0x5208",
    effectiveGasPrice: "0x1",
    logsBloom: pad("0x0", { size: 256 }),
    logs,
  };
}

/** A node's request error that is the request's own answer (every node would give it): a revert. */
export class Reverted extends Error {
  readonly code = 3;
  constructor(reason?: string) {
    super(reason ? `execution reverted: ${reason}` : "execution reverted");
  }
}

function answer(view: NodeView, method: string, params: unknown[]): unknown {
  switch (method) {
    case "eth_blockNumber":
      // As a node does: a method that takes no parameters refuses some.
      if (params.length > 0) throw Object.assign(new Error("too many arguments, want at most 0"), { code: -32602 });
      return numberToHex(view.head);
    case "eth_getBlockByNumber": {
      const tag = params[0] as string;
      const n = tag === "safe" ? view.safe : tag === "latest" ? view.head : BigInt(tag);
      if (n === null || n === undefined) return null;
      const hash = view.blocks.get(n);
      return hash === undefined || n > view.head ? null : { number: numberToHex(n), hash, timestamp: numberToHex(n), transactions: [] };
    }
    case "eth_getTransactionReceipt":
      return structuredClone(view.receipts.get((params[0] as string).toLowerCase() as Hex) ?? (view.noResult ? undefined : null));
    case "eth_call": {
      const { to, data } = params[0] as { to: Address; data: Hex };
      const result = view.call?.(to, data, BigInt(params[1] as Hex)) ?? "revert";
      if (result.startsWith("revert")) throw new Reverted(result.split(":")[1]);
      return result;
    }
    default:
      throw new Error(`the fake node answers no ${method}`);
  }
}

/** The nodes' set as the door sees it, with what the door did to them. */
export interface FakeNodes {
  /** A client whose verdicts ask these nodes (as `ChainNodes.reader()`'s does). */
  client: PublicClient;
  nodes: ChainNodes;
  views: NodeView[];
  /** Each setting aside, in order: [position, reason]. */
  setAside: Array<[number, SetAsideReason]>;
  /** Each log the door blamed on the node that told it. */
  blamed: unknown[];
  /** How many requests each node was sent, by method. */
  asked: Array<Map<string, number>>;
}

/**
 * Nodes answering from `views`, `quorum` of them needed alike. `hosts` names each node's host (its
 * voice in a majority); by default each node is a host of its own.
 */
export function fakeNodes(views: NodeView[], options: { quorum: number; hosts?: string[] }): FakeNodes {
  const setAside: FakeNodes["setAside"] = [];
  const blamed: unknown[] = [];
  const asked = views.map(() => new Map<string, number>());
  const nodes = views.map((view, position) => {
    const request = async ({ method, params }: { method: string; params?: unknown }) => {
      asked[position]!.set(method, (asked[position]!.get(method) ?? 0) + 1);
      if (view.gate) await view.gate;
      if (view.down || view.failing?.includes(method)) throw new Error("node unreachable");
      return answer(view, method, (params as unknown[] | undefined) ?? []);
    };
    const node = new ChainNode(position, request as never, (transport) => createPublicClient({ chain: baseSepolia, transport }) as PublicClient);
    node.independentAs = options.hosts?.[position] ?? `127.0.0.${position + 2}`;
    return node;
  });
  const set = {
    nodes,
    quorum: options.quorum,
    size: nodes.length,
    setAside: (node: ChainNode, reason: SetAsideReason) => void setAside.push([node.position, reason]),
    blameLog: (log: unknown) => void blamed.push(log),
  } as unknown as ChainNodes;
  const client = { chainNodes: set } as unknown as PublicClient;
  return { client, nodes: set, views, setAside, blamed, asked };
}

/** A promise and the function that settles it: a slow node's answer, let go when the test says. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
