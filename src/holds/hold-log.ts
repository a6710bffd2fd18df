import { isAddressEqual, type Address, type Hex, type Log, type PublicClient } from "viem";
import { agreeOnLogs, type Agreed, type ClaimedLog } from "../chain/agreement.js";
import { finalityHead } from "../chain/finality.js";
import { nodesOf } from "../chain/nodes.js";
import { receiptCopies } from "../chain/receipt-copies.js";
import { rpc } from "../chain/rpc-errors.js";
import type { Finality } from "../config.js";
import { decodeEscrowEvent } from "./escrow-events.js";

/** One step of a hold, as the escrow's event reports it. */
export interface HoldEvent {
  step: "authorized" | "charged" | "captured" | "voided" | "reclaimed" | "refunded";
  /** Token units the step moved (a capture: fee included). */
  amount: bigint;
  /** A capture's or charge's fee, in token units (part of `amount`), as the escrow moved it. */
  feeAmount?: bigint;
  /** An authorization's or charge's payer (the buyer who signed). */
  payer?: Address;
  txHash: Hex;
  blockNumber: bigint;
  logIndex: number;
}

/**
 * A final step of a hold: decoded from a log a majority of the nodes hold, carrying the door's answer
 * it is one of (`proof`). A hold's figures and state are summed from these alone, so a step read from
 * one node's copy does not compile where they are.
 */
export type FinalHoldEvent = HoldEvent & { readonly proof: Agreed<ClaimedLog[]> };

/** A hold's steps up to the chain's head: the final ones (a majority of the nodes hold each), and those mined above the finality head or not yet agreed. */
export interface HoldLog {
  final: FinalHoldEvent[];
  confirming: HoldEvent[];
  /** The block the log was read up to. */
  asOfBlock: bigint;
}

export interface HoldLogDeps {
  client: PublicClient;
  finality: Finality;
  escrow: Address;
}

/**
 * A hold's history from the escrow's own events in the receipts of the service's own calls for it
 * (`calls`: the transactions it recorded, HoldTransactionStore.calls): every authorize, capture and
 * void of a hold is the operator's, so no log range is read, however old the hold is; `others` are
 * logs found otherwise (the buyer's reclaim: hold-reclaim.ts), judged alike. The logs asked about
 * come from every node's copy of each receipt (receipt-copies.ts), so no node hides a step by
 * forging or shifting its copy. A step is final only when a majority of the nodes hold its log
 * final, each kind of each transaction asked of the door for its verdict on its own (one short of a
 * majority leaves the others standing); one node's copy is only ever "confirming".
 */
export async function readHoldLog(deps: HoldLogDeps, paymentHash: Hex, calls: readonly Hex[], others: readonly ClaimedLog[] = []): Promise<HoldLog> {
  const { client, finality, escrow } = deps;
  const latest = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
  // Several nodes: each judges finality itself in the door, so no node's head decides it here.
  const several = (nodesOf(client)?.quorum ?? 1) > 1;
  const [copies, head] = await Promise.all([
    Promise.all(calls.map((hash) => receiptCopies(client, hash))),
    several ? null : finalityHead(client, finality, latest),
  ]);
  const logs = copies
    .flat()
    .flatMap((r) =>
      r.status === "success" ? r.logs.filter((l) => isAddressEqual(l.address, escrow) && l.topics[1]?.toLowerCase() === paymentHash.toLowerCase()) : [],
    );
  const read = unique([...logs, ...others].map((l) => parsed(l as unknown as RawLogLike)).filter((l): l is Parsed => l !== null));
  const below = read.filter((l) => head === null || l.log.blockNumber! <= head);
  const final: FinalHoldEvent[] = [];
  const confirming: HoldEvent[] = read.filter((l) => head !== null && l.log.blockNumber! > head).map((l) => l.event);
  const byStep = (steps: HoldEvent["step"][]) => {
    const groups = new Map<string, Parsed[]>();
    for (const l of below.filter((x) => steps.includes(x.event.step))) groups.set(l.log.transactionHash!, [...(groups.get(l.log.transactionHash!) ?? []), l]);
    return [...groups.values()];
  };
  // Each kind of each transaction through the door on its own: one refused group leaves the others standing.
  const groups: Array<[Parsed[], Promise<Agreed<ClaimedLog[]> | null>]> = [];
  const ask = (steps: HoldEvent["step"][], agreed: (logs: ClaimedLog[]) => Promise<Agreed<ClaimedLog[]> | null>) => {
    for (const group of byStep(steps)) groups.push([group, agreed(group.map((g) => g.log))]);
  };
  ask(["authorized"], (l) => agreeOnLogs("hold_authorized", client, finality, l));
  ask(["captured", "charged"], (l) => agreeOnLogs("hold_captured", client, finality, l));
  ask(["voided"], (l) => agreeOnLogs("hold_voided", client, finality, l));
  ask(["reclaimed"], (l) => agreeOnLogs("hold_reclaimed", client, finality, l));
  ask(["refunded"], (l) => agreeOnLogs("hold_refunded", client, finality, l));
  for (const [group, agreed] of groups) {
    const held = await agreed;
    // The verdict is the majority's logs, decoded again; a group short of a majority stays confirming.
    if (held) final.push(...held.map((log) => ({ ...parsed(log as RawLogLike)!.event, proof: held })));
    else confirming.push(...group.map((g) => g.event));
  }
  const order = (a: HoldEvent, b: HoldEvent) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1);
  // A step agreed is not also shown confirming (a node's forged copy of it, say), nor one step twice.
  const agreedAt = new Set(final.map(at));
  return { final: final.sort(order), confirming: onePerStep(confirming.filter((e) => !agreedAt.has(at(e)))).sort(order), asOfBlock: latest };
}

function at(e: Pick<HoldEvent, "txHash" | "logIndex">): string {
  return `${e.txHash.toLowerCase()}:${e.logIndex}`;
}

function onePerStep(events: HoldEvent[]): HoldEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => !seen.has(at(e)) && seen.add(at(e)) !== undefined);
}

/** Logs read alike from several nodes' copies, once each (copies that differ stay apart: the door tells which a majority holds). */
function unique(read: Parsed[]): Parsed[] {
  const seen = new Set<string>();
  return read.filter((l) => {
    const key = JSON.stringify(
      [l.log.transactionHash, l.log.blockHash, l.log.blockNumber?.toString(), l.log.logIndex, l.log.topics, l.log.data].map(String),
    ).toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

interface RawLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: Hex;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: Hex;
}
type RawLogLike = RawLog | ClaimedLog;
interface Parsed {
  log: ClaimedLog;
  event: HoldEvent;
}

function parsed(raw: RawLogLike): Parsed | null {
  const log: ClaimedLog = {
    address: raw.address,
    topics: raw.topics as Log["topics"],
    data: raw.data,
    blockNumber: BigInt(raw.blockNumber!),
    blockHash: raw.blockHash!,
    transactionHash: raw.transactionHash!,
    logIndex: Number(raw.logIndex),
  };
  const decoded = decodeEscrowEvent(log);
  if (!decoded) return null;
  const at = { txHash: log.transactionHash!, blockNumber: log.blockNumber!, logIndex: log.logIndex! };
  switch (decoded.eventName) {
    case "PaymentAuthorized":
      return { log, event: { step: "authorized", amount: decoded.args.amount, payer: decoded.args.paymentInfo.payer, ...at } };
    case "PaymentCharged":
      return { log, event: { step: "charged", amount: decoded.args.amount, feeAmount: decoded.args.feeAmount, payer: decoded.args.paymentInfo.payer, ...at } };
    case "PaymentCaptured":
      return { log, event: { step: "captured", amount: decoded.args.amount, feeAmount: decoded.args.feeAmount, ...at } };
    case "PaymentVoided":
      return { log, event: { step: "voided", amount: decoded.args.amount, ...at } };
    case "PaymentReclaimed":
      return { log, event: { step: "reclaimed", amount: decoded.args.amount, ...at } };
    case "PaymentRefunded":
      return { log, event: { step: "refunded", amount: decoded.args.amount, ...at } };
    default:
      return null;
  }
}
