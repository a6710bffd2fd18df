import { formatTransactionReceipt, numberToHex, type Address, type Hex, type Log, type PublicClient, type TransactionReceipt } from "viem";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { isNodeFailure, type ChainNode } from "./node.js";
import { nodesOf, type ChainNodes } from "./nodes.js";

/**
 * Every kind of verdict that releases goods or money, or that the service derives where money goes
 * from (DESIGN v7, "One door for verdicts"). Each is formed only from what the door below returns;
 * test/unit/verdict-door.test.ts holds each kind to the file that forms it.
 */
export const VERDICT_KINDS = [
  /** A payment's `valid: true` (POST /v1/payments/verify, POST /v1/x402/verdict). */
  "valid",
  /** A payment found valid by its payment key alone (POST /v1/payments/recover). */
  "recover",
  /** A refund's `REFUNDED`, on the refund's receipt and the original's. */
  "refunded",
  /** A charge's `CHARGED` (the relayer's own charge, mined and final). */
  "charged",
  /** A charge's `ALREADY_CHARGED` (a period charged by a transaction this call did not follow). */
  "already_charged",
  /** A settled event announced (`payment.settled`, `subscription.charged`, `subscription.revoked`). */
  "settled_event",
  /** An x402 settle's `success: true`. */
  "x402_success",
  /** An x402 `auth-capture` settle's `success: true`: the escrow's charge, or its authorization of a hold. */
  "x402_auth_capture_success",
  /** Where a refund goes: the payer of a payment settled from its payment address. */
  "refund_target",
  /** A watch's end: a payment address's watch, a receiver settlement's outbox entry. */
  "watch_end",
  /** The creation-code hashes every payment address and receiver address is derived from. */
  "code_hash",
  /** A hold's `authorized`: the escrow's PaymentAuthorized (the buyer's funds in escrow). */
  "hold_authorized",
  /** A hold's `captured`: the escrow's PaymentCaptured or PaymentCharged (funds to the merchant and the fee collector). */
  "hold_captured",
  /** A hold's `voided`: the escrow's PaymentVoided (what was left authorized back to the buyer). */
  "hold_voided",
  /** A hold's `refunded`: the merchant's refund of what was captured, back to the buyer. */
  "hold_refunded",
  /** A hold's `reclaimed`: the escrow's PaymentReclaimed (the buyer took back an expired authorization). */
  "hold_reclaimed",
  /** A hold call's `ESCROW_REFUSED`: the escrow's revert of the simulated call, as a majority of the nodes simulate it. */
  "escrow_refused",
] as const;
export type VerdictKind = (typeof VERDICT_KINDS)[number];

declare const FROM_THE_DOOR: unique symbol;
/**
 * What a majority of the chain's nodes (RPC_QUORUM) hold, as they hold it: only this module forms
 * one (no other `as Agreed` anywhere, test/unit/verdict-door.test.ts), and a verdict that releases
 * goods or money is built from it, never from the one node's copy it was first read from.
 */
export type Agreed<T> = T & { readonly [FROM_THE_DOOR]: VerdictKind };

function seal<T>(value: T, kind: VerdictKind): Agreed<T> {
  return Object.assign(value as object, { [DOOR_KIND]: kind }) as unknown as Agreed<T>;
}
/** The kind a value was agreed for, readable at run time (tests, logs). */
const DOOR_KIND = Symbol("agreed for");
export function agreedFor(value: unknown): VerdictKind | undefined {
  return value !== null && typeof value === "object" ? (value as { [DOOR_KIND]?: VerdictKind })[DOOR_KIND] : undefined;
}

/**
 * What a verdict that releases goods or money was computed on: a mined transaction (its status, the
 * logs the verdict read, its block) and the contract reads (`eth_call`) that gated it.
 */
interface Claim {
  /** The transaction, when the verdict stands on one (a contract read alone names none). */
  txHash?: Hex;
  blockNumber: bigint;
  /** The block's hash as the verdict read it; absent: whichever hash a majority holds final there. */
  blockHash?: Hex;
  status?: "success" | "reverted";
  /** The whole receipt stands: its sender, its target and every log, none left out (a node may hide a log as well as forge one). */
  whole?: { from: Address; to: Address | null };
  /** The receipt's logs the verdict stands on, each at its position in the block. */
  logs?: ReadonlyArray<Pick<Log, "address" | "topics" | "data" | "logIndex">>;
  /** Contract reads the verdict stands on, each read at the claim's block, with the answer it had. */
  calls?: ReadonlyArray<{ to: Address; data: Hex; result: Hex }>;
}
export type { Claim };

/** A log a verdict stands on, with the transaction and block it was read in. */
export type ClaimedLog = Pick<Log, "address" | "topics" | "data" | "logIndex" | "transactionHash" | "blockNumber" | "blockHash">;

/**
 * The door for a receipt: the receipt a majority of the nodes hold final (at or below each one's
 * finality head, in the same canonical block, the same status, sender, target and every log), as
 * they hold it; null while short of a majority (still in progress). `calls`: contract reads at the
 * receipt's block the verdict also stands on. Throws RPC_BUSY when too few nodes answer for a
 * majority to be possible.
 */
export async function agreeOnReceipt(
  kind: VerdictKind,
  client: PublicClient,
  finality: Finality,
  receipt: TransactionReceipt,
  calls?: Claim["calls"],
): Promise<Agreed<TransactionReceipt> | null> {
  const claim: Claim = {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    blockHash: receipt.blockHash,
    status: receipt.status,
    whole: { from: receipt.from, to: receipt.to },
    logs: receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.logIndex })),
    ...(calls ? { calls } : {}),
  };
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return seal({ ...receipt }, kind);
  const held = await new Tally(nodes, claim).run(finality);
  // The majority's own receipt, formatted as a node's answer is.
  return held?.receipt ? seal(formatTransactionReceipt(held.receipt as never) as TransactionReceipt, kind) : null;
}

/**
 * The door for logs and contract reads: the claim, when a majority of the nodes hold each of its logs
 * in its transaction and block and answer each read the same at that block; null while short of a
 * majority. A claim that names logs must name at least one.
 */
export async function agreeOnClaim<C extends Claim>(kind: VerdictKind, client: PublicClient, finality: Finality, claim: C): Promise<Agreed<C> | null> {
  if (claim.logs !== undefined && claim.logs.length === 0) return null;
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return seal({ ...claim }, kind);
  return (await new Tally(nodes, claim).run(finality)) ? seal({ ...claim }, kind) : null;
}

/**
 * The door for logs alone (grouped by transaction, each group a claim in its final block): `logs`
 * when a majority of the nodes hold every one; null while short of it, and null for no log at all
 * (where a log is the proof, no log is no claim).
 */
export async function agreeOnLogs<L extends ClaimedLog>(
  kind: VerdictKind,
  client: PublicClient,
  finality: Finality,
  logs: readonly L[],
): Promise<Agreed<L[]> | null> {
  if (logs.length === 0) return null;
  const byTransaction = new Map<Hex, L[]>();
  for (const log of logs) byTransaction.set(log.transactionHash!, [...(byTransaction.get(log.transactionHash!) ?? []), log]);
  const claims = [...byTransaction].map(([txHash, own]) => ({
    txHash,
    blockNumber: own[0]!.blockNumber!,
    blockHash: own[0]!.blockHash!,
    status: "success" as const,
    logs: own,
  }));
  const held = await Promise.all(claims.map((claim) => agreeOnClaim(kind, client, finality, claim)));
  return held.every((h) => h !== null) ? seal([...logs], kind) : null;
}

/** Enough nodes answered a read, and no majority of them alike: some node lies, or they are on different chains. */
export class NoMajorityError extends DomainError {
  constructor(detail: string) {
    super("RPC_BUSY", { detail });
    this.name = "NoMajorityError";
  }
}

/**
 * The door for a read that is no transaction (a code hash, a search over logs): `read` asked of every
 * node on its own, and the answer a majority of them give alike. Throws RPC_BUSY when too few
 * answered, {@link NoMajorityError} (RPC_BUSY too) when they answered and no majority alike; a node
 * answering otherwise than the majority is set aside. The read's blocks should be final (a node behind them answers otherwise).
 */
export async function agreeOnRead<T>(kind: VerdictKind, client: PublicClient, read: (client: PublicClient) => Promise<T>): Promise<Agreed<T>> {
  const nodes = nodesOf(client);
  // A plain value (a hash) cannot carry the mark: it is typed as agreed, formed here all the same.
  const sealed = (value: T) => (value !== null && typeof value === "object" ? seal(value, kind) : value) as Agreed<T>;
  if (!nodes || nodes.quorum <= 1) return sealed(await read(client));
  type Answer = { node: ChainNode; value: T; key: string } | null;
  const answers: Answer[] = [];
  const all = nodes.nodes.map((node) =>
    read(node.client).then(
      (value): Answer => ({ node, value, key: stableKey(value) }),
      (): Answer => null,
    ),
  );
  // Decided as soon as a quorum gives one answer (a slow node is not waited for); the nodes against
  // that answer are set aside once every node has answered.
  const majority = await new Promise<string | undefined>((resolve) => {
    const counts = new Map<string, number>();
    for (const pending of all)
      void pending.then((a) => {
        answers.push(a);
        if (a) counts.set(a.key, (counts.get(a.key) ?? 0) + 1);
        const held = [...counts].find(([, count]) => count >= nodes.quorum)?.[0];
        if (held !== undefined || answers.length === all.length) resolve(held);
      });
  });
  void Promise.all(all).then((every) => {
    if (majority !== undefined) for (const a of every) if (a && a.key !== majority) nodes.setAside(a.node, "disagreed");
  });
  if (majority === undefined) {
    const answered = answers.filter((a) => a !== null).length;
    if (answered >= nodes.quorum) throw new NoMajorityError(`${answered} of the chain's nodes answered, no ${nodes.quorum} of them alike`);
    throw new DomainError("RPC_BUSY", { detail: "no majority of the chain's nodes answered" });
  }
  return sealed(answers.find((a) => a?.key === majority)!.value);
}

function stableKey(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : typeof v === "string" ? v.toLowerCase() : v));
}

/** A node's view of the claim: not there yet, or the key of what it holds final at the claim's height (and its receipt, as it answered it). */
type View = { behind: true } | { behind: false; key: string; receipt: RawReceipt | null };

/** Every node asked the claim at once; what a quorum of them hold alike decides. */
class Tally {
  readonly #claimKey: string;
  readonly #views = new Map<ChainNode, View | "failed">();

  constructor(
    private readonly nodes: ChainNodes,
    private readonly claim: Claim,
  ) {
    this.#claimKey = keyOf(claim, {
      blockHash: claim.blockHash ?? null,
      receipt:
        claim.txHash === undefined
          ? null
          : {
              status: claim.status === "reverted" ? "0x0" : "0x1",
              blockHash: claim.blockHash ?? "0x",
              from: claim.whole?.from ?? "0x",
              to: claim.whole?.to ?? null,
              logs: (claim.logs ?? []).map((l) => ({ ...l, logIndex: numberToHex(l.logIndex ?? 0) })),
            },
      calls: (claim.calls ?? []).map((c) => c.result),
    });
  }

  /** What a majority holds, when it is the claim (its receipt as one of them answered it); null while short of a majority, or when the majority holds otherwise. */
  run(finality: Finality): Promise<{ receipt: RawReceipt | null } | null> {
    const { nodes } = this;
    const serving = nodes.serving;
    return new Promise((resolve, reject) => {
      let decided = false;
      const decide = (outcome: { receipt: RawReceipt | null } | null | DomainError) => {
        if (decided) return;
        decided = true;
        if (outcome instanceof DomainError) reject(outcome);
        else resolve(outcome);
      };
      const agreeing = () => [...this.#views.values()].filter((v): v is View & { behind: false } => v !== "failed" && !v.behind && v.key === this.#claimKey);
      for (const node of nodes.nodes)
        void this.#view(node, finality)
          .catch(() => "failed" as const)
          .then((view) => {
            this.#views.set(node, view);
            const views = [...this.#views.values()];
            const failed = views.filter((v) => v === "failed").length;
            const held = agreeing();
            if (held.length >= nodes.quorum) decide({ receipt: held[0]!.receipt });
            else if (nodes.size - failed < nodes.quorum) decide(new DomainError("RPC_BUSY", { detail: "no majority of the chain's nodes answered" }));
            if (views.length < nodes.size) return;
            // Every node answered or failed: the nodes against a majority are set aside, whatever was decided.
            const majority = this.#majority();
            for (const [n, v] of this.#views) if (majority !== null && v !== "failed" && !v.behind && v.key !== majority) nodes.setAside(n, "disagreed");
            // The claim itself against a majority: the node it was read from answered otherwise than it holds (a forged log read, say).
            if (majority !== null && majority !== this.#claimKey) nodes.setAside(serving, "disagreed");
            decide(majority === this.#claimKey ? { receipt: agreeing()[0]!.receipt } : null);
          });
    });
  }

  /** The key that a quorum of nodes hold final, if any. */
  #majority(): string | null {
    const counts = new Map<string, number>();
    for (const v of this.#views.values()) if (v !== "failed" && !v.behind) counts.set(v.key, (counts.get(v.key) ?? 0) + 1);
    for (const [key, count] of counts) if (count >= this.nodes.quorum) return key;
    return null;
  }

  async #view(node: ChainNode, finality: Finality): Promise<View> {
    const { claim } = this;
    const ask = (method: string, params: unknown[]) => node.client.request({ method, params } as never) as Promise<unknown>;
    const at = numberToHex(claim.blockNumber);
    const headRead =
      finality.kind === "safe"
        ? (ask("eth_getBlockByNumber", ["safe", false]) as Promise<{ number: Hex } | null>).then((b) => (b ? BigInt(b.number) : -1n))
        : (ask("eth_blockNumber", []) as Promise<Hex>).then((n) => BigInt(n) - BigInt(finality.confirmations));
    const [head, receipt, block, ...calls] = await Promise.all([
      headRead,
      claim.txHash === undefined ? null : (ask("eth_getTransactionReceipt", [claim.txHash]) as Promise<RawReceipt | null>),
      ask("eth_getBlockByNumber", [at, false]) as Promise<{ hash: Hex } | null>,
      ...(claim.calls ?? []).map((c) =>
        (ask("eth_call", [{ to: c.to, data: c.data }, at]) as Promise<Hex>).catch((error: unknown) => {
          if (isNodeFailure(error)) throw error;
          return "reverted";
        }),
      ),
    ]);
    if (head < claim.blockNumber || !block) return { behind: true };
    return { behind: false, key: keyOf(claim, { blockHash: block.hash, receipt, calls: calls as string[] }), receipt };
  }
}

interface RawReceipt {
  status: Hex;
  blockHash: Hex;
  from: Hex;
  to: Hex | null;
  logs: Array<{ address: Hex; topics: Hex[]; data: Hex; logIndex: Hex }>;
}

/**
 * What a node holds at the claim's height, reduced to what the claim stands on: its block's hash,
 * the receipt's status, block and the claim's logs (every log, its sender and target, for a whole
 * receipt), the reads.
 */
function keyOf(claim: Claim, held: { blockHash: Hex | null; receipt: RawReceipt | null; calls: string[] }): string {
  const wanted = new Set((claim.logs ?? []).map((l) => numberToHex(l.logIndex ?? 0)));
  const { receipt } = held;
  return JSON.stringify([
    claim.blockHash === undefined ? null : held.blockHash?.toLowerCase(),
    receipt === null
      ? null
      : [
          BigInt(receipt.status).toString(),
          receipt.blockHash.toLowerCase(),
          claim.whole ? [receipt.from.toLowerCase(), receipt.to?.toLowerCase() ?? null] : null,
          receipt.logs
            .filter((l) => claim.whole || wanted.has(numberToHex(BigInt(l.logIndex))))
            .map((l) => [numberToHex(BigInt(l.logIndex)), l.address.toLowerCase(), l.topics.map((t) => t.toLowerCase()), l.data.toLowerCase()]),
        ],
    held.calls.map((c) => c.toLowerCase()),
  ]);
}
