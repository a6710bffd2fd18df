import { isAddressEqual, toFunctionSelector, type Address, type Hex, type PublicClient } from "viem";
import { splitterAbi, x402ReceiversAbi } from "../generated/contracts.js";
import { PAID_EVENT } from "../chain/contracts/splitter.js";
import { finalityHead, isSettled } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { formatAmount } from "../money.js";
import type { ListedPayment, ListPaymentsResponse } from "../wire/index.js";
import { DEFAULT_PAYMENTS_PER_PAGE } from "../wire/index.js";
import type { DepositAddresses } from "./deposit-address.js";
import { DomainError } from "../errors.js";
import type { ConcurrencyGate } from "../limits/rate-limiter.js";

/** Blocks the first log read of a page covers (what public providers accept with an address and topic filter). */
export const LIST_SPAN_BLOCKS = 10_000n;
/** Most blocks one page covers, whatever it finds: a stranger's address costs this much reading, no more. */
export const LIST_PAGE_BLOCKS = 50_000n;
/** Most log reads (each one batch of three `eth_getLogs`) one page makes, refused ones included. */
export const LIST_MAX_READS = 12;

const RECEIVER_PAID = x402ReceiversAbi.find((i) => i.type === "event" && i.name === "ReceiverPaid")!;
const RECEIVER_SPLIT = x402ReceiversAbi.find((i) => i.type === "event" && i.name === "ReceiverSplit")!;
const SETTLE_FROM_AUTHORIZATION = toFunctionSelector(splitterAbi.find((i) => i.type === "function" && i.name === "settleDepositFromAuthorization")!);

export interface PaymentsListDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  /** A `Paid` whose payer is its own payment address was a plain transfer there (settled_by deposit). */
  depositAddresses: Pick<DepositAddresses, "ofKey">;
  /** Pages read at once (each up to {@link LIST_MAX_READS} log reads); beyond its queue, RPC_BUSY. */
  gate: ConcurrencyGate;
}

/** One payment found in the logs, before its block's time is known. */
interface Found {
  reference: Hex | null;
  amountUnits: bigint;
  feeUnits: bigint;
  payer: Address;
  txHash: Hex;
  blockNumber: bigint;
  logIndex: number;
  settledBy: ListedPayment["settled_by"];
  /** Set when only the transaction's call can tell pay from x402 (a `Paid` not from its payment address). */
  askTransaction?: true;
  blockTimestamp?: bigint;
}

/**
 * The payments to one recipient, read from the chain alone (the service keeps no record of them):
 * the Splitter's `Paid` logs (recipient indexed) and X402Receivers' `ReceiverPaid` and
 * `ReceiverSplit` (recipient indexed), in the deployment's token only (anyone may emit a `Paid` in a
 * token of their own making). Newest first, by pages: a page reads block ranges backwards from
 * `before_block`, {@link LIST_SPAN_BLOCKS} at a time, until it holds `limit` payments, has covered
 * {@link LIST_PAGE_BLOCKS}, or has made {@link LIST_MAX_READS} reads, and says where the next page
 * starts. A range the node refuses (a provider's cap on the range or on the logs one call returns) is
 * read again in halves, as the deposit settler does, and the page goes on with the smaller span. Logs
 * come from the node's canonical chain, so a reorged payment is simply not there; `final` is the
 * finality rule at the time of the read.
 */
export class PaymentsList {
  constructor(private readonly deps: PaymentsListDeps) {}

  async list(request: { recipient: Address; beforeBlock?: bigint; limit?: number }): Promise<ListPaymentsResponse> {
    const result = await this.deps.gate.run(() => this.#page(request));
    if (!result) throw new DomainError("RPC_BUSY", { detail: "payments list queue full" });
    return result.value;
  }

  async #page(request: { recipient: Address; beforeBlock?: bigint; limit?: number }): Promise<ListPaymentsResponse> {
    const { client } = this.deps;
    const limit = request.limit ?? DEFAULT_PAYMENTS_PER_PAGE;
    const latest = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
    const top = request.beforeBlock !== undefined && request.beforeBlock - 1n < latest ? request.beforeBlock - 1n : latest;
    const floor = top + 1n > LIST_PAGE_BLOCKS ? top + 1n - LIST_PAGE_BLOCKS : 0n;
    const found: Found[] = [];
    let span = LIST_SPAN_BLOCKS;
    let next = top + 1n; // everything from `next` up to `top` has been read
    let refused: unknown = null;
    for (let reads = 0; reads < LIST_MAX_READS && next > floor && found.length < limit; reads++) {
      const to = next - 1n;
      const from = to + 1n > span ? (to + 1n - span > floor ? to + 1n - span : floor) : floor;
      try {
        found.push(...(await this.#read(request.recipient, from, to)));
        next = from;
      } catch (error) {
        if (to === from) throw error; // the node refuses even one block: an RPC fault, not a range cap
        refused = error;
        span = (to - from + 1n) / 2n;
      }
    }
    // Nothing read at all is a failing node, never an empty page.
    if (next === top + 1n && refused !== null) throw refused;
    const page = cut(found, limit, next);
    const [head, details] = await Promise.all([finalityHead(client, this.deps.finality, latest), this.#details(page.payments)]);
    return {
      payments: page.payments.map((p) => ({
        reference: p.reference,
        amount: formatAmount(p.amountUnits),
        amount_units: p.amountUnits.toString(),
        fee_units: p.feeUnits.toString(),
        payer: p.payer,
        tx_hash: p.txHash,
        block_number: p.blockNumber.toString(),
        timestamp: Number(details.timestamps.get(p.blockNumber)!),
        settled_by: details.x402.has(p.txHash) ? "x402" : p.settledBy,
        final: isSettled(p.blockNumber, head),
      })),
      next_before_block: page.next > 0n ? page.next.toString() : null,
      as_of_block: latest.toString(),
    };
  }

  /** The recipient's payments in `[from, to]`: three `eth_getLogs` in one batch. */
  async #read(recipient: Address, from: bigint, to: bigint): Promise<Found[]> {
    const { client, deployment } = this.deps;
    const token = deployment.token.address;
    const range = { fromBlock: from, toBlock: to, strict: true } as const;
    const [paid, receiverPaid, receiverSplit] = await Promise.all([
      rpc(() => client.getLogs({ address: deployment.contracts.Splitter.address, event: PAID_EVENT, args: { recipient }, ...range })),
      rpc(() => client.getLogs({ address: deployment.contracts.X402Receivers.address, event: RECEIVER_PAID, args: { recipient }, ...range })),
      rpc(() => client.getLogs({ address: deployment.contracts.X402Receivers.address, event: RECEIVER_SPLIT, args: { recipient, token }, ...range })),
    ]);
    const found: Found[] = [];
    for (const log of paid) {
      if (!isAddressEqual(log.args.token, token)) continue;
      const fromDeposit = isAddressEqual(log.args.payer, await this.deps.depositAddresses.ofKey(log.args.paymentKey));
      found.push({
        ...where(log),
        reference: log.args.paymentReference,
        amountUnits: log.args.amount,
        feeUnits: log.args.fee,
        payer: log.args.payer,
        settledBy: fromDeposit ? "deposit" : "pay",
        ...(fromDeposit ? {} : { askTransaction: true as const }),
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
   * The blocks' times (from the logs when the node gives them, else one `eth_getBlockByNumber` per
   * block) and which `Paid` transactions were x402 settlements to a payment address (the one call
   * that tells them from a buyer's own `pay`): all in one batch, at most two reads per payment.
   */
  async #details(payments: Found[]): Promise<{ timestamps: Map<bigint, bigint>; x402: Set<Hex> }> {
    const { client } = this.deps;
    const timestamps = new Map<bigint, bigint>();
    for (const p of payments) if (p.blockTimestamp !== undefined) timestamps.set(p.blockNumber, p.blockTimestamp);
    const blocks = [...new Set(payments.map((p) => p.blockNumber))].filter((b) => !timestamps.has(b));
    const asked = [...new Set(payments.filter((p) => p.askTransaction).map((p) => p.txHash))];
    const [read, transactions] = await Promise.all([
      Promise.all(blocks.map((blockNumber) => rpc(() => client.getBlock({ blockNumber })))),
      Promise.all(asked.map((hash) => rpc(() => client.getTransaction({ hash })))),
    ]);
    for (const block of read) timestamps.set(block.number, block.timestamp);
    const x402 = new Set(transactions.filter((t) => t.input.slice(0, 10).toLowerCase() === SETTLE_FROM_AUTHORIZATION).map((t) => t.hash));
    return { timestamps, x402 };
  }
}

/** A log's place: transaction, block, index, and the block's time when the node sends it with the log. */
function where(log: { transactionHash: Hex; blockNumber: bigint; logIndex: number; blockTimestamp?: bigint | null | undefined }) {
  return {
    txHash: log.transactionHash,
    blockNumber: log.blockNumber,
    logIndex: log.logIndex,
    ...(typeof log.blockTimestamp === "bigint" ? { blockTimestamp: log.blockTimestamp } : {}),
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
