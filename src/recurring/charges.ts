import type { Address, Hex, PublicClient } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import type { ConcurrencyGate } from "../limits/rate-limiter.js";
import { rpc } from "../chain/rpc-errors.js";
import { refuseTransfer } from "../chain/token-refusals.js";
import type { ChargeAttempt, ChargeAttempts } from "../store/charge-attempts.js";
import type { RefusedChargePayers } from "../store/refused-charge-payers.js";
import { chargeRefusal } from "./charge-errors.js";
import { checkPayerFunds } from "./payer-funds.js";
import { reimbursementFor, transactionCostUnits, type FeeQuote, type GasPricing } from "./gas-quote.js";
import { l1FeeWithMargin } from "../chain/l1-fee.js";
import { POOL_WINDOW, type Relayer } from "./relayer.js";
import type { SubscriptionCapabilities } from "./capabilities.js";
import { alreadyChargedAnswer, answerWithoutRelayer, refuseNearClose } from "./charge-answers.js";
import { ChargeViews, settledValue } from "./charge-view.js";
import { followAttempt } from "./charge-follow.js";
import { ChargeBatcher } from "./charge-batcher.js";
import { ChargeTrials } from "./charge-trials.js";
import { measuredChargeGas, RENEWAL_GAS_FIGURE } from "./charge-gas.js";
import { CONTRACT_SIGNATURE_GAS_CAP, RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import type { Terms } from "./terms.js";
import type { SignedSubscription } from "./tokens.js";
import { majorityRead } from "../chain/majority-read.js";
import { chargeCalldata, termsWords } from "./charge-encoding.js";
import type { ChargeResponse, ChargeStatus } from "../wire/index.js";

export type { ChargeStatus };
/** A charge's answer: the wire's ChargeResponse. */
export type ChargeResult = ChargeResponse;

export interface ChargesDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  capabilities: SubscriptionCapabilities;
  attempts: ChargeAttempts;
  relayer: Relayer;
  pricing: GasPricing;
  /** Bounds the charges in flight and waiting in this instance. */
  gate: ConcurrencyGate;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Charges ready together go out in one chargeBatch of at most `maxItems`, after waiting up to `waitMs` for company. */
  batch: { maxItems: number; waitMs: number };
  /** Payers refused for a while after a charge of theirs failed on chain (charge-follow.ts says which failures). */
  refusedPayers: RefusedChargePayers;
}

/** How long a payer's charges are refused after one passed its simulation and failed on chain (as x402's reverted payers). */
export const CHARGE_FAILED_PAYER_REFUSAL_MS = 60 * 60_000;

/** A renewal's gas: the dearest renewal measured on real USDC (snapshots/gas.json). */
const RENEWAL_GAS = measuredChargeGas(undefined, RENEWAL_GAS_FIGURE);
/** A refusal for the payer's funds (allowance or balance), which a smaller reimbursement might clear. */
function isShortOfFunds(refusal: DomainError | null): boolean {
  return refusal?.code === "INSUFFICIENT_ALLOWANCE" || refusal?.code === "INSUFFICIENT_BALANCE";
}

/** A charge's simulation: the call simulated, and the subscription's paid count after it (or why it reverts). */
interface Simulated {
  call: { address: Address; abi: typeof recurringChargesAbi; functionName: "charge"; args: readonly [Terms, Hex, bigint, bigint] };
  read: PromiseSettledResult<number>;
}

/** Until when a payer's charges are refused (null: not refused), read or failed. */
type RefusedRead = [PromiseSettledResult<number | null>];

/** The `charge` call of `terms` for `period` with `reimbursement`. */
function chargeCallOf(contract: Address, terms: Terms, signature: Hex, reimbursement: bigint, period: bigint): Simulated["call"] {
  return { address: contract, abi: recurringChargesAbi, functionName: "charge", args: [terms, signature, reimbursement, period] } as const;
}

/** Charges simulated together in one trial call: a trial's gas stays far under a transaction's cap. */
const TRIAL_MAX_ITEMS = 100;

/** Charge records per storage slot (RecurringCharges packs six): period 6k opens a slot. */
const RECORDS_PER_SLOT = 6n;

/**
 * Recurring charges. One transaction per (subscription, period), recorded in the store before it is
 * broadcast: a repeated or restarted call follows the recorded transaction (charge-follow.ts:
 * CONFIRMING while unsettled, CHARGED once settled, ALREADY_CHARGED after) and never sends a second
 * one. Every refusal is answered from a read or a simulation before anything is sent. Replacing stuck
 * transactions is stuck-charges.ts's job; finding a lost charge, charge-recovery.ts's.
 */
export class Charges {
  readonly #busy = new Set<Hex>();

  readonly #reader: RecurringChargesReader;

  readonly #batcher: ChargeBatcher;

  readonly #views: ChargeViews;

  #trialsOf: { relayer: Address; trials: ChargeTrials } | null = null;

  constructor(private readonly deps: ChargesDeps) {
    this.#reader = RecurringChargesReader.of(deps);
    this.#views = new ChargeViews({
      client: deps.client,
      deployment: deps.deployment,
      pricing: deps.pricing,
      relayer: deps.relayer,
      contract: this.#reader.address,
      now: deps.now,
    });
    this.#batcher = new ChargeBatcher({
      contract: this.#reader.address,
      attempts: deps.attempts,
      relayer: deps.relayer,
      now: deps.now,
      ...deps.batch,
      perBlock: POOL_WINDOW,
      pricing: deps.pricing,
      quoteL1Fee: (data) => this.#views.batchL1Fee(data),
    });
  }

  /** The trials of the relayer's charges (charge-trials.ts). */
  #trials(relayer: Address): ChargeTrials {
    if (this.#trialsOf?.relayer !== relayer)
      this.#trialsOf = {
        relayer,
        trials: new ChargeTrials({
          client: this.deps.client,
          contract: this.#contract,
          relayer,
          feeCollector: this.deps.deployment.parameters.feeCollector,
          maxItems: TRIAL_MAX_ITEMS,
          now: this.deps.now,
        }),
      };
    return this.#trialsOf.trials;
  }

  get #contract() {
    return this.#reader.address;
  }

  get #chain() {
    return { client: this.deps.client, finality: this.deps.finality, contract: this.#reader };
  }

  get #followDeps() {
    return {
      ...this.#chain,
      attempts: this.deps.attempts,
      broadcast: (raw: Hex) => this.deps.relayer.broadcast(raw),
      refusePayer: (payer: Address) => {
        const now = this.deps.now();
        return this.deps.refusedPayers.refuse(payer, now + CHARGE_FAILED_PAYER_REFUSAL_MS, now);
      },
    };
  }

  async charge(token: string): Promise<ChargeResult> {
    const signed = this.deps.capabilities.read(token);
    const words = termsWords(signed.terms);
    const id = this.deps.capabilities.subscriptionIdOfWords(words);
    if (this.#busy.has(id)) throw new DomainError("CONCURRENCY_LIMIT");
    this.#busy.add(id);
    try {
      // Bounded: past the charges running and waiting, 429 CONCURRENCY_LIMIT before anything is read or spent.
      const ran = await this.deps.gate.run(() => this.#charge(signed, id, words));
      if (!ran) throw new DomainError("CONCURRENCY_LIMIT", { detail: "the charge queue is full" });
      return ran.value;
    } finally {
      this.#busy.delete(id);
    }
  }

  async #charge({ terms, signature }: SignedSubscription, id: Hex, words: string): Promise<ChargeResult> {
    const { client, attempts, relayer } = this.deps;
    const relayerAddress = relayer.address;
    const { read, l1Fee: quoteL1FeeOf } = this.#views.current();
    // While the view is read, the period it will most likely name (the chain's time as the last view
    // and this host's clock tell it) is looked up in the store and, with no charge recorded for it,
    // tried: a renewal's reads then take one round trip's time, not three in a row. Only the view
    // decides: a period it does not confirm is looked up and tried again, and the guess is dropped.
    const early = this.#earlyReads(terms, signature, id, words);
    const [blockRead, feesRead, balanceRead, pendingRead, sharedTokenRead] = await read;
    const block = settledValue(blockRead);
    const now = block.timestamp;
    if (now < terms.start) throw new DomainError("NOT_DUE", { retryAfter: Number(terms.start - now) });
    const period = (now - terms.start) / terms.period;
    const guessed = early?.period === period ? early : null;

    const attempt = await (guessed?.found ?? attempts.find(id, period));
    if (attempt) {
      const followed = await followAttempt(this.#followDeps, terms, id, period, attempt);
      if (followed) return followed;
    }

    if (!relayerAddress) return answerWithoutRelayer(this.#chain, terms, id, period, block);

    // One more round trip: the L1 data fee of the charge (priced with the largest reimbursement the
    // terms allow in its calldata; one quote per calldata length for the charges sharing the view),
    // and the charge simulated from the relayer with that largest reimbursement. The simulation is a
    // trial shared with the charges in flight (charge-trials.ts: one chargeBatch eth_call for all of
    // them); a charge whose trial did not pass is simulated alone, which names every on-chain refusal
    // (the token's own included: a blacklisted payer or recipient, funds short of the amount and the
    // reimbursement, classified in the token table). Either answers whether this is a renewal
    // (`paidCount` > 1), whose gas is the measured one. A first charge's gas depends on the payer's
    // signature check (an ERC-1271 account's code), so it alone is estimated, in one more round trip.
    // Funds that cover the amount but not the largest reimbursement are simulated again without one
    // and read, to charge what the charge really costs.
    const cap = terms.maxGasReimbursement;
    const simulate = (reimbursement: bigint) => this.#simulate(terms, signature, period, reimbursement, relayerAddress);
    // Read alongside: whether a charge of this payer's failed on chain lately (nothing is sent then).
    const [[l1FeeRead], capped, [refusedRead]] = await Promise.all([
      Promise.allSettled([quoteL1FeeOf(chargeCalldata({ terms: words, signature, gasReimbursement: cap, expectedPeriod: period }))]),
      // The early reads, unless a recorded charge (followed above and found wanting) held them back.
      (guessed?.tried ?? Promise.resolve(null)).then((early) => early ?? this.#tried(terms, signature, id, words, period, relayerAddress)),
      (guessed?.refused ?? Promise.resolve(null)).then((early) => early ?? this.#refusedUntil(terms)),
    ]);
    let { call, read: simulation } = capped;
    let fundsRead = false;
    if (simulation.status === "rejected" && cap > 0n && isShortOfFunds(chargeRefusal(simulation.reason, terms.start - now))) {
      ({ call, read: simulation } = await simulate(0n));
      fundsRead = true;
    }
    const l1Fee = l1FeeRead.status === "fulfilled" ? l1FeeWithMargin(l1FeeRead.value) : null;

    if (simulation.status === "rejected") {
      const refusal = chargeRefusal(simulation.reason, terms.start - now);
      // The subscription's own state answers first, as it always has: revoked, ended, or this period
      // charged already (by another instance, or a charge this store no longer follows).
      if (refusal?.code === "PERMISSION_REVOKED" || refusal?.code === "SUBSCRIPTION_EXPIRED") throw refusal;
      if (!refusal) return alreadyChargedAnswer(this.#chain, terms, id, period);
      refuseNearClose(terms, period, now);
      refuseTransfer(settledValue(sharedTokenRead));
      // A relayer that cannot pay the L1 fee: EDR's OP mode takes it from the sender even in a
      // simulation and refuses without a revert. It could not send anyway.
      if (refusal.code === "RPC_ERROR" && l1Fee !== null) relayer.ensureAvailable(0n, 0n, settledValue(balanceRead), l1Fee);
      throw refusal;
    }
    refuseNearClose(terms, period, now);
    // A payer whose charge passed its simulation and failed on chain lately: its simulation passing
    // again proves nothing, so nothing is sent until the refusal ends.
    const refusedUntil = settledValue(refusedRead);
    if (refusedUntil !== null) {
      throw new DomainError("TRANSACTION_REVERTED", {
        detail: "a charge of this payer's passed its simulation and failed on chain: none of theirs is sent for a while",
        retryAfter: Math.max(1, Math.ceil((refusedUntil - this.deps.now()) / 1000)),
      });
    }
    // The token's refusals shared by every charge (the fee collector or the contract blacklisted, the
    // token paused), named before anything is sent.
    refuseTransfer(settledValue(sharedTokenRead));
    if (feesRead.status === "rejected") throw new DomainError("GAS_QUOTE_UNAVAILABLE", { cause: feesRead.reason });
    if (l1FeeRead.status === "rejected" || l1Fee === null)
      throw new DomainError("GAS_QUOTE_UNAVAILABLE", { cause: (l1FeeRead as PromiseRejectedResult).reason });
    const fees: FeeQuote = feesRead.value;

    const renewal = simulation.value > 1;
    let gas = (RENEWAL_GAS * 12n) / 10n;
    let signatureRoom = 0n;
    if (!renewal) {
      // With the estimate, whether the payer has code: an ERC-1271 check runs on chain with up to the
      // contract's cap, whatever it used in the estimate, and a batch sets that much aside for it.
      const [estimate, code] = await Promise.allSettled([
        client.estimateContractGas({ ...call, account: relayerAddress }),
        rpc(() => client.getCode({ address: terms.payer })),
      ]);
      if (estimate.status === "rejected") {
        const refusal = chargeRefusal(estimate.reason, terms.start - now);
        if (refusal?.code === "RPC_ERROR") relayer.ensureAvailable(0n, 0n, settledValue(balanceRead), l1Fee);
        if (refusal) throw refusal;
        // PeriodAlreadyCharged: charged since the simulation (another instance, another relayer).
        return alreadyChargedAnswer(this.#chain, terms, id, period);
      }
      gas = (estimate.value * 12n) / 10n;
      const payerCode = settledValue(code);
      // The contract's cap, not the setting: a lower setting only narrows finalize's own check, and the
      // chain still lets the account's check run to the contract's cap.
      if (payerCode !== undefined && payerCode !== "0x") signatureRoom = CONTRACT_SIGNATURE_GAS_CAP;
    }
    // The whole cost: L2 gas and the L1 data fee (on Base usually the larger part when L1 is busy).
    const reimbursement = reimbursementFor(transactionCostUnits(gas, fees.expectedPerGas, l1Fee, this.deps.pricing), terms.networkFee);
    if (reimbursement > cap) throw new DomainError("GAS_TOO_HIGH");
    // Simulated with the largest reimbursement, the funds cover this one; simulated without, read them.
    if (fundsRead && reimbursement > 0n) await this.#checkFunds(terms, terms.amount + reimbursement);
    relayer.ensureAvailable(gas, fees.maxFeePerGas, settledValue(balanceRead), l1Fee);
    // Sent alone, or with the other charges ready at the same moment in one chargeBatch (charge-batcher.ts).
    return this.#batcher.submit({
      terms,
      words,
      signature,
      id,
      period,
      reimbursement,
      gas,
      // Its share of a batch is priced by the batch (charge-gas.ts): a renewal's from the measured
      // figures by what it touches first there, a first charge's from its own estimate.
      renewal,
      signatureRoom,
      newSlot: period % RECORDS_PER_SLOT === 0n,
      expectedPerGas: fees.expectedPerGas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      l1Fee,
      balance: settledValue(balanceRead),
      pending: Number(settledValue(pendingRead)),
      blockGasLimit: block.gasLimit,
    });
  }

  /**
   * The store's record of the period the chain's time most likely is in, and when none is recorded
   * the charge's trial and whether its payer is refused, started before the view answers; null when
   * no period is due by that guess.
   */
  #earlyReads(
    terms: Terms,
    signature: Hex,
    id: Hex,
    words: string,
  ): {
    period: bigint;
    found: Promise<ChargeAttempt | null>;
    tried: Promise<Simulated | null> | null;
    refused: Promise<RefusedRead | null>;
  } | null {
    const time = this.#views.chainTime(this.deps.now());
    // A guess naming a period the chain has not reached would fail its trial and keep the
    // subscription out of trials: when a period's edge has passed on this host's clock since the last
    // view, the view decides first.
    if (time === null || time.seen < terms.start) return null;
    const period = (time.guessed - terms.start) / terms.period;
    if ((time.seen - terms.start) / terms.period !== period) return null;
    const found = this.deps.attempts.find(id, period);
    const relayerAddress = this.deps.relayer.address;
    // A recorded charge is followed, never tried: a trial of a period already charged would fail its group.
    const tried = relayerAddress ? found.then((attempt) => (attempt ? null : this.#tried(terms, signature, id, words, period, relayerAddress))) : null;
    const refused = found.then((attempt) => (attempt ? null : this.#refusedUntil(terms)));
    // A guess the view does not confirm is dropped unread: its failures are nobody's answer.
    found.catch(() => {});
    tried?.catch(() => {});
    refused.catch(() => {});
    return { period, found, tried, refused };
  }

  /** Until when the payer's charges are refused after one of theirs failed on chain (null: not refused), read or failed. */
  #refusedUntil(terms: Terms): Promise<RefusedRead> {
    return Promise.allSettled([this.deps.refusedPayers.refusedUntil(terms.payer, this.deps.now())]);
  }

  /** The charge with the largest reimbursement its terms allow, tried with the charges in flight (charge-trials.ts), or simulated alone when its trial did not pass. */
  async #tried(terms: Terms, signature: Hex, id: Hex, words: string, period: bigint, relayer: Address): Promise<Simulated> {
    const cap = terms.maxGasReimbursement;
    const passed = await this.#trials(relayer).trial({ terms, words, signature, gasReimbursement: cap, expectedPeriod: period }, id);
    if (!passed) return this.#simulate(terms, signature, period, cap, relayer);
    return { call: chargeCallOf(this.#contract, terms, signature, cap, period), read: { status: "fulfilled", value: passed.paidCountBefore + 1 } };
  }

  /** The charge simulated alone from the relayer: a majority's answer, never one node's (majority-read.ts), since it decides a send or a refusal. */
  async #simulate(terms: Terms, signature: Hex, period: bigint, reimbursement: bigint, relayer: Address): Promise<Simulated> {
    const call = chargeCallOf(this.#contract, terms, signature, reimbursement, period);
    const [read] = await Promise.allSettled([majorityRead(this.deps.client, (c) => c.simulateContract({ ...call, account: relayer }).then((r) => r.result))]);
    return { call, read: read.status === "fulfilled" ? { status: "fulfilled", value: read.value[1] } : read };
  }

  async #checkFunds(terms: Terms, required: bigint): Promise<void> {
    await checkPayerFunds(this.deps.client, { token: terms.token, spender: this.#contract, payer: terms.payer, required });
  }
}
