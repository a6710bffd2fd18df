import { getAddress, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { checksumAddress } from "../chain/keccak.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import { checkRecipient } from "../rules/recipient.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { CreateHoldResponse, HoldSentResponse, HoldStateResponse, ResolveHoldResponse } from "../wire/holds.js";
import { readHoldLog, type HoldLog } from "./hold-log.js";
import { findReclaim } from "./hold-reclaim.js";
import { paymentStates } from "./payment-state.js";
import { RangeCap } from "../payments/log-ranges.js";
import { holdFigures, payerOf, reclaimCall, recordedPayer, stepOnWire } from "./hold-state.js";
import type { HoldOperator } from "./operator.js";
import { holdAuthorizationTypedData, payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "./payment-info.js";
import { holdDeadlines, holdSalt, mintHold, paymentInfoOf, readHold, type HoldTerms } from "./terms.js";

export interface HoldsDeps {
  client: PublicClient;
  finality: Finality;
  deployment: LiveDeployment;
  /** The escrow and its EIP-3009 collector (deployments/<chain>.json's `authCapture`). */
  escrow: { escrow: Address; eip3009Collector: Address };
  operator: HoldOperator;
  tokens: CapabilityTokens;
  /** Milliseconds since the epoch. */
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** The amounts a hold may hold (the payments' bounds). */
  limits: { minUnits: bigint; maxUnits: bigint };
  checkoutUrl: string | null;
  /** The widest log range one read asks (LOG_RANGE_SECONDS in blocks): the one search a hold's state may need, its reclaim's. */
  logRangeBlocks: bigint;
  /** Webhooks: notify_url rules and the watch registrar (false past the caps). */
  webhooks: {
    validate(notifyUrl: string): void;
    watchHold(holdId: Hex, notifyUrl: string, caller: string, watchUntil: number): Promise<boolean>;
  };
}

/**
 * Holds for merchants, without accounts: each hold's terms live in its two capabilities (the
 * merchant's `ho`, the buyer's `hc`), its state on chain (the escrow's events, the token's record of
 * the buyer's authorization). The service stores nothing of a hold but its operator calls in flight
 * (and a watch, for a hold made with notify_url).
 */
export class Holds {
  /** What this node accepts for one log range, learned once for every reclaim search. */
  readonly #cap = new RangeCap();

  constructor(private readonly deps: HoldsDeps) {}

  /** POST /v1/holds. One read of the head (cached by the client a few seconds), so a stranger repeating it costs no chain work that grows. */
  async create(input: { recipient: Address; amountUnits: bigint; captureBefore: number; refundBefore: number; notifyUrl?: string; caller: string }) {
    const { deployment, limits } = this.deps;
    const recipient = checkRecipient(deployment, input.recipient);
    const refused = [this.deps.escrow.escrow, this.deps.escrow.eip3009Collector, this.#operator()];
    if (refused.some((a) => a.toLowerCase() === recipient.toLowerCase())) {
      throw new DomainError("INVALID_REQUEST", { detail: "recipient: the escrow, its collector or the operator" });
    }
    if (input.amountUnits < limits.minUnits || input.amountUnits > limits.maxUnits) throw new DomainError("AMOUNT_OUT_OF_BOUNDS");
    const nowSeconds = this.#nowSeconds();
    const { authorizeBefore } = holdDeadlines(nowSeconds, input.captureBefore, input.refundBefore);
    if (input.notifyUrl !== undefined) this.deps.webhooks.validate(input.notifyUrl);
    const fromBlock = await this.deps.client.getBlockNumber();
    const terms: HoldTerms = {
      recipient,
      amountUnits: input.amountUnits,
      authorizeBefore,
      captureBefore: input.captureBefore,
      refundBefore: input.refundBefore,
      salt: holdSalt(this.deps.randomBytes),
      fromBlock,
      operator: this.#operator(),
      feeBps: deployment.parameters.feeBps,
      feeReceiver: deployment.parameters.feeCollector,
    };
    const { hold, checkout } = mintHold(this.deps.tokens, terms);
    const holdId = this.#holdId(terms);
    const watched = input.notifyUrl === undefined ? false : await this.deps.webhooks.watchHold(holdId, input.notifyUrl, input.caller, terms.refundBefore);
    const answer: CreateHoldResponse = {
      hold,
      checkout_token: checkout,
      checkout_url: this.deps.checkoutUrl ? `${this.deps.checkoutUrl.replace(/\/$/, "")}/#/hold/${checkout}` : null,
      ...this.#terms(terms),
      ...(watched ? { notify_url: input.notifyUrl! } : {}),
    };
    return answer;
  }

  /** POST /v1/holds/resolve: what `payer` signs to authorize the hold. Reads nothing but the token: no store, no chain. */
  resolve(token: string, payer: Address): ResolveHoldResponse {
    const terms = this.#open(token, false);
    this.#beforeAuthorizeDeadline(terms);
    const info = this.#info(terms, checksumAddress(payer));
    const typed = holdAuthorizationTypedData(info, info.payer, this.#chain());
    return {
      ...this.#terms(terms),
      collector: this.deps.escrow.eip3009Collector,
      payment_info: infoOnWire(info),
      typed_data: {
        domain: typed.domain,
        types: { EIP712Domain: [...typed.types.EIP712Domain], ReceiveWithAuthorization: [...typed.types.ReceiveWithAuthorization] },
        primaryType: typed.primaryType,
        message: {
          from: typed.message.from,
          to: typed.message.to,
          value: typed.message.value.toString(),
          validAfter: typed.message.validAfter.toString(),
          validBefore: typed.message.validBefore.toString(),
          nonce: typed.message.nonce,
        },
      },
    };
  }

  /**
   * POST /v1/holds/authorize: the buyer's signature, sent as the escrow's `authorize`. Garbage costs a
   * simulation (refused: nothing signed, nothing stored); a replay of a good one is refused by the
   * escrow's own record (HOLD_ALREADY_AUTHORIZED) or, while the first is in flight, HOLD_BUSY.
   */
  async authorize(token: string, payer: Address, signature: Hex, caller?: string): Promise<HoldSentResponse> {
    const terms = this.#open(token, false);
    this.#beforeAuthorizeDeadline(terms);
    const info = this.#info(terms, checksumAddress(payer));
    // Each payer's authorization is another payment to the escrow: a second buyer's would lock its funds where no capture reaches them.
    // (This payer's call still in flight is HOLD_BUSY, from the operator.)
    if (!(await this.deps.operator.inFlight(info)) && (await this.#payer(terms, true))) {
      throw new DomainError("HOLD_ALREADY_AUTHORIZED", { detail: "a payer authorized this hold" });
    }
    return this.#sent(await this.deps.operator.authorize(info, signature, caller === undefined ? {} : { caller }), terms);
  }

  /** POST /v1/holds/capture: `amount` of what is authorized (partial, repeatable), the deployment's fee to the fee collector. */
  async capture(token: string, amountUnits: bigint): Promise<HoldSentResponse> {
    const terms = this.#open(token, true);
    if (amountUnits <= 0n) throw new DomainError("INVALID_REQUEST", { detail: "amount: at least 1 unit" });
    if (amountUnits > terms.amountUnits) throw new DomainError("HOLD_AMOUNT_EXCEEDS_AUTHORIZED", { detail: "more than the hold's amount" });
    if (this.#nowSeconds() >= terms.captureBefore) throw new DomainError("HOLD_EXPIRED", { detail: "capture_before passed" });
    const info = await this.#authorizedInfo(terms);
    // Each capture is a transaction the relayer pays for: below the smallest payment only what is left.
    if (amountUnits < this.deps.limits.minUnits && amountUnits !== (await this.#capturable(info))) {
      throw new DomainError("AMOUNT_OUT_OF_BOUNDS", { detail: "a capture below the smallest payment must take all that is left" });
    }
    return this.#sent(await this.deps.operator.capture(info, amountUnits), terms);
  }

  /** POST /v1/holds/void: everything still authorized back to the buyer (never refused by the relayer's budget, which counts it). */
  async void(token: string, caller?: string): Promise<HoldSentResponse> {
    const terms = this.#open(token, true);
    const info = await this.#authorizedInfo(terms);
    return this.#sent(await this.deps.operator.void(info, caller === undefined ? {} : { caller }), terms);
  }

  /** POST /v1/holds/state: the hold as the chain holds it (final steps through the door), its call in flight, and the buyer's reclaim once it is due. */
  async state(token: string): Promise<HoldStateResponse> {
    const terms = this.#open(token, false);
    const { client, escrow } = this.deps;
    const payer = await this.#payer(terms);
    const info = payer ? this.#info(terms, payer) : null;
    const log = info ? await this.log(info) : { final: [], confirming: [], asOfBlock: await client.getBlockNumber() };
    const figures = holdFigures(log.final, terms, this.#nowSeconds());
    const inFlight = info ? await this.deps.operator.inFlight(info) : null;
    return {
      ...this.#terms(terms),
      state: figures.state,
      payer,
      authorized_units: figures.authorized.toString(),
      captured_units: figures.captured.toString(),
      fee_units: figures.fee.toString(),
      capturable_units: figures.capturable.toString(),
      voided_units: figures.voided.toString(),
      reclaimed_units: figures.reclaimed.toString(),
      steps: [...log.final.map((e) => stepOnWire(e, true)), ...log.confirming.map((e) => stepOnWire(e, false))],
      in_flight: inFlight ? { operation: inFlight.operation, tx_hash: inFlight.hash } : null,
      reclaim: info && figures.state === "EXPIRED" ? reclaimCall(escrow.escrow, info) : null,
      as_of_block: log.asOfBlock.toString(),
    };
  }

  /** The hold's terms and its payer as the final authorization names them (HOLD_NOT_AUTHORIZED before one is mined). */
  async #authorizedInfo(terms: HoldTerms): Promise<PaymentInfo> {
    const payer = await this.#payer(terms);
    if (!payer) throw new DomainError("HOLD_NOT_AUTHORIZED");
    return this.#info(terms, payer);
  }

  /**
   * A hold's steps, from the receipts of the service's recorded calls for it (hold-log.ts), and past
   * its capture deadline with funds left by them, the buyer's reclaim (hold-reclaim.ts): no log range
   * from the hold's block to the head.
   */
  async log(info: PaymentInfo): Promise<HoldLog> {
    const { client, finality, deployment, escrow } = this.deps;
    const deps = { client, finality, escrow: escrow.escrow };
    const hash = paymentInfoHash(info, deployment.chainId, escrow.escrow);
    const calls = await this.deps.operator.recorded(info);
    const log = await readHoldLog(deps, hash, calls);
    const deadlines = { authorizeBefore: info.preApprovalExpiry, captureBefore: info.authorizationExpiry };
    if (this.#nowSeconds() < info.authorizationExpiry || holdFigures(log.final, deadlines, this.#nowSeconds()).capturable === 0n) return log;
    const reclaimed = await findReclaim(
      { client, escrow: escrow.escrow, cap: this.#cap, maxSpan: this.deps.logRangeBlocks },
      hash,
      log.final[0]?.blockNumber ?? 0n,
    );
    return reclaimed.length > 0 ? readHoldLog(deps, hash, calls, reclaimed) : log;
  }

  /** The buyer whose authorization of the hold the escrow holds; null before one is mined. */
  payer(terms: HoldTerms): Promise<Address | null> {
    return this.#payer(terms);
  }

  /**
   * The buyer whose authorization the service sent (its recorded calls: recordedPayer); where this
   * service's store recorded none, the token's record within the authorize window (payerOf).
   */
  async #payer(terms: HoldTerms, confirmLone = false): Promise<Address | null> {
    const { client, deployment, escrow } = this.deps;
    const hashOf = (payer: Address) => paymentInfoHash(this.#info(terms, payer), deployment.chainId, escrow.escrow);
    const calls = await this.deps.operator.recorded(this.#info(terms, zeroAddress));
    const recorded = calls.length > 0 ? await recordedPayer(client, escrow.escrow, calls, hashOf) : null;
    if (recorded) return recorded;
    return payerOf(client, deployment.token.address, this.#holdId(terms), terms.fromBlock, deployment.chainId, {
      escrow: escrow.escrow,
      hashOf: (payer) => paymentInfoHash(this.#info(terms, payer), deployment.chainId, escrow.escrow),
      confirmLone,
    });
  }

  /**
   * What the escrow still holds capturable for the payment (its own ledger; a refusal, never a
   * verdict, stands on it), as a majority of the nodes answer it at a block they all reached.
   */
  async #capturable(info: PaymentInfo): Promise<bigint> {
    const { client, deployment, escrow } = this.deps;
    const hash = paymentInfoHash(info, deployment.chainId, escrow.escrow);
    return (await paymentStates(client, escrow.escrow, [hash]))[0]!.capturable;
  }

  /** Reads a capability, merchant's only where `merchantOnly`. */
  #open(token: string, merchantOnly: boolean): HoldTerms {
    return readHold(this.deps.tokens, token, merchantOnly);
  }

  /** The hold's terms with its service's parts (operator, token, fee) and the opened capability's: shared with the refunds and the list. */
  terms(token: string, merchantOnly: boolean): { terms: HoldTerms; holdId: Hex; info: (payer: Address) => PaymentInfo } {
    const terms = this.#open(token, merchantOnly);
    return { terms, holdId: this.#holdId(terms), info: (payer) => this.#info(terms, payer) };
  }

  #beforeAuthorizeDeadline(terms: HoldTerms): void {
    if (this.#nowSeconds() >= terms.authorizeBefore) throw new DomainError("HOLD_EXPIRED", { detail: "authorize_before passed" });
  }

  #info(terms: HoldTerms, payer: Address): PaymentInfo {
    const { deployment } = this.deps;
    return paymentInfoOf(terms, payer, {
      operator: this.#operator(),
      token: deployment.token.address,
      feeBps: deployment.parameters.feeBps,
      feeReceiver: deployment.parameters.feeCollector,
    });
  }

  #holdId(terms: HoldTerms): Hex {
    return payerAgnosticHash(this.#info(terms, zeroAddress), this.deps.deployment.chainId, this.deps.escrow.escrow);
  }

  #operator(): Address {
    const operator = this.deps.operator.operator;
    if (!operator) throw new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key: no operator for holds" });
    return operator;
  }

  #chain() {
    const { deployment, escrow } = this.deps;
    return { chainId: deployment.chainId, escrow: escrow.escrow, collector: escrow.eip3009Collector, tokenEip712: deployment.token.eip712 };
  }

  #sent(sent: { hash: Hex; operation: string }, terms: HoldTerms): HoldSentResponse {
    return { hold_id: this.#holdId(terms), operation: sent.operation as HoldSentResponse["operation"], tx_hash: sent.hash, status: "SENT" };
  }

  #terms(terms: HoldTerms) {
    const { deployment } = this.deps;
    return {
      hold_id: this.#holdId(terms),
      chain_id: deployment.chainId,
      token: deployment.token.address,
      recipient: getAddress(terms.recipient),
      amount: formatAmount(terms.amountUnits),
      amount_units: terms.amountUnits.toString(),
      authorize_before: terms.authorizeBefore,
      capture_before: terms.captureBefore,
      refund_before: terms.refundBefore,
      fee_bps: terms.feeBps ?? deployment.parameters.feeBps,
      escrow: this.deps.escrow.escrow,
      operator: terms.operator ?? this.#operator(),
    };
  }

  #nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }
}

/** A PaymentInfo as the wire carries it (numbers that may pass 2^53 as decimal strings). */
export function infoOnWire(info: PaymentInfo) {
  return { ...info, maxAmount: info.maxAmount.toString(), salt: info.salt.toString() };
}
