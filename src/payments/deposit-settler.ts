import { encodeFunctionData, erc20Abi, numberToHex, parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import { splitterAbi } from "../generated/contracts.js";
import { PAID_EVENT, SplitterReader } from "../chain/contracts/splitter.js";
import { finalityHead } from "../chain/finality.js";
import { agreeOnClaim, agreeOnLogs } from "../chain/agreement.js";
import { DomainError } from "../errors.js";
import { logsIn, type ChainView, type FollowerConsumer } from "../chain/follower.js";
import { readReceipt } from "../chain/transactions.js";
import { rpc } from "../chain/rpc-errors.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import type { DepositWatch, DepositWatches } from "../store/deposit-watches.js";
import { paymentKeyOf } from "./verify.js";
import type { DepositAddresses } from "./deposit-address.js";
import { blocksIn } from "../block-time.js";
import {
  costOf,
  priceRelayerCall,
  readyRelayerCall,
  RELAYER_RESEND_AFTER_MS,
  type RelayerLedger,
  type SettlementPrice,
  type SettlementSender,
} from "./relayer-call.js";
import { resendOrReplace } from "./relayer-follow.js";

export type { SettlementPrice, SettlementSender } from "./relayer-call.js";

export interface DepositSettlerDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  watches: DepositWatches;
  /** A `Paid` names its payment by key; the watch is found by the payment address the key derives. */
  depositAddresses: Pick<DepositAddresses, "ofKey">;
  sender: SettlementSender;
  /** The next block's fee cap and tip (recurring/gas-quote.ts). */
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** A settlement still unmined this long after it was sent is replaced with a higher fee (the relayer's rule for charges). */
  replaceAfterMs: number;
  /** One watch's follow failed (an RPC fault, a record it cannot read): told here, and the round goes on with the others. */
  onWatchError?: (depositAddress: Address, error: unknown) => void;
  /** Where the gas and fee of the relayer's own settlements are counted once their watch ends (/metrics). */
  ledger?: RelayerLedger;
  /**
   * Another reader of the token's transfers (the x402 receivers): told the recipient and value of each
   * of a round's `Transfer` logs, so one log read serves both. It handles its own errors (a rejection
   * would fail the round, which then reads the same blocks again).
   */
  onTransfersTo?: (transfers: Array<{ to: Address; value: bigint }>) => Promise<void>;
  /**
   * Most blocks one read of the token's transfers covers, and of the Splitter's `Paid` logs (a
   * settler catching up after a stop reads its way forward, chunk after chunk in one round): the
   * configuration's durations (TRANSFER_RANGE_SECONDS, LOG_RANGE_SECONDS) in blocks.
   */
  ranges?: { transferBlocks: bigint; paidBlocks: bigint };
}

/** How long a deposit that cannot be settled now (a token refusal, no gas money) waits before the next try. */
export const DEPOSIT_RETRY_AFTER_MS = 60_000;
/** Watches followed, and retries looked at, per round (their reads in one JSON-RPC batch). */
const PER_TICK = 200;
/**
 * How far behind the last block read each round reads again, so a transfer a short reorg moved to
 * another block is still seen, and one a node left out of a range past its head is seen once
 * another read has it: the follower's re-read overlap (rooms/chain.ts), as a duration.
 */
export const TRANSFER_OVERLAP_SECONDS = 15;
/**
 * Most blocks one log read covers by default (20 s and 100 s of Base's 200 ms blocks): the token's
 * transfers are many on a busy chain and a node caps the logs one call returns; `Paid` logs are few.
 */
const MAX_TRANSFER_RANGE = 100n;
const MAX_PAID_RANGE = 500n;
/** Chunks a round reads at most while catching up (an hour of Base is 18,000 blocks: 180 chunks of 100). */
const CATCH_UP_CHUNKS_PER_ROUND = 200;
/** The backstop (a node that missed logs, a reorg deeper than the overlap): this many open addresses' balances... */
export const BACKSTOP_PER_SWEEP = 20;
/** ...once every this long, in address order, round and round. */
export const BACKSTOP_EVERY_MS = 60_000;
/** How often watches past their end are deleted (a scan of the table, so not every round). */
const PRUNE_EVERY_MS = 10 * 60_000;
const TRANSFER_EVENT = erc20Abi.find((i) => i.type === "event" && i.name === "Transfer")!;

/**
 * Settles payments paid to their payment address, with no call from anyone. Each round follows the
 * settlements sent, through every hash each was sent under (settled at or below the finality head
 * ends the watch; a reverted one, or one whose nonce another transaction used, opens it again; one
 * the node lost is sent again; a stuck one is replaced, within the relayer's fee ceiling), then
 * finds what arrived: the token's `Transfer` logs of the new blocks (one `eth_getLogs`, from a block
 * kept in the store, the last {@link TRANSFER_OVERLAP_SECONDS} read again), their recipients looked up
 * among the open watches (one indexed query), and the balance of each watched recipient read (one
 * read per arrival, at the latest block): whole, `settleDeposit` is sent; short, it waits for the
 * next transfer. A log a reorg removed settles nothing: the balance it announced is not there. The
 * Splitter's `Paid` logs up to the finality head (one more `eth_getLogs`) end the open watches of
 * payments settled by any path. Watching an address is a row: no round reads every open address. A
 * slow backstop reads {@link BACKSTOP_PER_SWEEP} open addresses' balances every
 * {@link BACKSTOP_EVERY_MS}. Several instances may run it: a watch is claimed in the store before its
 * settlement is signed, and the Splitter settles a payment once whoever sends it.
 */
export class DepositSettler implements FollowerConsumer {
  readonly name = "deposits";
  /** The first backstop sweep comes a full period after start; then where it stands in address order. */
  #sweepAt: number;
  #sweptTo: Address | null = null;
  #pruneAt = 0;

  constructor(private readonly deps: DepositSettlerDeps) {
    this.#sweepAt = deps.now() + BACKSTOP_EVERY_MS;
  }

  /** The follower's round (chain/follower.ts): {@link tick} on its view. */
  follow(view: ChainView): Promise<unknown> {
    return this.tick(view);
  }

  /**
   * One round: follow what was sent, end the watches of payments settled by anyone, then settle what
   * has arrived, reading on chunk after chunk while behind the head (a restart after downtime). On
   * the follower's `view`, the head and the new blocks' logs cost no request.
   */
  async tick(view?: ChainView): Promise<{ sent: number; settled: number }> {
    const latest = view?.head.number ?? (await rpc(() => this.deps.client.getBlockNumber({ cacheTime: 0 })));
    let settled = await this.#follow(view);
    for (let i = 0; i < CATCH_UP_CHUNKS_PER_ROUND; i++) {
      const paid = await this.#endPaid(latest, view);
      settled += paid.ended;
      if (paid.caughtUp) break;
    }
    let sent = 0;
    for (let i = 0; i < CATCH_UP_CHUNKS_PER_ROUND; i++) {
      const arrived = await this.#settleArrived(latest, view, i === 0);
      sent += arrived.sent;
      if (arrived.caughtUp) break;
    }
    if (this.deps.now() >= this.#pruneAt) {
      this.#pruneAt = this.deps.now() + PRUNE_EVERY_MS;
      await this.deps.watches.prune(this.deps.now());
    }
    return { sent, settled };
  }

  async #follow(view?: ChainView): Promise<number> {
    const { client, watches } = this.deps;
    const sent = await watches.sent(PER_TICK);
    if (sent.length === 0) return 0;
    const splitter = SplitterReader.of(this.deps);
    const head = view?.finalHead ?? (await finalityHead(client, this.deps.finality));
    let settled = 0;
    for (const w of sent) {
      try {
        if (await this.#followOne(w, splitter, head)) settled++;
      } catch (error) {
        this.deps.onWatchError?.(w.depositAddress, error);
      }
    }
    return settled;
  }

  /** The relayer's own settlement of the watch, if it is what settled it (mined in `block`): its cost and fee, counted. */
  async #count(w: DepositWatch, block: bigint): Promise<void> {
    const receipts = await Promise.all(w.txHashes.map((hash) => readReceipt(this.deps.client, hash)));
    const own = receipts.find((r) => r?.status === "success" && r.blockNumber === block);
    if (!own) return;
    this.deps.ledger!.spent("deposit_settlement", costOf(own));
    const splitter = this.deps.deployment.contracts.Splitter.address.toLowerCase();
    const paid = parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: own.logs.filter((l) => l.address.toLowerCase() === splitter) });
    this.deps.ledger!.earned(
      "deposit_settlement",
      paid.reduce((sum, log) => sum + log.args.fee, 0n),
    );
  }

  /** Follows one sent settlement; true when the payment is settled and final (the watch is done). */
  async #followOne(w: DepositWatch, splitter: SplitterReader, head: bigint): Promise<boolean> {
    const { client, watches, sender } = this.deps;
    // Settled and final (by any of its hashes, or anyone's transaction): the watch is done.
    const settledIn = await splitter.settledBlock(this.#key(w), head);
    // The watch ends (nothing more is sent for it) on what a majority of the nodes hold: the guard's
    // settledBlock, read at the head, saying the block it says.
    const call = { ...splitter.settledBlockCall(this.#key(w)), result: numberToHex(settledIn, { size: 32 }) };
    if (settledIn !== 0n && (await agreeOnClaim("watch_end", client, this.deps.finality, { blockNumber: head, calls: [call] }))) {
      await watches.markSettled(w.depositAddress);
      if (this.deps.ledger) await this.#count(w, settledIn).catch(() => {}); // a count, never a verdict: one node's receipt will do
      return true;
    }
    const receipts = () => Promise.all(w.txHashes.map((hash) => readReceipt(client, hash)));
    // One of its hashes mined (the original or a replacement: they share one nonce, so only one can
    // be): settled, it ends the watch once final (above); reverted, the payment is open again.
    const mined = (await receipts()).find((r) => r !== null);
    if (mined?.status === "reverted") await watches.reopen(w.depositAddress, w.txHash!, this.deps.now() + DEPOSIT_RETRY_AFTER_MS);
    const age = this.deps.now() - w.sentAt!;
    if (mined || age <= Math.min(RELAYER_RESEND_AFTER_MS, this.deps.replaceAfterMs)) return false;
    if (w.relayer !== null && w.nonce !== null) {
      // None of its hashes mined, yet the relayer's nonce is used: another transaction (another
      // instance's, a manual send) took it, and none of these ever can be mined. Read again after the
      // count, in case one was mined between the two reads.
      const count = await client.getTransactionCount({ address: w.relayer, blockTag: "latest" });
      if (count > w.nonce && (await receipts()).every((r) => r === null)) {
        await watches.reopen(w.depositAddress, w.txHash!, this.deps.now());
        return false;
      }
    }
    // Sending again if lost, replacing if stuck under a risen base fee (every later relayer transaction,
    // charges too, waits behind its nonce): the relayer's one rule (relayer-follow.ts), by the key that signed it.
    if (w.relayer === null) return false;
    const sent = { hash: w.txHash!, relayer: w.relayer, raw: w.rawTx!, sentAt: w.sentAt! };
    await resendOrReplace({ ...this.deps, senders: [sender] }, sent, "settlement", (next) =>
      watches.replace(w.depositAddress, w.txHash!, next, this.deps.now()),
    );
    return false;
  }

  /**
   * Reads the Splitter's `Paid` logs from the last block read up to the finality head (final blocks:
   * nothing to read again) and ends the open watches of the payments they settled.
   */
  async #endPaid(latest: bigint, view?: ChainView): Promise<{ ended: number; caughtUp: boolean }> {
    const { client, deployment, watches } = this.deps;
    const head = view?.finalHead ?? (await finalityHead(client, this.deps.finality, latest));
    const last = await watches.scanned("paid");
    const from = last === null || last > head ? head : last + 1n;
    if (from < 0n || from > head) return { ended: 0, caughtUp: true };
    const range = this.deps.ranges?.paidBlocks ?? MAX_PAID_RANGE;
    const wanted = head - from + 1n > range ? from + range - 1n : head;
    const read = await inHalves(from, from, wanted, (fromBlock, toBlock) =>
      logsIn(client, view, { address: deployment.contracts.Splitter.address, events: [PAID_EVENT], fromBlock, toBlock }),
    );
    if (!read.ok) throw read.error;
    // A watch ends on the Paid logs a majority of the nodes hold (only those of open watches are asked):
    // short of a majority the range is read again next round.
    const addressOf = new Map<Hex, Address>();
    for (const key of new Set(read.logs.map((l) => l.args.paymentKey))) addressOf.set(key, await this.deps.depositAddresses.ofKey(key));
    const open = new Set((await watches.openAmong([...addressOf.values()], 0)).map((w) => w.depositAddress.toLowerCase()));
    const ending = read.logs.filter((l) => open.has(addressOf.get(l.args.paymentKey)!.toLowerCase()));
    const held = ending.length === 0 ? [] : await agreeOnLogs("watch_end", client, this.deps.finality, ending);
    if (!held) throw new DomainError("RPC_BUSY", { detail: "payments settled short of a majority of the chain's nodes" });
    const ended = await watches.settle(held.map((l) => addressOf.get(l.args.paymentKey)!));
    await watches.setScanned("paid", read.to);
    return { ended, caughtUp: read.to >= head };
  }

  /**
   * The token's transfers of the new blocks (and the last few again) into open watches, the retries
   * whose time has come and, once a minute, the backstop's few: each one's balance read, the whole
   * ones settled.
   */
  async #settleArrived(latest: bigint, view: ChainView | undefined, first: boolean): Promise<{ sent: number; caughtUp: boolean }> {
    const { client, deployment, watches } = this.deps;
    const now = this.deps.now();
    const last = await watches.scanned("transfers");
    const next = last === null || last >= latest ? latest + 1n : last + 1n;
    // The overlap once a round: a catch-up's later chunks go on from where the one before ended.
    const overlap = first ? blocksIn(TRANSFER_OVERLAP_SECONDS, deployment.chainId) : 0n;
    const from = next - overlap > 0n ? next - overlap : 0n;
    const range = this.deps.ranges?.transferBlocks ?? MAX_TRANSFER_RANGE;
    const wanted = latest - from + 1n > range ? from + range - 1n : latest;
    const read = await inHalves(from, next, wanted, (fromBlock, toBlock) =>
      logsIn(client, view, { address: deployment.token.address, events: [TRANSFER_EVENT], fromBlock, toBlock }),
    );
    const recipients = read.ok ? [...new Set(read.logs.map((l) => l.args.to))] : [];
    await this.deps.onTransfersTo?.(read.ok ? read.logs.map((l) => ({ to: l.args.to, value: l.args.value })) : []);
    const arrived = await watches.openAmong(recipients, now);
    // The retries and the backstop once per round, not per catch-up chunk.
    const retries = first ? await watches.due(now, PER_TICK) : [];
    let swept: DepositWatch[] = [];
    if (first && now >= this.#sweepAt) {
      this.#sweepAt = now + BACKSTOP_EVERY_MS;
      swept = await watches.openAfter(this.#sweptTo, now, BACKSTOP_PER_SWEEP);
      this.#sweptTo = swept.length < BACKSTOP_PER_SWEEP ? null : swept[swept.length - 1]!.depositAddress;
    }
    const looked = new Map<Address, DepositWatch>();
    for (const w of [...arrived, ...retries, ...swept]) looked.set(w.depositAddress, w);
    const candidates = [...looked.values()];
    const balances = await Promise.all(
      candidates.map((w) =>
        rpc(() => client.readContract({ address: deployment.token.address, abi: erc20Abi, functionName: "balanceOf", args: [w.depositAddress] })),
      ),
    );
    // Short (or emptied by a reorg): no retry owed; the next transfer to it is what looks again.
    const retried = new Set(retries.map((w) => w.depositAddress));
    await watches.postpone(
      candidates.filter((w, i) => balances[i]! < w.amountUnits && retried.has(w.depositAddress)).map((w) => w.depositAddress),
      null,
    );
    let sent = 0;
    for (const [i, w] of candidates.entries()) {
      if (balances[i]! < w.amountUnits) continue;
      if (await this.#settle(w)) sent++;
      else await watches.postpone([w.depositAddress], now + DEPOSIT_RETRY_AFTER_MS);
    }
    // A range the node would not read even one block at a time: the retries and the backstop above
    // still ran; the round reports it, and the next reads the same blocks again.
    if (!read.ok) throw read.error;
    await watches.setScanned("transfers", read.to);
    return { sent, caughtUp: read.to >= latest };
  }

  /** Sends `settleDeposit` for one watch; false when it cannot be sent now (the simulation refused, no gas money). */
  async #settle(w: DepositWatch): Promise<boolean> {
    return (await this.sendSettlement(w.depositAddress, this.#settleData(w))) !== "unavailable";
  }

  /** The `settleDeposit` call of one watch's payment. */
  #settleData(w: DepositWatch): Hex {
    const { deployment } = this.deps;
    return encodeFunctionData({
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [deployment.token.address, w.recipient, w.amountUnits, w.reference],
    });
  }

  /**
   * Sends `data`, a call to the Splitter that settles the payment address's payment (`settleDeposit`,
   * or the x402 facilitator's `settleDepositFromAuthorization`), as the settlement of its open watch:
   * the watch is claimed and the signed transaction recorded with the relayer's next nonce before it
   * is broadcast, so every tick follows it (final: done; reverted or its nonce used elsewhere: open
   * again; lost: sent again; stuck: replaced within the fee ceiling). "taken" when the watch is not
   * open (another settlement is out, or another instance claimed it); "unavailable" when nothing can
   * be sent now (the simulation refused, it would use more than `maxGas`, no relayer, or no gas money
   * for the L2 gas and the L1 data fee).
   */
  async sendSettlement(depositAddress: Address, data: Hex, maxGas?: bigint): Promise<{ hash: Hex } | "taken" | "unavailable"> {
    const { deployment, sender } = this.deps;
    const to = deployment.contracts.Splitter.address;
    // A paused token or a blacklisted party refuses in the simulation, and the deposit waits at its
    // address until it clears.
    const ready = await readyRelayerCall(this.deps, to, data, maxGas);
    if (!ready) return "unavailable";
    const { relayer, priced, pending } = ready;
    const { gas, fees } = priced;
    const signed = await this.deps.watches.recordSettlement(depositAddress, { relayer, sentAt: this.deps.now() }, pending, (nonce) =>
      sender.sign({ to, data, gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }, nonce),
    );
    if (!signed) return "taken";
    await sender.send(signed).catch(() => {}); // recorded: the next tick follows it, and sends it again if lost
    return { hash: signed.hash };
  }

  /**
   * `data` (a call to the Splitter) simulated as the relayer would send it, with the fees it would pay
   * (a payer's code may look at them), and priced: its gas limit (the estimate plus 20%) and those
   * fees; null when the simulation does not pass (it reverts, or the node could not run it).
   */
  async priceSettlement(data: Hex): Promise<SettlementPrice | null> {
    return priceRelayerCall(this.deps, this.deps.deployment.contracts.Splitter.address, data);
  }

  #key(w: DepositWatch): Hex {
    return paymentKeyOf(this.deps.deployment.token.address, { recipient: w.recipient, amountUnits: w.amountUnits, reference: w.reference });
  }
}

/**
 * Logs of `[from, to]` read by `read(from, to)`, or, when the node refuses the range (a provider caps
 * the logs one call returns: a busy stretch, or a stranger's burst of transfers, must not stop
 * detection for good), of the new blocks alone from `fresh` (no re-read), then their first half,
 * quarter, …; `to` is where the read ended. Not ok when the node refuses even one block.
 */
async function inHalves<T>(
  from: bigint,
  fresh: bigint,
  to: bigint,
  read: (from: bigint, to: bigint) => Promise<T[]>,
): Promise<{ ok: true; logs: T[]; to: bigint } | { ok: false; error: unknown }> {
  try {
    return { ok: true, logs: await read(from, to), to };
  } catch (error) {
    if (fresh > to) return { ok: false, error };
  }
  for (let end = to; ; end = fresh + (end - fresh) / 2n) {
    try {
      return { ok: true, logs: await read(fresh, end), to: end };
    } catch (error) {
      if (end === fresh) return { ok: false, error };
    }
  }
}
