import { formatTransactionReceipt, numberToHex, type Address, type Hex, type Log, type PublicClient, type TransactionReceipt } from "viem";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { ask, callsAt, canonicalLog, finalHead, receiptVote, stableKey, tally, type RawLog, type RawReceipt, type Vote } from "./agreement-tally.js";
import type { ChainNode } from "./node.js";
import { nodesOf } from "./nodes.js";

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
 * What a majority of the chain's nodes (RPC_QUORUM) hold, built by this module alone (no other
 * `as Agreed` anywhere, test/unit/verdict-door.test.ts) from the fields they gave alike: every field
 * of `T` is one the door compared across the agreeing nodes, and no node's own object passes through.
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

/** The fields of a log a claim compares (each log in its transaction and block, at its position). */
type LogCore = Pick<Log, "address" | "topics" | "data" | "logIndex">;

/**
 * What a verdict that releases goods or money was computed on: a mined transaction (its status, the
 * logs the verdict read, its block) and the contract reads (`eth_call`) that gated it.
 */
interface Claim<L extends LogCore = LogCore> {
  /** The transaction, when the verdict stands on one (a contract read alone names none). */
  txHash?: Hex;
  blockNumber: bigint;
  /** The block's hash as the verdict read it; absent: whichever hash a majority holds final there. */
  blockHash?: Hex;
  status?: "success" | "reverted";
  /** The whole receipt stands: its sender, its target and every log, none left out (a node may hide a log as well as forge one). */
  whole?: { from: Address; to: Address | null };
  /** The receipt's logs the verdict stands on, each at its position in the block, in the claim's transaction and block. */
  logs?: readonly L[];
  /** Contract reads the verdict stands on, each read at the claim's block, with the answer it had. */
  calls?: ReadonlyArray<{ to: Address; data: Hex; result: Hex }>;
}
export type { Claim };

/** A log a verdict stands on, with the transaction and block it was read in. */
export type ClaimedLog = Pick<Log, "address" | "topics" | "data" | "logIndex" | "transactionHash" | "blockNumber" | "blockHash">;

/**
 * The door for a receipt: the receipt of `receipt`'s transaction as a majority of the nodes hold it
 * final (in a block each holds under that hash, every field alike), built from what they said; null
 * while short of a majority, or when a majority holds no such transaction. The receipt handed in
 * names the transaction and where to look; its other fields are not used: a verdict is formed again
 * on the answer. Throws RPC_BUSY when too few nodes answer for a majority to be possible.
 */
export async function agreeOnReceipt(
  kind: VerdictKind,
  client: PublicClient,
  finality: Finality,
  receipt: TransactionReceipt,
): Promise<Agreed<TransactionReceipt> | null> {
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return seal({ ...receipt }, kind);
  const held = await tally(nodes, (node) => receiptVote(node, finality, receipt.transactionHash, receipt.blockNumber));
  return held?.value ? seal(formatTransactionReceipt(held.value as never) as TransactionReceipt, kind) : null;
}

/**
 * The door for logs and contract reads: the claim, when a majority of the nodes hold each of its logs
 * (address, topics, data, position, transaction, block) and answer each read the same at its block;
 * null while short of a majority. What is returned is made of the claim's compared fields only
 * (a log's decoded `eventName` and `args` stay: they are its topics and data, read by our own ABI).
 * A claim that names logs must name at least one.
 */
export async function agreeOnClaim<L extends LogCore>(
  kind: VerdictKind,
  client: PublicClient,
  finality: Finality,
  claim: Claim<L>,
): Promise<Agreed<Claim<L>> | null> {
  if (claim.logs !== undefined && claim.logs.length === 0) return null;
  const agreed = agreedClaim(claim);
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return seal(agreed, kind);
  const own = claimKey(claim, {
    blockHash: claim.blockHash ?? null,
    receipt: claim.txHash === undefined ? null : claimAsReceipt(claim),
    calls: (claim.calls ?? []).map((c) => c.result.toLowerCase()),
  });
  const held = await tally(nodes, (node) => claimVote(node, finality, claim));
  // A majority holds otherwise: a node that alone answered one of the claim's logs in a log read told it.
  if (held && held.key !== own) for (const log of claim.logs ?? []) if ("blockHash" in log) nodes.blameLog(log as unknown as ClaimedLog);
  return held?.key === own ? seal(agreed, kind) : null;
}

/**
 * The door for logs alone, each on its own: the logs a majority of the nodes hold, each in its
 * transaction and block final there. A log a majority holds otherwise (none there, or another) is
 * left out, and the agreed logs around it stand; null while any log is short of a majority either
 * way (read again later), and null for no log at all (where a log is the proof, no log is no claim).
 */
export async function agreeOnLogs<L extends ClaimedLog>(
  kind: VerdictKind,
  client: PublicClient,
  finality: Finality,
  logs: readonly L[],
): Promise<Agreed<L[]> | null> {
  if (logs.length === 0) return null;
  const nodes = nodesOf(client);
  if (!nodes || nodes.quorum <= 1) return seal([...logs], kind);
  const byTransaction = new Map<Hex, L[]>();
  for (const log of logs) byTransaction.set(log.transactionHash!, [...(byTransaction.get(log.transactionHash!) ?? []), log]);
  const held = await Promise.all(
    [...byTransaction].map(async ([txHash, own]) => {
      const majority = await tally(nodes, (node) => receiptVote(node, finality, txHash, own[0]!.blockNumber!));
      if (!majority) return null;
      // What a majority holds for the transaction decides each log: held alike, or left out.
      const receipt = majority.value;
      return own.flatMap((log) => {
        const same = receipt?.status === "0x1" ? receipt.logs.find((l) => sameLog(l, log)) : undefined;
        if (!same) nodes.blameLog(log);
        return same ? [agreedLog(log, same)] : [];
      });
    }),
  );
  if (held.some((h) => h === null)) return null;
  return seal(held.flat() as L[], kind);
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
 * node on its own, and the answer a majority of them give alike (every field of it, as JSON).
 * Throws RPC_BUSY when too few answered, {@link NoMajorityError} (RPC_BUSY too) when they answered
 * and no majority alike; a node answering otherwise than the majority is set aside. The read's
 * blocks should be final (a node behind them answers otherwise).
 */
export async function agreeOnRead<T>(kind: VerdictKind, client: PublicClient, read: (client: PublicClient) => Promise<T>): Promise<Agreed<T>> {
  const nodes = nodesOf(client);
  // A plain value (a hash) cannot carry the mark: it is typed as agreed, formed here all the same.
  const sealed = (value: T) => (value !== null && typeof value === "object" ? seal(value, kind) : value) as Agreed<T>;
  if (!nodes || nodes.quorum <= 1) return sealed(await read(client));
  const held = await tally(nodes, (node) => read(node.client).then((value): Vote<T> => ({ behind: false, key: stableKey(value), value })));
  if (!held) throw new NoMajorityError(`the chain's nodes answered, no ${nodes.quorum} of them alike`);
  // A copy of the answer, so no node's object passes on: every field of it was compared.
  return sealed(structuredClone(held.value));
}

/** A claimed log and a node's, alike in every field the claim names. */
function sameLog(held: RawLog, log: ClaimedLog): boolean {
  return (
    JSON.stringify(logCore(held)) ===
    JSON.stringify(logCore(canonicalLog({ ...log, logIndex: numberToHex(log.logIndex ?? 0), blockNumber: numberToHex(log.blockNumber ?? 0n) })))
  );
}

function logCore(l: RawLog): unknown[] {
  return [numberToHex(BigInt(l.logIndex ?? 0)), l.address, l.topics, l.data, l.transactionHash, numberToHex(BigInt(l.blockNumber ?? 0)), l.blockHash];
}

/** A log made of what a majority said, keeping the claim's decoding of its topics and data (alike, so decoded alike). */
function agreedLog<L extends ClaimedLog>(log: L, held: RawLog): L {
  const { eventName, args } = log as { eventName?: unknown; args?: unknown };
  return {
    address: held.address as Address,
    topics: held.topics as Log["topics"],
    data: held.data as Hex,
    logIndex: Number(BigInt(held.logIndex)),
    transactionHash: held.transactionHash as Hex,
    transactionIndex: Number(BigInt(held.transactionIndex)),
    blockNumber: BigInt(held.blockNumber),
    blockHash: held.blockHash as Hex,
    removed: held.removed,
    ...(eventName === undefined ? {} : { eventName, args }),
  } as unknown as L;
}

/** The claim, of its compared fields only. */
function agreedClaim<L extends LogCore>(claim: Claim<L>): Claim<L> {
  const { txHash, blockNumber, blockHash, status, whole, logs, calls } = claim;
  return {
    blockNumber,
    ...(txHash === undefined ? {} : { txHash }),
    ...(blockHash === undefined ? {} : { blockHash }),
    ...(status === undefined ? {} : { status }),
    ...(whole === undefined ? {} : { whole: { from: whole.from, to: whole.to } }),
    ...(logs === undefined ? {} : { logs: logs.map((l) => pickLog(l, claim)) }),
    ...(calls === undefined ? {} : { calls: calls.map((c) => ({ to: c.to, data: c.data, result: c.result })) }),
  };
}

function pickLog<L extends LogCore>(log: L, claim: Claim<L>): L {
  const { eventName, args } = log as { eventName?: unknown; args?: unknown };
  const { address, topics, data, logIndex } = log;
  return {
    address,
    topics,
    data,
    logIndex,
    transactionHash: claim.txHash,
    blockNumber: claim.blockNumber,
    ...(claim.blockHash === undefined ? {} : { blockHash: claim.blockHash }),
    ...(eventName === undefined ? {} : { eventName, args }),
  } as unknown as L;
}

/** The claim, written as the receipt it says its transaction has (the fields it names; the rest is null). */
function claimAsReceipt(claim: Claim): RawReceipt {
  return {
    transactionHash: claim.txHash!.toLowerCase(),
    blockNumber: numberToHex(claim.blockNumber),
    blockHash: claim.blockHash?.toLowerCase() ?? null,
    status: claim.status === "reverted" ? "0x0" : "0x1",
    from: claim.whole?.from.toLowerCase() ?? null,
    to: claim.whole?.to?.toLowerCase() ?? null,
    logs: (claim.logs ?? []).map((l) =>
      canonicalLog({
        ...l,
        transactionHash: claim.txHash,
        blockNumber: numberToHex(claim.blockNumber),
        blockHash: claim.blockHash,
        logIndex: numberToHex(l.logIndex ?? 0),
      }),
    ),
  } as RawReceipt;
}

// Stryker disable next-line StringLiteral: any one stand-in for a hash the claim does not name compares alike
const NO_HASH = "";

/** A node's view of a claim: its final head, its receipt of the claim's transaction, the block hash at the claim's height, the reads there. */
async function claimVote(node: ChainNode, finality: Finality, claim: Claim): Promise<Vote<null>> {
  const [receipt, head, block, calls] = await Promise.all([
    claim.txHash === undefined ? null : receiptVote(node, finality, claim.txHash, claim.blockNumber),
    finalHead(node, finality),
    // Stryker disable next-line BooleanLiteral: whole transactions or their hashes, the block's hash read is the same
    ask<{ hash: Hex } | null>(node, "eth_getBlockByNumber", [numberToHex(claim.blockNumber), false]),
    callsAt(node, claim.calls ?? [], claim.blockNumber),
  ]);
  if (head < claim.blockNumber || !block || receipt?.behind) return { behind: true };
  const key = claimKey(claim, { blockHash: block.hash, receipt: receipt?.value ?? null, calls });
  return { behind: false, key: receipt?.key.startsWith("off") ? `off ${key}` : key, value: null };
}

/**
 * What a node holds, reduced to what the claim stands on: the block's hash (when the claim names
 * one), the receipt's transaction, block, status, sender and target (for a whole receipt), the logs
 * the claim names (every log, for a whole receipt), each in every field; the reads.
 */
function claimKey(claim: Claim, held: { blockHash: string | null; receipt: RawReceipt | null; calls: string[] }): string {
  // Stryker disable next-line ArrayDeclaration: a claim without logs wants none, whatever the set holds (log indexes are numbers)
  const wanted = new Set((claim.logs ?? []).map((l) => l.logIndex ?? 0));
  const { receipt } = held;
  return JSON.stringify([
    // Stryker disable next-line MethodExpression,OptionalChaining: the claim's key and each node's pass through here alike (any one case compares alike), and a claim naming a hash is compared with a node's block, never absent
    claim.blockHash === undefined ? null : held.blockHash?.toLowerCase(),
    receipt === null
      ? null
      : [
          receipt.transactionHash,
          numberToHex(BigInt(receipt.blockNumber ?? 0)),
          BigInt(receipt.status ?? 0).toString(),
          // Stryker disable next-line ConditionalExpression: a receipt counts only in a block its node holds under that hash (receiptVote), which the first element compares
          claim.blockHash === undefined ? null : receipt.blockHash,
          claim.whole ? [receipt.from, receipt.to] : null,
          receipt.logs
            .filter((l) => claim.whole || wanted.has(Number(BigInt(l.logIndex))))
            .map((l) => logCore({ ...l, blockHash: claim.blockHash === undefined ? NO_HASH : l.blockHash })),
        ],
    held.calls,
  ]);
}
