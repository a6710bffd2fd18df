import type { Address, Hex } from "viem";
import { DomainError } from "../errors.js";
import type { ChargeAttempts } from "../store/charge-attempts.js";
import type { ChargeResponse } from "../wire/index.js";
import { periodAnswer } from "./charge-answers.js";
import type { Relayer } from "./relayer.js";
import type { Terms } from "./terms.js";
import { batchedRenewalGas, batchFixedGas, batchGasLimit, LONE_RENEWAL_FIGURE, measuredChargeGas, type BatchItemGas } from "./charge-gas.js";
import { batchedReimbursements, l1FeeShares } from "./batch-reimbursement.js";
import type { GasPricing } from "./gas-quote.js";
import { chargeBatchCalldata, chargeCalldata, type EncodedCharge } from "./charge-encoding.js";
import { batchLength, fitsOneBatch, mostBatchGas, mostBatchLimit, TRANSACTION_GAS_CAP, type BatchFigures, type BatchRoom } from "./batch-size.js";

/** The measured figures a batch's gas limit and its renewals' reimbursements are priced from (snapshots/gas.json). */
const BATCHED_RENEWAL_GAS = batchedRenewalGas();
/** A chargeBatch's fixed cost, which the measured shares spread over 20 (charge-gas.ts). */
const BATCH_FIXED_GAS = batchFixedGas(BATCHED_RENEWAL_GAS, measuredChargeGas(undefined, LONE_RENEWAL_FIGURE));
const PRICED: BatchFigures = { figures: BATCHED_RENEWAL_GAS, fixed: BATCH_FIXED_GAS };

/** A charge checked, simulated and priced, ready to be sent: everything its transaction needs. */
export interface ReadyCharge {
  terms: Terms;
  /** The terms' ABI words (charge-encoding.ts), encoded once per charge. */
  words: string;
  signature: Hex;
  id: Hex;
  period: bigint;
  /** The reimbursement priced for the charge alone (within the signed maximum); a renewal's in a batch is priced by the batch, never above it. */
  reimbursement: bigint;
  /** The charge's gas alone (with its margin): measured for a renewal, estimated for a first charge. */
  gas: bigint;
  /** A renewal (its gas measured, no signature checked), and whether its period opens a slot of charge records: its share of a batch (charge-gas.ts). */
  renewal: boolean;
  newSlot: boolean;
  /** Gas a batch sets aside beyond `gas` for the payer's signature check on chain: the cap for a contract payer's first charge, else 0. */
  signatureRoom: bigint;
  /** What a gas unit was expected to cost when the charge was quoted (next base fee + tip). */
  expectedPerGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** The L1 data fee of the charge alone, wei (with its margin). */
  l1Fee: bigint;
  /** The relayer's balance and pending nonce, as read with the charge's chain view. */
  balance: bigint;
  pending: number;
  /** The latest block's gas limit, as read with the charge's chain view: what a batch is sized by. */
  blockGasLimit: bigint;
}

export interface BatcherDeps {
  contract: Address;
  attempts: ChargeAttempts;
  relayer: Relayer;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** At most this many charges per transaction; 1 sends every charge alone. Within it, a batch takes what a block's gas holds for one of `perBlock` (batch-size.ts). */
  maxItems: number;
  /** How many of the relayer's transactions one block may carry: the pool's window. */
  perBlock: number;
  /** How long the first charge of a batch waits for others to join it. */
  waitMs: number;
  /** How gas is priced in the token: a batched renewal's reimbursement is decided with the batch. */
  pricing: GasPricing;
  /** The L1 data fee of a call of the contract with `data`, wei (chain/l1-fee.ts). */
  quoteL1Fee: (data: Hex) => Promise<bigint>;
}

/**
 * Batches recorded and sent at once. A batch's store transaction and broadcast take a few round trips;
 * with several under way, a wave's batches leave as fast as blocks take them (the relayer's outbox
 * still broadcasts in nonce order, within the pool's window).
 */
const SENDING_LANES = 4;

/** How often charges held for room in the relayer's window look again (the relayer's own retry pace). */
const ROOM_CHECK_MS = 50;

interface Waiting {
  charge: ReadyCharge;
  resolve: (answer: ChargeResponse) => void;
  reject: (error: unknown) => void;
}

/**
 * Groups the charges that become ready together (a renewal wave) into one `chargeBatch` transaction,
 * so a wave sends few transactions: the relayer's pool window (16 pending per sender) then carries
 * up to 16 × `maxItems` charges instead of 16. A charge alone is sent with `charge`, as before.
 * Each caller still gets its own answer (CONFIRMING with the transaction's hash); every period the
 * transaction carries is recorded with it before it leaves the process, so follow, recover, refunds,
 * webhooks and replacement work per period.
 */
export class ChargeBatcher {
  #waiting: Waiting[] = [];
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: BatcherDeps) {}

  /**
   * Sends `charge` (alone or with others ready within the wait) and answers CONFIRMING with its
   * transaction once it is sent (its 200 ms block is the early signal: follow says when it is in one).
   */
  submit(charge: ReadyCharge): Promise<ChargeResponse> {
    return new Promise<ChargeResponse>((resolve, reject) => {
      this.#waiting.push({ charge, resolve, reject });
      this.#waitingMostGas += mostBatchGas(gasItem(charge), PRICED);
      this.#waitingMostLimit += mostBatchLimit(gasItem(charge), PRICED);
      if (this.#full()) this.#flush();
      // While every lane is busy recording and sending a batch, the next one gathers and leaves when a
      // lane frees (a group commit): under load, batches grow by themselves; alone, a charge waits `waitMs`.
      else if (this.#sending < SENDING_LANES) this.#timer ??= setTimeout(() => this.#flushWhenRoom(), this.deps.waitMs);
    });
  }

  /** Batches being recorded and sent right now. */
  #sending = 0;

  /** The most gas, and gas limit, the charges waiting can add to a batch (batch-size.ts): while within a batch's room, they surely fit. */
  #waitingMostGas = 0n;
  #waitingMostLimit = 0n;

  /** What bounds the next batch: CHARGE_BATCH_MAX, the block's gas (as the latest charge's view read it) and the pool's window. */
  #room(): BatchRoom {
    const latest = this.#waiting.at(-1)?.charge.blockGasLimit ?? 0n;
    return { maxItems: this.deps.maxItems, blockGasLimit: latest, perBlock: this.deps.perBlock };
  }

  /** Whether the charges waiting make a batch that can take no more (or more than one batch). */
  #full(): boolean {
    const room = this.#room();
    if (this.#waiting.length >= room.maxItems) return true;
    const surelyFits = this.#waitingMostGas * BigInt(room.perBlock - 1) + this.#waitingMostLimit <= room.blockGasLimit;
    if (surelyFits && this.#waitingMostLimit <= TRANSACTION_GAS_CAP) return false;
    return !fitsOneBatch(
      this.#waiting.map((w) => gasItem(w.charge)),
      room,
      PRICED,
    );
  }

  /**
   * Sends the charges waiting, unless the relayer's window is full (a transaction of its own still
   * waits for the node to take it) and they do not make a full batch yet: then they keep gathering
   * until the node takes the relayer's transactions (checked every `ROOM_CHECK_MS`). A block takes at
   * most 16 of one sender's transactions, so a small batch signed while the window is full takes a
   * place in a later block a full one would have used; held, the charges join the batches that leave
   * when there is room, each answered CONFIRMING once its transaction is with the node or in line.
   */
  #flushWhenRoom(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#waiting.length === 0) return;
    if (this.deps.relayer.unsent > 0 && !this.#full()) {
      this.#timer = setTimeout(() => this.#flushWhenRoom(), ROOM_CHECK_MS);
      return;
    }
    this.#flush();
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const length = batchLength(
      this.#waiting.map((w) => gasItem(w.charge)),
      this.#room(),
      PRICED,
    );
    const group = this.#waiting.splice(0, length);
    this.#waitingMostGas = this.#waiting.reduce((sum, w) => sum + mostBatchGas(gasItem(w.charge), PRICED), 0n);
    this.#waitingMostLimit = this.#waiting.reduce((sum, w) => sum + mostBatchLimit(gasItem(w.charge), PRICED), 0n);
    if (group.length === 0) return;
    this.#sending++;
    void this.#send(group)
      .catch((error) => {
        for (const w of group) w.reject(error);
      })
      .finally(() => {
        this.#sending--;
        if (this.#waiting.length > 0) this.#flushWhenRoom();
      });
    // A full batch more already waiting goes at once.
    if (this.#waiting.length > 0 && this.#full()) this.#flush();
  }

  async #send(group: Waiting[]): Promise<void> {
    const { attempts, relayer } = this.deps;
    const charges = group.map((w) => w.charge);
    const relayerAddress = relayer.address!;
    // The transaction's fees are the highest any charge was quoted; its gas limit, the base cost plus
    // each charge's share by what it touches first in the batch (charge-gas.ts: a block builder
    // reserves a transaction's limit, so the sum of the charges' own limits, each with its own base
    // cost and cold accounts, would fit far fewer batches into a block).
    const gas = charges.length === 1 ? charges[0]!.gas : batchGasLimit(charges.map(gasItem), BATCHED_RENEWAL_GAS);
    const maxFeePerGas = charges.reduce((m, c) => (c.maxFeePerGas > m ? c.maxFeePerGas : m), 0n);
    const maxPriorityFeePerGas = charges.reduce((m, c) => (c.maxPriorityFeePerGas > m ? c.maxPriorityFeePerGas : m), 0n);
    const l1Fee = charges.reduce((sum, c) => sum + c.l1Fee, 0n);
    const balance = charges.reduce((m, c) => (c.balance < m ? c.balance : m), charges[0]!.balance);
    const pending = charges.reduce((m, c) => (c.pending > m ? c.pending : m), 0);
    relayer.ensureAvailable(gas, maxFeePerGas, balance, l1Fee);
    const fees = { gas, maxFeePerGas, maxPriorityFeePerGas };
    // A batch's renewals pay their share of it, decided before signing (it is in each item's calldata).
    const l1Shares = charges.length === 1 ? null : await this.#batchL1Shares(charges);
    const sentAt = this.deps.now();

    // The nonce is taken, each period claimed and the signed transaction recorded for every period it
    // carries, in one store transaction (no chain call inside), before anything leaves the process. A
    // charge alone goes as `charge`; several go as one `chargeBatch` of the periods this caller won.
    const sent = await attempts.recordWithNonce(
      charges.map((c) => ({ subscriptionId: c.id, periodIndex: c.period })),
      { relayer: relayerAddress, sentAt },
      pending,
      (won, nonce) => {
        const data = charges.length === 1 ? chargeData(charges[0]!) : batchData(this.#priced(charges, l1Shares, won));
        return relayer.sign({ to: this.deps.contract, data, ...fees }, nonce);
      },
    );
    if (sent) await relayer.send(sent);
    for (const [i, w] of group.entries()) {
      const c = w.charge;
      if (sent?.won[i]) w.resolve(periodAnswer("CONFIRMING", c.terms, c.id, c.period, sent.hash));
      else this.#winnersAnswer(c).then(w.resolve, w.reject);
    }
  }

  /**
   * Each charge's part of the batch's L1 data fee, quoted on the batch's calldata (one eth_call, the
   * charges' lone reimbursements standing in for theirs: a value's bytes barely move the compressed
   * size), split by the bytes each takes in it. When that quote fails, each charge's own L1 fee as
   * quoted alone (a whole transaction's, signature included: more than its part of a batch). Null
   * when the batch carries no renewal: every charge keeps its own price.
   */
  async #batchL1Shares(charges: ReadyCharge[]): Promise<bigint[] | null> {
    if (!charges.some((c) => c.renewal)) return null;
    const empty = hexBytes(batchData([]));
    // An item's bytes depend on its signature's length only (every other field is one word): encoded once per length.
    const bytesBySignature = new Map<number, number>();
    const itemBytes = charges.map((c) => {
      const signature = sentSignature(c).length;
      let bytes = bytesBySignature.get(signature);
      if (bytes === undefined) {
        bytes = hexBytes(batchData([c])) - empty;
        bytesBySignature.set(signature, bytes);
      }
      return bytes;
    });
    try {
      return l1FeeShares(await this.deps.quoteL1Fee(batchData(charges)), itemBytes);
    } catch {
      return charges.map((c) => c.l1Fee);
    }
  }

  /**
   * The charges this caller won, each with the reimbursement it pays in the batch it rides in
   * (batch-reimbursement.ts): a renewal its share of the batch's gas and L1 data fee, a first charge
   * its own price. Decided here because it is signed into each item's calldata.
   */
  #priced(charges: ReadyCharge[], l1Shares: bigint[] | null, won: readonly boolean[]): ReadyCharge[] {
    const sent = charges.map((c, i) => ({ c, l1Share: l1Shares?.[i] })).filter((_, i) => won[i]);
    if (l1Shares === null) return sent.map(({ c }) => c);
    const feePerGas = sent.reduce((m, { c }) => (c.expectedPerGas > m ? c.expectedPerGas : m), 0n);
    const reimbursements = batchedReimbursements(
      sent.map(({ c, l1Share }) => ({
        payer: c.terms.payer,
        recipient: c.terms.recipient,
        renewal: c.renewal,
        newSlot: c.newSlot,
        gas: c.gas,
        lone: c.reimbursement,
        networkFee: c.terms.networkFee,
        l1Share: l1Share ?? 0n,
      })),
      BATCHED_RENEWAL_GAS,
      BATCH_FIXED_GAS,
      feePerGas,
      this.deps.pricing,
    );
    return sent.map(({ c }, i) => ({ ...c, reimbursement: reimbursements[i]! }));
  }

  /**
   * Another caller (another instance) recorded its transaction for this period first, after this
   * charge's simulation: it is on its way (its owner broadcasts it) and cannot be settled yet.
   */
  async #winnersAnswer(c: ReadyCharge): Promise<ChargeResponse> {
    const winner = await this.deps.attempts.find(c.id, c.period);
    if (winner?.txHash) return periodAnswer("CONFIRMING", c.terms, c.id, c.period, winner.txHash);
    throw new DomainError("CONCURRENCY_LIMIT", { detail: "another instance is charging this period" });
  }
}

/**
 * The signature a charge is sent with: a renewal's is never checked (the contract checks it on the
 * first charge only), so it goes empty, as its gas was measured (snapshots/gas.json), and its
 * calldata, and with it the L1 data fee, is 96 bytes smaller. Were the first charge undone by a
 * reorg after the simulation, the renewal is refused on chain; following it then drops its record
 * (charge-follow.ts, as for any batch item that charged nothing), and the next ask charges the
 * period anew as a first charge, with the signature.
 */
function sentSignature(c: ReadyCharge): Hex {
  return c.renewal ? "0x" : c.signature;
}

/** What a batch's gas limit and size need to know of a charge (charge-gas.ts, batch-size.ts). */
function gasItem(c: ReadyCharge): BatchItemGas {
  return { payer: c.terms.payer, recipient: c.terms.recipient, renewal: c.renewal, newSlot: c.newSlot, gas: c.gas, signatureRoom: c.signatureRoom };
}

/** The bytes `data` holds. */
function hexBytes(data: Hex): number {
  return (data.length - 2) / 2;
}

/** The charge as its call carries it. */
function encoded(c: ReadyCharge): EncodedCharge {
  return { terms: c.words, signature: sentSignature(c), gasReimbursement: c.reimbursement, expectedPeriod: c.period };
}

function chargeData(c: ReadyCharge): Hex {
  return chargeCalldata(encoded(c));
}

function batchData(charges: ReadyCharge[]): Hex {
  return chargeBatchCalldata(charges.map(encoded));
}
