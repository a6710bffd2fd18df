import { createPublicClient, createTransport, type EIP1193RequestFn, type PublicClient, type Transport } from "viem";
import { blockTimeMs } from "../block-time.js";
import { hostOf } from "../config-nodes.js";
import { chainFor, createNodeTransport } from "./client.js";
import { broadcast } from "./broadcast.js";
import { nodeLogs, OddLogs } from "./log-ranges.js";
import { isNotYet } from "./not-yet.js";
import { ChainNode, WrongChainError, isNodeFailure, isReceiptOf, isRequestAnswer, mergeLogs, type NodeEvents, type SetAsideReason } from "./node.js";

/** How long a node that failed, lagged or disagreed with the majority is left out of reads. */
export const SET_ASIDE_MS = 60_000;
/**
 * How far from the head a quorum of nodes has reached a node may answer before it counts as
 * lagging, or as ahead (about 6 s of 200 ms blocks).
 */
export const LAG_BLOCKS = 30n;
/** How often, at most, the other nodes' heads are read to tell a lagging reader (one `eth_blockNumber` each). */
const HEAD_PROBE_MS = 30_000;
/** Weight of the newest sample in a node's latency and error averages. */
const SMOOTHING = 0.2;
/** The node in use keeps serving until another's score is this many times better (no flapping between equals). */
const SWITCH_RATIO = 0.5;

const SEND_METHODS = new Set(["eth_sendRawTransaction", "eth_sendRawTransactionSync"]);

/**
 * The chain's nodes (RPC_URLS). Reads go to one node at a time, the best ranked by errors and
 * latency, and move to the next when it fails or lags; a raw transaction goes to every node; a
 * verdict asks them all (chain/agreement.ts). One node: its answers as they are, nothing added.
 */
export class ChainNodes {
  readonly nodes: ChainNode[];
  /** How many nodes must agree on a verdict (RPC_QUORUM). */
  readonly quorum: number;
  #current = 0;
  #probedAt = 0;
  #reader: PublicClient | null = null;
  readonly #now: () => number;
  readonly #chainId: number;
  readonly #events: NodeEvents;
  /** Each node's own transport, unmeasured: what its chain id is asked through. */
  readonly #direct = new Map<ChainNode, EIP1193RequestFn>();
  readonly #oddLogs = new OddLogs();

  /**
   * `eachUrlCounts`: every URL is a voice of its own in a majority (RPC_QUORUM_UNSAFE); otherwise the
   * URLs of one host count once, as one provider's word.
   */
  constructor(
    urls: string[],
    options: { chainId: number; timeoutMs: number; quorum: number; eachUrlCounts?: boolean; now?: () => number; events?: NodeEvents },
  ) {
    if (urls.length === 0) throw new Error("no node: RPC_URLS or RPC_URL");
    this.#now = options.now ?? Date.now;
    this.#chainId = options.chainId;
    this.quorum = options.quorum;
    const events = options.events ?? {};
    this.nodes = urls.map((url, position) => {
      const inner = createNodeTransport(url, options.timeoutMs)({ chain: chainFor(options.chainId, url), retryCount: 0 }).request;
      let node: ChainNode;
      const request = (async (args: { method: string; params?: unknown }) => {
        const started = performance.now();
        try {
          if (!node.chainChecked) await this.#checkChain(node);
          const result = await inner(args as never);
          node.latencyMs = node.latencyMs === null ? performance.now() - started : node.latencyMs + SMOOTHING * (performance.now() - started - node.latencyMs);
          node.errorRate -= SMOOTHING * node.errorRate;
          this.#noteHead(node, args, result);
          events.onRequest?.(position, false, args.method);
          return result;
        } catch (error) {
          const failed = isNodeFailure(error);
          if (failed) {
            node.errorRate += SMOOTHING * (1 - node.errorRate);
            // A node that failed may come back as another (a restart, a URL pointed elsewhere): its chain id is asked again first.
            node.chainChecked = false;
          }
          events.onRequest?.(position, failed, args.method);
          throw error;
        }
      }) as EIP1193RequestFn;
      node = new ChainNode(position, request, (transport) => this.#client(transport));
      node.independentAs = options.eachUrlCounts ? `#${position}` : hostOf(url);
      this.#direct.set(node, inner as EIP1193RequestFn);
      return node;
    });
    this.#events = events;
  }

  /**
   * Every node's chain id, asked at once: a node on another chain than the deployment's throws
   * {@link WrongChainError} naming its position (the start stops). A node that cannot be asked now is
   * asked before its first use, and again each time it comes back from a failure.
   */
  async checkChainIds(): Promise<void> {
    const checks = await Promise.allSettled(this.nodes.map((node) => this.#checkChain(node)));
    const wrong = checks.find((c): c is PromiseRejectedResult => c.status === "rejected" && c.reason instanceof WrongChainError);
    if (wrong) throw wrong.reason;
  }

  async #checkChain(node: ChainNode): Promise<void> {
    if (node.chainChecked) return;
    node.chainChecking ??= (async () => {
      try {
        const id = Number(await (this.#direct.get(node)! as (args: { method: string }) => Promise<unknown>)({ method: "eth_chainId" }));
        this.#events.onRequest?.(node.position, false, "eth_chainId");
        if (id !== this.#chainId) throw new WrongChainError(node.position, id, this.#chainId);
        node.chainChecked = true;
      } finally {
        node.chainChecking = null;
      }
    })();
    return node.chainChecking;
  }

  get size(): number {
    return this.nodes.length;
  }

  /**
   * The client every read and send of the service goes through: reads to the best ranked node, on
   * to the next when one fails or answers a head far behind the others'; `eth_sendRawTransaction` to
   * every node. Carries this object as `chainNodes`, where a verdict finds the nodes to ask.
   */
  reader(): PublicClient {
    if (this.#reader) return this.#reader;
    const request = ((args: { method: string; params?: unknown }) =>
      SEND_METHODS.has(args.method) ? broadcast(this.ranked(), args) : this.#read(args)) as EIP1193RequestFn;
    const transport: Transport = () => createTransport({ key: "nodes", name: "chain nodes", type: "nodes", retryCount: 0, request });
    this.#reader = this.#client(transport).extend(() => ({ chainNodes: this })) as unknown as PublicClient;
    return this.#reader;
  }

  /** The nodes in the order reads try them: in use first while it stays healthy, set-aside ones last. */
  ranked(): ChainNode[] {
    const now = this.#now();
    const healthy = this.nodes.filter((n) => !n.isAside(now));
    const aside = this.nodes.filter((n) => n.isAside(now)).sort((a, b) => a.asideUntil - b.asideUntil);
    const current = this.nodes[this.#current]!;
    // A node known to be far behind the others reads last among the healthy ones.
    healthy.sort((a, b) => Number(this.isLagging(a)) - Number(this.isLagging(b)) || a.score() - b.score() || a.position - b.position);
    const best = healthy[0];
    if (best && best !== current && !current.isAside(now) && !this.isLagging(current) && best.score() > SWITCH_RATIO * current.score()) {
      healthy.splice(healthy.indexOf(current), 1);
      healthy.unshift(current);
    }
    return [...healthy, ...aside];
  }

  /**
   * Leaves a node out of reads for {@link SET_ASIDE_MS}; reported once while it stays aside for the
   * same reason. A wrong answer (against a majority, or a head no quorum reached) counts in its
   * standing as a failure does, so a liar does not rank first again when its time aside is over.
   */
  setAside(node: ChainNode, reason: SetAsideReason): void {
    if (reason === "disagreed" || reason === "ahead") this.noteWrong(node);
    const now = this.#now();
    const already = node.isAside(now) && node.asideFor === reason;
    node.asideUntil = now + SET_ASIDE_MS;
    node.asideFor = reason;
    if (!already) this.#events.onSetAside?.(node.position, reason);
  }

  /** Counts an answer of `node`'s that was wrong, or an error of its that another node did not give, in its standing. */
  noteWrong(node: ChainNode): void {
    node.errorRate += SMOOTHING * (1 - node.errorRate);
  }

  /**
   * The head a quorum of the nodes has reached, as they last answered it: the quorum-th highest of
   * their heads, so no node alone (a liar claiming thousands of blocks ahead) moves it; null with
   * one node, or before a quorum of them has answered a head.
   */
  quorumHead(): bigint | null {
    return this.#quorumOf((n) => n.head);
  }

  /**
   * The highest head a node may answer and still be taken for the chain's: the quorum's head, each
   * node's last answer carried forward at twice the chain's block rate since it was given (a head
   * read lately is ahead of the others' older answers), plus {@link LAG_BLOCKS}. Null when no quorum
   * of heads is known. Asks the nodes their heads when the last asking is older than {@link HEAD_PROBE_MS}.
   */
  headCeiling(): bigint | null {
    this.#probeHeads();
    const now = this.#now();
    const blockMs = blockTimeMs(this.#chainId);
    const reached = this.#quorumOf((n) => n.head + (2n * BigInt(Math.max(0, now - n.headAt))) / BigInt(blockMs));
    return reached === null ? null : reached + LAG_BLOCKS;
  }

  /**
   * Whether a head (a pushed one, say) may be taken for the chain's: neither above
   * {@link headCeiling} nor more than {@link LAG_BLOCKS} below what a quorum reached (checked
   * both ways; true while no quorum of heads is known).
   */
  withinQuorumHead(head: bigint): boolean {
    const ceiling = this.headCeiling();
    const reached = this.quorumHead();
    return (ceiling === null || head <= ceiling) && (reached === null || head >= reached - LAG_BLOCKS);
  }

  isLagging(node: ChainNode): boolean {
    const reached = this.quorumHead();
    return reached !== null && node.head > 0n && node.head + LAG_BLOCKS < reached;
  }

  /** Whether `node`'s head is further ahead than a quorum of the nodes has reached (a liar, or a fork of its own). */
  isAhead(node: ChainNode): boolean {
    const ceiling = this.headCeiling();
    return ceiling !== null && node.head > ceiling;
  }

  #quorumOf(headOf: (node: ChainNode) => bigint): bigint | null {
    if (this.nodes.length === 1) return null;
    // One head per independent host (its highest): a host under two URLs does not make a quorum alone.
    const byHost = new Map<string, bigint>();
    for (const n of this.nodes.filter((x) => x.head > 0n)) {
      const head = headOf(n);
      if ((byHost.get(n.independentAs) ?? -1n) < head) byHost.set(n.independentAs, head);
    }
    const heads = [...byHost.values()].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    return heads.length >= this.quorum ? heads[this.quorum - 1]! : null;
  }

  #client(transport: Transport): PublicClient {
    // The chain's own RPC URL is never used: the transport is the nodes'.
    return createPublicClient({ chain: chainFor(this.#chainId, "http://nodes.invalid"), transport, cacheTime: 0 }) as PublicClient;
  }

  /** A node's head is what it last said it is (so a claim far ahead is forgotten once it answers true); a numbered block only raises it. */
  #noteHead(node: ChainNode, args: { method: string; params?: unknown }, result: unknown): void {
    const latest = args.method === "eth_blockNumber" || (args.method === "eth_getBlockByNumber" && (args.params as unknown[] | undefined)?.[0] === "latest");
    let head: bigint | null = null;
    if (args.method === "eth_blockNumber" && typeof result === "string") head = BigInt(result);
    else if (args.method === "eth_getBlockByNumber" && result && typeof (result as { number?: unknown }).number === "string")
      head = BigInt((result as { number: string }).number);
    if (head === null || (!latest && head <= node.head)) return;
    node.head = head;
    node.headAt = this.#now();
  }

  async #read(args: { method: string; params?: unknown }): Promise<unknown> {
    if (args.method === "eth_getLogs" && this.nodes.length > 1) return this.#readLogs(args);
    const order = this.ranked();
    const headRead = args.method === "eth_blockNumber" || (args.method === "eth_getBlockByNumber" && (args.params as unknown[] | undefined)?.[0] === "latest");
    let firstError: unknown = null;
    let behind: { node: ChainNode; result: unknown } | null = null;
    for (const node of order) {
      try {
        const result = await node.request(args as never);
        // A receipt of another transaction than the one asked: a wrong answer, and the next node answers.
        if (args.method === "eth_getTransactionReceipt" && this.nodes.length > 1 && !isReceiptOf(result, args.params)) {
          this.setAside(node, "disagreed");
          continue;
        }
        this.#current = node.position;
        if (headRead && this.nodes.length > 1) {
          // The others' heads, before this one is judged against them (at start, and now and then).
          if (this.quorumHead() === null) await this.probeHeads(node);
          else this.#probeHeads(node);
          // A head far above what a quorum reached is a node that lies or strays: the next node answers.
          if (this.isAhead(node)) {
            this.setAside(node, "ahead");
            continue;
          }
          // A head far below another node's is a node behind, never a reorg: the next node answers.
          if (this.isLagging(node)) {
            this.setAside(node, "lagging");
            if (!behind || node.head > behind.node.head) behind = { node, result };
            continue;
          }
        }
        return result;
      } catch (error) {
        // The request's own answer (a revert, invalid input) is every node's; any other error is
        // this node's, and the next one answers (it counts in its standing).
        if (!isNodeFailure(error) && (isRequestAnswer(error) || this.nodes.length === 1)) throw error;
        firstError ??= error;
        if (this.nodes.length === 1) continue;
        if (isNodeFailure(error)) this.setAside(node, "failed");
        else this.noteWrong(node);
      }
    }
    if (behind) return behind.result;
    throw firstError ?? new Error("no node answered the read as asked (each answered another transaction's receipt)");
  }

  /**
   * A log read asked of two nodes at once (the best ranked two that answer), their logs merged: a
   * node that withholds logs, or answers a range past its head with what it has, hides nothing
   * another node holds. Each node's range is split within the cap it has shown (log-ranges.ts); a
   * node that errs, whatever the error, is replaced by the next for this read, and its error counts
   * in its standing. Only when no node answers is the read refused: "not yet" when one said so.
   */
  async #readLogs(args: { method: string; params?: unknown }): Promise<unknown> {
    const order = this.ranked();
    const answers: unknown[][] = [];
    const answered: ChainNode[] = [];
    const errors: unknown[] = [];
    let next = 0;
    const ask = async (): Promise<void> => {
      while (next < order.length && answers.length < 2) {
        const node = order[next++]!;
        try {
          answers.push(await nodeLogs(node, args));
          answered.push(node);
          return;
        } catch (error) {
          errors.push(error);
          if (isNodeFailure(error)) this.setAside(node, "failed");
          else if (!isNotYet(error)) this.noteWrong(node);
        }
      }
    };
    await Promise.all([ask(), ask()]);
    if (answers.length === 0) throw errors.find(isNotYet) ?? errors[0];
    this.#current = order[0]!.position;
    if (answers.length === 2) this.#oddLogs.note(answers, answered);
    return mergeLogs(answers);
  }

  /**
   * A log a majority holds otherwise: the node that alone answered it in a log read is set aside
   * (not the one that merely answered with it, nor the last one read).
   */
  blameLog(log: Parameters<OddLogs["take"]>[0]): void {
    const source = this.#oddLogs.take(log);
    if (source) this.setAside(source, "disagreed");
  }

  /**
   * Now and then, while a node answers, the others are asked theirs (one `eth_blockNumber` each),
   * so a node that fell behind, or claims a head no quorum reached, is known before it is taken for the chain.
   */
  #probeHeads(serving?: ChainNode): void {
    if (this.nodes.length === 1 || this.#now() - this.#probedAt < HEAD_PROBE_MS) return;
    void this.probeHeads(serving);
  }

  /**
   * Asks every node (but `serving`, which just answered) its head: one `eth_blockNumber` each,
   * failures ignored; then a node far ahead of what a quorum reached, or far behind it, is set aside.
   */
  async probeHeads(serving?: ChainNode): Promise<void> {
    this.#probedAt = this.#now();
    await Promise.all(this.nodes.filter((n) => n !== serving).map((n) => n.request({ method: "eth_blockNumber" } as never).catch(() => undefined)));
    for (const node of this.nodes) {
      if (node.head === 0n) continue;
      if (this.isAhead(node)) this.setAside(node, "ahead");
      else if (this.isLagging(node)) this.setAside(node, "lagging");
    }
  }
}

/** The set of nodes a client reads through, when it was built by {@link ChainNodes.reader}; null for a plain client. */
export function nodesOf(client: PublicClient): ChainNodes | null {
  return (client as { chainNodes?: ChainNodes }).chainNodes ?? null;
}
