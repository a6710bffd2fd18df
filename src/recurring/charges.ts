import { encodeFunctionData, erc20Abi, isAddressEqual, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import { finalityHead, isSettled, readReceiptsAfterHead } from "../chain/finality.js";
import type { ConcurrencyGate } from "../limits/rate-limiter.js";
import { rpc } from "../chain/rpc-errors.js";
import { checkTokenWillTransfer } from "../chain/token-refusals.js";
import { isKnownTransaction, readReceipt } from "../chain/transactions.js";
import type { ChargeAttempt, ChargeAttempts } from "../store/charge-attempts.js";
import { chargeRefusal } from "./charge-errors.js";
import { gasQuoteUnits, quoteFees, reimbursementFor, type FeeQuote, type GasPricing } from "./gas-quote.js";
import type { Relayer } from "./relayer.js";
import type { Subscriptions } from "./subscriptions.js";
import type { Terms } from "./terms.js";
import type { SignedSubscription } from "./tokens.js";
import type { ChargeResponse, ChargeStatus } from "../wire/index.js";

export type { ChargeStatus };
/** A charge's answer: the wire's ChargeResponse. */
export type ChargeResult = ChargeResponse;

export interface ChargesDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  subscriptions: Subscriptions;
  attempts: ChargeAttempts;
  relayer: Relayer;
  pricing: GasPricing;
  /** Bounds the charges in flight and waiting in this instance. */
  gate: ConcurrencyGate;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/** The latest block, the fee quote, the relayer's balance and its pending nonce, each read or failed. */
type ChainView = [
  PromiseSettledResult<{ number: bigint; timestamp: bigint }>,
  PromiseSettledResult<FeeQuote>,
  PromiseSettledResult<bigint>,
  PromiseSettledResult<number>,
];

/** A settled read's value, or its error thrown. */
function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

const CHARGED_EVENT = recurringChargesAbi.find((i) => i.type === "event" && i.name === "Charged")!;

/**
 * Recurring charges. One transaction per (subscription, period), recorded in the store before it is
 * broadcast: a repeated or restarted call follows the recorded transaction (CONFIRMING while
 * unsettled, CHARGED once settled, ALREADY_CHARGED after) and never sends a second one. Every
 * refusal is answered from a read or a simulation before anything is sent.
 */
export class Charges {
  readonly #busy = new Set<Hex>();

  constructor(private readonly deps: ChargesDeps) {}

  get #contract() {
    return this.deps.deployment.contracts.RecurringCharges.address;
  }

  async charge(token: string): Promise<ChargeResult> {
    const signed = this.deps.subscriptions.readCapability(token);
    const id = this.deps.subscriptions.subscriptionId(signed.terms);
    if (this.#busy.has(id)) throw new DomainError("CONCURRENCY_LIMIT");
    this.#busy.add(id);
    try {
      // Bounded: past the charges running and waiting, 429 CONCURRENCY_LIMIT before anything is read or spent.
      const ran = await this.deps.gate.run(() => this.#charge(signed, id));
      if (!ran) throw new DomainError("CONCURRENCY_LIMIT", { detail: "the charge queue is full" });
      return ran.value;
    } finally {
      this.#busy.delete(id);
    }
  }

  async #charge({ terms, signature }: SignedSubscription, id: Hex): Promise<ChargeResult> {
    const { client, attempts, relayer } = this.deps;
    const relayerAddress = relayer.address;
    const [blockRead, feesRead, balanceRead, pendingRead] = await this.#chainView();
    const block = settledValue(blockRead);
    const now = block.timestamp;
    if (now < terms.start) throw new DomainError("NOT_DUE", { retryAfter: Number(terms.start - now) });
    const period = (now - terms.start) / terms.period;

    const attempt = await attempts.find(id, period);
    if (attempt) {
      const followed = await this.#follow(terms, id, period, attempt);
      if (followed) return followed;
    }

    // A second round trip: the subscription and the period's slot at that block, the token's
    // refusals, and the simulation of the charge (every on-chain refusal by name), which also sizes
    // its gas. Their answers are taken in that order.
    const [subscriptionRead, paidRead, tokenRead, gasRead] = await Promise.allSettled([
      rpc(() =>
        client.readContract({ address: this.#contract, abi: recurringChargesAbi, functionName: "subscriptions", args: [id], blockNumber: block.number }),
      ),
      this.#chargedBlock(id, period, block.number),
      checkTokenWillTransfer(client, terms.token, [terms.payer, terms.recipient, this.deps.deployment.parameters.feeCollector, this.#contract]),
      relayerAddress
        ? client.estimateContractGas({
            address: this.#contract,
            abi: recurringChargesAbi,
            functionName: "charge",
            args: [terms, signature, 0n],
            account: relayerAddress,
          })
        : Promise.reject(new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key" })),
    ]);
    const [, , revoked] = settledValue(subscriptionRead);
    if (revoked) throw new DomainError("PERMISSION_REVOKED");
    if (terms.end !== 0n && now >= terms.end) throw new DomainError("SUBSCRIPTION_EXPIRED");
    const paidIn = settledValue(paidRead);
    if (paidIn !== 0n) return this.#chargedIn(terms, id, period, paidIn);

    // The token's refusals (blacklisted account, paused token), named before anything is sent.
    settledValue(tokenRead);
    if (feesRead.status === "rejected") throw new DomainError("GAS_QUOTE_UNAVAILABLE", { cause: feesRead.reason });
    const fees: FeeQuote = feesRead.value;
    if (!relayerAddress) throw new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key" });
    let gas: bigint;
    if (gasRead.status === "fulfilled") {
      gas = gasRead.value;
    } else {
      const refusal = chargeRefusal(gasRead.reason, terms.start - now);
      if (refusal) throw refusal;
      // PeriodAlreadyCharged: charged since the read above (another instance, another relayer).
      const paid = await this.#chargedBlock(id, period);
      if (paid === 0n) throw new DomainError("RPC_ERROR", { detail: "the chain moved under the charge (reorg in progress)" });
      return this.#chargedIn(terms, id, period, paid);
    }
    gas = (gas * 12n) / 10n;
    const reimbursement = reimbursementFor(gasQuoteUnits(gas, fees.expectedPerGas, this.deps.pricing), terms.networkFee);
    if (reimbursement > terms.maxGasReimbursement) throw new DomainError("GAS_TOO_HIGH");
    if (reimbursement > 0n) await this.#checkFunds(terms, terms.amount + reimbursement);
    relayer.ensureAvailable(gas, fees.maxFeePerGas, settledValue(balanceRead));

    const call = {
      to: this.#contract,
      data: encodeFunctionData({ abi: recurringChargesAbi, functionName: "charge", args: [terms, signature, reimbursement] }),
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    };
    // The nonce is taken and the signed transaction recorded in one store transaction (no chain call
    // inside), before anything leaves the process.
    const sent = await attempts.recordWithNonce(
      { subscriptionId: id, periodIndex: period, relayer: relayerAddress, sentAt: this.deps.now() },
      Number(settledValue(pendingRead)),
      (nonce) => relayer.sign(call, nonce),
    );
    if (!sent) {
      // Another instance recorded its transaction for this period first, after our simulation at the
      // latest block: it is on its way (its owner broadcasts it) and cannot be settled yet.
      const winner = await attempts.find(id, period);
      if (winner) return this.#result("CONFIRMING", terms, id, period, winner.txHash);
      throw new DomainError("CONCURRENCY_LIMIT", { detail: "another instance is charging this period" });
    }
    await relayer.send(sent);
    return this.#result("CONFIRMING", terms, id, period, sent.hash);
  }

  #view: Promise<ChainView> | null = null;

  /**
   * The latest block, the fee quote, the relayer's balance and its pending nonce: one round trip,
   * shared by every charge that starts while it is in flight (a month-start burst reads them once,
   * not once per subscription). Never reused once answered.
   */
  #chainView(): Promise<ChainView> {
    if (!this.#view) {
      this.#view = this.#readChainView();
      void this.#view.finally(() => (this.#view = null));
    }
    return this.#view;
  }

  #readChainView(): Promise<ChainView> {
    const { client, relayer } = this.deps;
    const relayerAddress = relayer.address;
    return Promise.allSettled([
      rpc(() => client.getBlock({ blockTag: "latest" })),
      quoteFees(client, this.deps.pricing),
      relayerAddress ? rpc(() => client.getBalance({ address: relayerAddress })) : Promise.resolve(0n),
      relayerAddress ? rpc(() => client.getTransactionCount({ address: relayerAddress, blockTag: "pending" })) : Promise.resolve(0),
    ]) as Promise<ChainView>;
  }

  /**
   * Follows a recorded transaction through every hash it was sent with (a replacement's or the
   * original's may be the one mined). Null means it is gone for good (never reached the chain and
   * can no longer be sent): the caller charges anew, which the contract still limits to once a period.
   */
  async #follow(terms: Terms, id: Hex, period: bigint, attempt: ChargeAttempt): Promise<ChargeResult | null> {
    const { client, attempts } = this.deps;
    // The finality head, then every hash's receipt in one batch: a receipt read after the head and at
    // or below it is settled.
    const { head, receipts } = await readReceiptsAfterHead(client, this.deps.finality, attempt.txHashes);
    const receipt = receipts.find((r) => r !== null) ?? null;
    if (!receipt) {
      if (await isKnownTransaction(client, attempt.txHash)) return this.#result("CONFIRMING", terms, id, period, attempt.txHash);
      const paidIn = await this.#chargedBlock(id, period);
      if (paidIn !== 0n) {
        await attempts.remove(id, period, attempt.txHash);
        return this.#chargedIn(terms, id, period, paidIn);
      }
      // Unknown to the node: recorded but never broadcast (a crash), or reorged out and dropped.
      try {
        await this.deps.relayer.broadcast(attempt.rawTx);
        return this.#result("CONFIRMING", terms, id, period, attempt.txHash);
      } catch {
        await attempts.remove(id, period, attempt.txHash);
        return null;
      }
    }
    if (receipt.status !== "success") {
      await attempts.remove(id, period, attempt.txHash);
      const paidIn = await this.#chargedBlock(id, period);
      if (paidIn !== 0n) return this.#chargedIn(terms, id, period, paidIn);
      throw new DomainError("TRANSACTION_REVERTED");
    }
    if (!isSettled(receipt.blockNumber, head)) return this.#result("CONFIRMING", terms, id, period, receipt.transactionHash);
    if (attempt.status === "sent") {
      await attempts.markReported(id, period);
      return this.#result("CHARGED", terms, id, period, receipt.transactionHash);
    }
    return this.#result("ALREADY_CHARGED", terms, id, period, receipt.transactionHash);
  }

  /**
   * Replaces recorded transactions still unmined `afterSeconds` after they were sent: the same
   * call with the same nonce at a higher fee, recorded (its hash added to the attempt's) before it
   * is sent. Returns how many were replaced. Run on a timer; several instances may run it (a
   * replacement is recorded only if the attempt has not moved on).
   */
  /** Runs {@link replaceStuck} every `everyMs` until stopped (npm start). */
  start(afterSeconds: number, everyMs: number, onFailure: (error: unknown) => void): void {
    if (this.#timer) return;
    let busy = false;
    this.#timer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.replaceStuck(afterSeconds)
        .catch(onFailure)
        .finally(() => (busy = false));
    }, everyMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  #timer: NodeJS.Timeout | null = null;

  async replaceStuck(afterSeconds: number, limit = 100): Promise<number> {
    const { client, attempts, relayer } = this.deps;
    if (!relayer.address) return 0;
    const stale = (await attempts.unsettledSentBefore(this.deps.now() - afterSeconds * 1000, limit)).filter(
      (a) => a.relayer.toLowerCase() === relayer.address!.toLowerCase(),
    );
    if (stale.length === 0) return 0;
    const [fees, mined] = await Promise.all([
      quoteFees(client, this.deps.pricing),
      Promise.all(stale.map((a) => Promise.all(a.txHashes.map((h) => readReceipt(client, h))).then((rs) => rs.some((r) => r !== null)))),
    ]);
    let replaced = 0;
    for (const [i, attempt] of stale.entries()) {
      if (mined[i]) continue; // mined: a status read reports it
      const next = await relayer.signReplacement(attempt.rawTx, fees);
      if (!(await attempts.replace(attempt.subscriptionId, attempt.periodIndex, attempt.txHash, next, this.deps.now()))) continue;
      try {
        await relayer.broadcast(next.raw);
        replaced++;
      } catch {
        // Refused (its nonce was used meanwhile, or the node is down): a status read sorts it out.
      }
    }
    return replaced;
  }

  /**
   * Finds the charge of one period: the contract's `chargedBlock` slot, then the `Charged` log of
   * that one block, which must match the signed terms.
   */
  async recover(token: string, periodIndex: number) {
    const { terms } = this.deps.subscriptions.readCapability(token);
    const id = this.deps.subscriptions.subscriptionId(terms);
    const period = BigInt(periodIndex);
    const { client } = this.deps;
    for (let attempt = 0; attempt < 2; attempt++) {
      const latest = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
      const chargedIn = await this.#chargedBlock(id, period, latest);
      if (chargedIn === 0n) return { found: false as const, code: "PAYMENT_NOT_FOUND" as const, as_of_block: latest.toString() };
      const log = (await this.#chargedLogs(id, period, chargedIn))[0];
      if (!log) continue; // the chain moved between the two reads: read again
      const fee = (terms.amount * BigInt(terms.feeBps)) / 10_000n;
      const a = log.args;
      const matches =
        isAddressEqual(a.payer, terms.payer) &&
        isAddressEqual(a.recipient, terms.recipient) &&
        isAddressEqual(a.token, terms.token) &&
        a.amount === terms.amount &&
        a.fee === fee &&
        a.networkFee === terms.networkFee &&
        a.net === terms.amount - fee - terms.networkFee;
      if (!matches) throw new DomainError("PAYMENT_RECOVERY_INCONSISTENT", { detail: "the Charged log contradicts the signed terms" });
      const head = await finalityHead(client, this.deps.finality, latest);
      if (!isSettled(log.blockNumber, head)) throw new DomainError("PAYMENT_CONFIRMING", { txHash: log.transactionHash });
      return {
        found: true as const,
        subscription_id: id,
        period_index: periodIndex,
        tx_hash: log.transactionHash,
        block_number: log.blockNumber.toString(),
        payer: a.payer,
        recipient: a.recipient,
        net_units: a.net.toString(),
        fee_units: a.fee.toString(),
        network_fee_units: a.networkFee.toString(),
        amount_units: a.amount.toString(),
      };
    }
    throw new DomainError("PAYMENT_RECOVERY_INCONSISTENT", { detail: "chargedBlock set but no Charged log" });
  }

  #result(status: ChargeStatus, terms: Terms, id: Hex, period: bigint, txHash?: Hex): ChargeResult {
    const periodStart = terms.start + period * terms.period;
    const periodEnd = periodStart + terms.period;
    return {
      status,
      ok: status !== "CONFIRMING",
      already_paid: status === "ALREADY_CHARGED",
      action: status === "CONFIRMING" ? "WAIT" : "SUCCESS",
      subscription_id: id,
      period_index: Number(period),
      period_start: Number(periodStart),
      period_end: Number(periodEnd),
      next_period_at: terms.end !== 0n && periodEnd >= terms.end ? null : Number(periodEnd),
      ...(txHash ? { tx_hash: txHash, amount: formatAmount(terms.amount) } : {}),
    };
  }

  /**
   * The answer for a period the contract says was charged in block `paidIn` by a transaction this
   * call did not follow: ALREADY_CHARGED only once that block is at or below the finality head,
   * CONFIRMING (WAIT, with the transaction's hash) before. Never a success ahead of the chain.
   */
  async #chargedIn(terms: Terms, id: Hex, period: bigint, paidIn: bigint): Promise<ChargeResult> {
    const [txHash, head] = await Promise.all([this.#chargeTx(id, period, paidIn), finalityHead(this.deps.client, this.deps.finality)]);
    return this.#result(isSettled(paidIn, head) ? "ALREADY_CHARGED" : "CONFIRMING", terms, id, period, txHash);
  }

  #chargedBlock(id: Hex, period: bigint, blockNumber?: bigint): Promise<bigint> {
    return rpc(() =>
      this.deps.client.readContract({
        address: this.#contract,
        abi: recurringChargesAbi,
        functionName: "chargedBlock",
        args: [id, period],
        ...(blockNumber ? { blockNumber } : {}),
      }),
    );
  }

  #chargedLogs(id: Hex, period: bigint, block: bigint) {
    return rpc(() =>
      this.deps.client.getLogs({
        address: this.#contract,
        event: CHARGED_EVENT,
        args: { subscriptionId: id, periodIndex: period },
        fromBlock: block,
        toBlock: block,
        strict: true,
      }),
    );
  }

  async #chargeTx(id: Hex, period: bigint, block: bigint): Promise<Hex | undefined> {
    return (await this.#chargedLogs(id, period, block))[0]?.transactionHash;
  }

  async #checkFunds(terms: Terms, required: bigint): Promise<void> {
    const read = (functionName: "allowance" | "balanceOf", args: readonly [`0x${string}`] | readonly [`0x${string}`, `0x${string}`]) =>
      rpc(() => this.deps.client.readContract({ address: terms.token, abi: erc20Abi, functionName, args } as never) as Promise<bigint>);
    // Both in one batch; the allowance answers first.
    const [allowance, balance] = await Promise.allSettled([read("allowance", [terms.payer, this.#contract]), read("balanceOf", [terms.payer])]);
    if (settledValue(allowance) < required) throw new DomainError("INSUFFICIENT_ALLOWANCE");
    if (settledValue(balance) < required) throw new DomainError("INSUFFICIENT_BALANCE");
  }
}
