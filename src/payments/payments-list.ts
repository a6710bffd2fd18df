import { isAddressEqual, toFunctionSelector, type Address, type Block, type Hex, type PublicClient } from "viem";
import { splitterAbi, x402ReceiversAbi } from "../generated/contracts.js";
import { PAID_EVENT } from "../chain/contracts/splitter.js";
import { finalityHead, isSettled } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import { blockTimestampMs, logTimestampMs } from "../chain/timestamp-ms.js";
import type { Finality } from "../config.js";
import { deployBlockOf, type LiveDeployment } from "../deployments.js";
import { formatAmount } from "../money.js";
import type { ListedPayment, ListPaymentsResponse } from "../wire/index.js";
import { DEFAULT_PAYMENTS_PER_PAGE } from "../wire/index.js";
import type { DepositAddresses } from "./deposit-address.js";
import { DomainError } from "../errors.js";
import type { FairGate } from "../limits/fair-gate.js";
import { depositorOf, PAID_IN_EXCESS } from "./depositor.js";
import { RangeCap, readBackwards } from "./log-ranges.js";

/** Most log reads (each one batch of four `eth_getLogs`) one page makes, refused ones included. */
export const LIST_MAX_READS = 12;
/** Ranges the depositor search of one payment-address row asks at most; beyond, its payer is null. */
export const LIST_DEPOSITOR_MAX_READS = 4;

const RECEIVER_PAID = x402ReceiversAbi.find((i) => i.type === "event" && i.name === "ReceiverPaid")!;
const RECEIVER_SPLIT = x402ReceiversAbi.find((i) => i.type === "event" && i.name === "ReceiverSplit")!;
const DEPOSIT_FORWARDED = splitterAbi.find((i) => i.type === "event" && i.name === "DepositForwarded")!;
const SETTLE_FROM_AUTHORIZATION = toFunctionSelector(splitterAbi.find((i) => i.type === "function" && i.name === "settleDepositFromAuthorization")!);

export interface PaymentsListDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  /** The payment address of a `Paid` or `DepositForwarded` key: its excess, and whether the payer is the address itself. */
  depositAddresses: Pick<DepositAddresses, "ofKey">;
  /** Pages read at once (each up to {@link LIST_MAX_READS} log reads), each caller's in its own queue; beyond it, RPC_BUSY. */
  gate: FairGate;
}

/** One payment found in the logs, before its block's time, excess and depositor are known. */
interface Found {
  reference: Hex | null;
  amountUnits: bigint;
  feeUnits: bigint;
  payer: Address | null;
  txHash: Hex;
  blockNumber: bigint;
  logIndex: number;
  settledBy: ListedPayment["settled_by"];
  /** A payment address's `Paid` or `DepositForwarded`: where an excess is logged and whose depositor paid. */
  depositAddress?: Address;
  /** The payer is the payment address itself: the depositor is the payer. */
  fromDeposit?: true;
  /** Set when only the transaction's call can tell pay from x402 (a `Paid` not from its payment address). */
  askTransaction?: true;
  blockTimestamp?: bigint;
  blockTimestampMs?: bigint;
}

/**
 * The payments to one recipient, read from the chain alone (the service keeps no record of them):
 * the Splitter's `Paid` and `DepositForwarded` logs (recipient indexed) and X402Receivers'
 * `ReceiverPaid` and `ReceiverSplit` (recipient indexed), in the deployment's token only (anyone may
 * emit a `Paid` in a token of their own making). Newest first, by pages: a page reads block ranges
 * backwards from `before_block` down to the deployment's first block, as wide as the node accepts
 * (log-ranges.ts: a node without a range cap answers a month in one read; a refused range is read
 * again in halves, and the widest accepted is kept for the next pages), until it holds `limit`
 * payments or has made {@link LIST_MAX_READS} reads, and says where the next page starts. The books
 * balance with the chain: `amount` is what the payer moved (a payment address's `PaidInExcess`
 * included), `fee` what was taken, and a payment address's payer is its depositor (depositor.ts).
 * Logs come from the node's canonical chain, so a reorged payment is simply not there; `final` is the
 * finality rule at the time of the read.
 */
export class PaymentsList {
  /** What this node accepts for one log range, learned once for every page and caller. */
  readonly #cap = new RangeCap();

  constructor(private readonly deps: PaymentsListDeps) {}

  /** One page, in `caller`'s own turn (callers told apart as the rate limiter tells them). */
  async list(request: { recipient: Address; beforeBlock?: bigint; limit?: number }, caller = "anyone"): Promise<ListPaymentsResponse> {
    const result = await this.deps.gate.run(caller, () => this.#page(request));
    if (!result) throw new DomainError("RPC_BUSY", { detail: "this caller's payments list queue is full" });
    return result.value;
  }

  async #page(request: { recipient: Address; beforeBlock?: bigint; limit?: number }): Promise<ListPaymentsResponse> {
    const { client } = this.deps;
    const limit = request.limit ?? DEFAULT_PAYMENTS_PER_PAGE;
    const latestBlock = await rpc(() => client.getBlock({ blockTag: "latest" }));
    const latest = latestBlock.number!;
    const top = request.beforeBlock !== undefined && request.beforeBlock - 1n < latest ? request.beforeBlock - 1n : latest;
    const deployBlock = deployBlockOf(this.deps.deployment);
    const floor = deployBlock <= top ? deployBlock : top;
    const { found, next } = await readBackwards({
      cap: this.#cap,
      top,
      floor,
      maxReads: LIST_MAX_READS,
      read: (from, to) => this.#read(request.recipient, from, to),
      enough: (f) => f.length >= limit,
    });
    const page = cut(found, limit, next);
    const ends = { from: page.next < top ? page.next : top, to: top };
    const [head, details] = await Promise.all([finalityHead(client, this.deps.finality, latest), this.#details(page.payments, ends, latestBlock)]);
    const payers = await this.#depositors(page.payments, details.excess);
    return {
      payments: page.payments.map((p) => {
        const excess = p.settledBy !== "forward" ? details.excess.get(placeOf(p)) : undefined;
        const amountUnits = excess?.moved ?? p.amountUnits;
        const ms = p.blockTimestampMs ?? details.timestampsMs.get(p.blockNumber);
        return {
          reference: p.reference,
          amount: formatAmount(amountUnits),
          amount_units: amountUnits.toString(),
          fee_units: (excess?.fee ?? p.feeUnits).toString(),
          payer: payers.has(p) ? (payers.get(p) ?? null) : p.payer,
          tx_hash: p.txHash,
          block_number: p.blockNumber.toString(),
          timestamp: Number(details.timestamps.get(p.blockNumber)!),
          ...(ms !== undefined ? { timestamp_ms: Number(ms) } : {}),
          settled_by: details.x402.has(p.txHash) ? "x402" : p.settledBy,
          final: isSettled(p.blockNumber, head),
        };
      }),
      next_before_block: page.next > deployBlock ? page.next.toString() : null,
      from_timestamp: Number(details.timestamps.get(ends.from)!),
      to_timestamp: Number(details.timestamps.get(ends.to)!),
      as_of_block: latest.toString(),
    };
  }

  /** The recipient's payments in `[from, to]`: four `eth_getLogs` in one batch. */
  async #read(recipient: Address, from: bigint, to: bigint): Promise<Found[]> {
    const { client, deployment } = this.deps;
    const token = deployment.token.address;
    const splitter = deployment.contracts.Splitter.address;
    const range = { fromBlock: from, toBlock: to, strict: true } as const;
    const [paid, forwarded, receiverPaid, receiverSplit] = await Promise.all([
      rpc(() => client.getLogs({ address: splitter, event: PAID_EVENT, args: { recipient }, ...range })),
      rpc(() => client.getLogs({ address: splitter, event: DEPOSIT_FORWARDED, args: { recipient }, ...range })),
      rpc(() => client.getLogs({ address: deployment.contracts.X402Receivers.address, event: RECEIVER_PAID, args: { recipient }, ...range })),
      rpc(() => client.getLogs({ address: deployment.contracts.X402Receivers.address, event: RECEIVER_SPLIT, args: { recipient, token }, ...range })),
    ]);
    const found: Found[] = [];
    for (const log of paid) {
      if (!isAddressEqual(log.args.token, token)) continue;
      const depositAddress = await this.deps.depositAddresses.ofKey(log.args.paymentKey);
      const fromDeposit = isAddressEqual(log.args.payer, depositAddress);
      found.push({
        ...where(log),
        reference: log.args.paymentReference,
        amountUnits: log.args.amount,
        feeUnits: log.args.fee,
        payer: log.args.payer,
        settledBy: fromDeposit ? "deposit" : "pay",
        depositAddress,
        ...(fromDeposit ? { fromDeposit: true as const } : { askTransaction: true as const }),
      });
    }
    for (const log of forwarded) {
      if (!isAddressEqual(log.args.token, token)) continue;
      const depositAddress = await this.deps.depositAddresses.ofKey(log.args.paymentKey);
      found.push({
        ...where(log),
        reference: null,
        amountUnits: log.args.amount,
        feeUnits: log.args.fee,
        payer: depositAddress,
        settledBy: "forward",
        depositAddress,
        fromDeposit: true,
      });
    }
    for (const log of receiverPaid) {
      if (!isAddressEqual(log.args.token, token)) continue;
      found.push({ ...where(log), reference: log.args.nonce, amountUnits: log.args.amount, feeUnits: log.args.fee, payer: log.args.payer, settledBy: "x402" });
    }
    for (const log of receiverSplit) {
      found.push({ ...where(log), reference: null, amountUnits: log.args.amount, feeUnits: log.args.fee, payer: log.args.receiver, settledBy: "x402" });
    }
    return found;
  }

  /**
   * In one batch: the blocks' times (from the logs when the node gives them, else one
   * `eth_getBlockByNumber` per block, the page's two ends included), which `Paid` transactions were
   * x402 settlements to a payment address (the one call that tells them from a buyer's own `pay`),
   * and the `PaidInExcess` of the page's payment addresses (one `eth_getLogs` over the range of their
   * blocks, at those addresses only: nobody else can log there).
   */
  async #details(
    payments: Found[],
    ends: { from: bigint; to: bigint },
    latest: Block,
  ): Promise<{ timestamps: Map<bigint, bigint>; timestampsMs: Map<bigint, bigint>; x402: Set<Hex>; excess: Map<string, { moved: bigint; fee: bigint }> }> {
    const { client } = this.deps;
    const timestamps = new Map<bigint, bigint>([[latest.number!, latest.timestamp]]);
    const timestampsMs = new Map<bigint, bigint>();
    const latestMs = blockTimestampMs(latest);
    if (latestMs !== undefined) timestampsMs.set(latest.number!, latestMs);
    for (const p of payments) if (p.blockTimestamp !== undefined) timestamps.set(p.blockNumber, p.blockTimestamp);
    const blocks = [...new Set([...payments.map((p) => p.blockNumber), ends.from, ends.to])].filter((b) => !timestamps.has(b));
    const asked = [...new Set(payments.filter((p) => p.askTransaction).map((p) => p.txHash))];
    const [read, transactions, excess] = await Promise.all([
      Promise.all(blocks.map((blockNumber) => rpc(() => client.getBlock({ blockNumber })))),
      Promise.all(asked.map((hash) => rpc(() => client.getTransaction({ hash })))),
      this.#excess(payments.filter((p) => p.fromDeposit && p.settledBy !== "forward")),
    ]);
    for (const block of read) {
      timestamps.set(block.number, block.timestamp);
      const ms = blockTimestampMs(block);
      if (ms !== undefined) timestampsMs.set(block.number, ms);
    }
    const x402 = new Set(transactions.filter((t) => t.input.slice(0, 10).toLowerCase() === SETTLE_FROM_AUTHORIZATION).map((t) => t.hash));
    // An x402 settlement to a payment address that already held something moved that too: one more read, only then.
    for (const [hash, moved] of await this.#excess(payments.filter((p) => x402.has(p.txHash)))) excess.set(hash, moved);
    return { timestamps, timestampsMs, x402, excess };
  }

  /** Each settlement's `PaidInExcess` (the log just before its `Paid`, at its payment address), by its `Paid`'s place. */
  async #excess(settled: Found[]): Promise<Map<string, { moved: bigint; fee: bigint }>> {
    const excess = new Map<string, { moved: bigint; fee: bigint }>();
    if (settled.length === 0) return excess;
    const addresses = [...new Set(settled.map((p) => p.depositAddress!))];
    const low = settled.reduce((m, p) => (p.blockNumber < m ? p.blockNumber : m), settled[0]!.blockNumber);
    const high = settled.reduce((m, p) => (p.blockNumber > m ? p.blockNumber : m), settled[0]!.blockNumber);
    const { found } = await readBackwards({
      cap: this.#cap,
      top: high,
      floor: low,
      maxReads: Number.MAX_SAFE_INTEGER,
      read: (from, to) => rpc(() => this.deps.client.getLogs({ address: addresses, event: PAID_IN_EXCESS, fromBlock: from, toBlock: to, strict: true })),
      enough: () => false,
    });
    for (const p of settled) {
      const log = found.find((l) => l.transactionHash === p.txHash && l.logIndex === p.logIndex - 1 && isAddressEqual(l.address, p.depositAddress!));
      if (log) excess.set(placeOf(p), { moved: log.args.moved, fee: log.args.fee });
    }
    return excess;
  }

  /** The payer of each payment-address row: its depositor (null where the chain cannot say within the page's reads). */
  async #depositors(payments: Found[], excess: Map<string, { moved: bigint; fee: bigint }>): Promise<Map<Found, Address | null>> {
    const rows = payments.filter((p) => p.fromDeposit);
    const payers = await Promise.all(
      rows.map(async (p) => {
        const moved = p.settledBy === "forward" ? p.amountUnits : (excess.get(placeOf(p))?.moved ?? p.amountUnits);
        const depositor = await depositorOf(this.deps, p.depositAddress!, p, p.amountUnits, { moved, cap: this.#cap, maxReads: LIST_DEPOSITOR_MAX_READS });
        return depositor.payer;
      }),
    );
    return new Map(rows.map((p, i) => [p, payers[i]!]));
  }
}

/** A payment's log, named: one transaction can settle several payment addresses. */
function placeOf(p: Pick<Found, "txHash" | "logIndex">): string {
  return `${p.txHash}:${p.logIndex}`;
}

/** A log's place: transaction, block, index, and the block's time when the node sends it with the log. */
function where(log: { transactionHash: Hex; blockNumber: bigint; logIndex: number; blockTimestamp?: bigint | null | undefined }) {
  const ms = logTimestampMs(log);
  return {
    txHash: log.transactionHash,
    blockNumber: log.blockNumber,
    logIndex: log.logIndex,
    ...(typeof log.blockTimestamp === "bigint" ? { blockTimestamp: log.blockTimestamp } : {}),
    ...(ms !== undefined ? { blockTimestampMs: ms } : {}),
  };
}

/**
 * Newest first, at most `limit`, never splitting a block between pages: when the limit falls inside a
 * block, that block goes to the next page (unless it is the page's only block, which then comes
 * whole). `next` is the lowest block read; the answer's next page starts at the first block not shown.
 */
function cut(found: Found[], limit: number, next: bigint): { payments: Found[]; next: bigint } {
  const sorted = [...found].sort((a, b) => (a.blockNumber !== b.blockNumber ? (a.blockNumber > b.blockNumber ? -1 : 1) : b.logIndex - a.logIndex));
  if (sorted.length <= limit) return { payments: sorted, next };
  const boundary = sorted[limit]!.blockNumber;
  if (sorted[limit - 1]!.blockNumber !== boundary) return { payments: sorted.slice(0, limit), next: boundary + 1n };
  const shown = sorted.filter((p) => p.blockNumber > boundary);
  if (shown.length > 0) return { payments: shown, next: boundary + 1n };
  return { payments: sorted.filter((p) => p.blockNumber >= boundary), next: boundary };
}
