import { getAddress, toHex, type Address, type Hex, type PublicClient } from "viem";
import { measuredChargeGas } from "./charge-gas.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import { formatAmount, mulDivUp } from "../money.js";
import { rpc } from "../chain/rpc-errors.js";
import { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import { checkPayerFunds } from "./payer-funds.js";
import { checkPayerSignature } from "./signature.js";
import { checkRecipient } from "../rules/recipient.js";
import { checkReturnUrl } from "../rules/return-url.js";
import { subscriptionState, TERMS_WALLET_TYPES, recurringDomain, type Terms } from "./terms.js";
import type { Offer, RecurringTokens } from "./tokens.js";
import type { SubscriptionCapabilities } from "./capabilities.js";
import { quoteFees, transactionCostUnits, type GasPricing } from "./gas-quote.js";
import { quoteL1Fee } from "../chain/l1-fee.js";
import { typicalChargeCall } from "./charge-calldata.js";
import type { ResolveSubscriptionResponse } from "../wire/index.js";

export interface RecurringSettings {
  minPeriodSeconds: number;
  maxAmountUnits: bigint;
  setupTtlSeconds: number;
  cancelTtlSeconds: number;
  approveTtlSeconds: number;
  maxGasReimbursementUnits: bigint;
  signatureGasCap: bigint;
}

export interface SubscriptionsDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  tokens: RecurringTokens;
  capabilities: SubscriptionCapabilities;
  settings: RecurringSettings;
  pricing: GasPricing;
  /** Optional webhooks for the subscription's charges and revocation. */
  webhooks: {
    validate(notifyUrl: string): void;
    hasRoom(caller: string): Promise<boolean>;
    watchSubscription(subscriptionId: Hex, terms: Terms, notifyUrl: string, caller: string, included?: boolean): Promise<boolean>;
  };
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** The local chain allows a plain-http return_url (src/rules/return-url.ts). */
  localChain?: boolean;
}

/** The gas of one charge for the indicative fee estimate: measured on real USDC (snapshots/gas.json, docs/gas.md). */
const CHARGE_GAS = measuredChargeGas();

/** The smallest subscription amount: the recipient must keep at least one unit after fee and network fee. */
export function amountFloor(feeBps: number, networkFeeUnits: bigint): bigint {
  return mulDivUp(networkFeeUnits, 10_000n, BigInt(10_000 - feeBps));
}

/** Subscriptions: create the terms, resolve them for the wallet, finalize the signature, read the state from the chain. */
export class Subscriptions {
  constructor(private readonly deps: SubscriptionsDeps) {}

  get contract(): Address {
    return this.deps.deployment.contracts.RecurringCharges.address;
  }

  get floorUnits(): bigint {
    const p = this.deps.deployment.parameters;
    return amountFloor(p.feeBps, BigInt(p.networkFeeUnits));
  }

  #nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  /**
   * The terms' start: the chain's clock (the contract's) when it is ahead of ours (a test chain moved
   * forward), else ours. Without an answer from the chain, ours.
   */
  async #chainNow(): Promise<number> {
    const ours = this.#nowSeconds();
    try {
      const block = await this.deps.client.getBlock({ blockTag: "latest" });
      return Math.max(ours, Number(block.timestamp));
    } catch {
      return ours;
    }
  }

  /** Mints a setup token for terms the payer will sign; the service makes the salt. */
  async create(input: {
    recipient: Address;
    amountUnits: bigint;
    period: number;
    end: number;
    notifyUrl?: string;
    notifyIncluded?: boolean;
    returnUrl?: string;
    caller: string;
  }) {
    const { settings, deployment } = this.deps;
    const { recipient, start } = await this.checkTerms(input);
    if (input.returnUrl !== undefined) checkReturnUrl(input.returnUrl, this.deps.localChain ?? false);
    if (input.notifyIncluded && input.notifyUrl === undefined) throw new DomainError("INVALID_REQUEST", { detail: "notify_included: needs notify_url" });
    if (input.notifyUrl !== undefined) this.deps.webhooks.validate(input.notifyUrl);
    const notifyUrl = input.notifyUrl !== undefined && (await this.deps.webhooks.hasRoom(input.caller)) ? input.notifyUrl : undefined;
    const offer = this.#offer({ ...input, recipient }, start);
    // One clock for a token's lifetime: set and enforced on the service's (the terms' start follows the chain's).
    const expiresAt = this.#nowSeconds() + settings.setupTtlSeconds;
    return {
      setup_token: this.deps.tokens.mintSetup(offer, expiresAt, {
        ...(notifyUrl ? { notifyUrl } : {}),
        ...(notifyUrl && input.notifyIncluded ? { notifyIncluded: true } : {}),
        ...(input.returnUrl ? { returnUrl: input.returnUrl } : {}),
      }),
      expires_at: expiresAt,
      chain_id: deployment.chainId,
      contract: this.contract,
      amount: formatAmount(offer.amount),
      salt: offer.salt,
      ...(notifyUrl ? { notify_url: notifyUrl } : {}),
      ...(notifyUrl && input.notifyIncluded ? { notify_included: true as const } : {}),
    };
  }

  /**
   * Refuses terms as create does (recipient, amount floor and ceiling, min period, an end in the
   * future) and returns the checked recipient and the start terms made now would have. Subscription
   * links check theirs with it.
   */
  async checkTerms(input: { recipient: Address; amountUnits: bigint; period: number; end: number }): Promise<{ recipient: Address; start: number }> {
    const { settings, deployment } = this.deps;
    const recipient = checkRecipient(deployment, input.recipient);
    if (input.amountUnits < this.floorUnits || input.amountUnits > settings.maxAmountUnits) throw new DomainError("AMOUNT_OUT_OF_BOUNDS");
    if (input.period < settings.minPeriodSeconds) throw new DomainError("INVALID_REQUEST", { detail: `period: below ${settings.minPeriodSeconds} s` });
    const start = await this.#chainNow();
    if (input.end !== 0 && input.end <= start) throw new DomainError("INVALID_REQUEST", { detail: "end: not in the future" });
    return { recipient, start };
  }

  #offer(input: { recipient: Address; amountUnits: bigint; period: number; end: number }, start: number): Offer {
    const { settings, deployment } = this.deps;
    return {
      recipient: input.recipient,
      amount: input.amountUnits,
      period: BigInt(input.period),
      start: BigInt(start),
      end: BigInt(input.end),
      salt: toHex(this.deps.randomBytes(32)),
      feeBps: deployment.parameters.feeBps,
      networkFee: BigInt(deployment.parameters.networkFeeUnits),
      maxGasReimbursement: settings.maxGasReimbursementUnits,
    };
  }

  /**
   * A visitor of a subscription link: fresh terms (their own salt, starting now) in a setup token that
   * names the link, resolved as {@link resolve} does, plus that `setup_token` and the `link_id`.
   * LINK_CLOSED when the link's end has passed (no terms could be charged).
   */
  async resolveThroughLink(link: { linkId: Hex; recipient: Address; amountUnits: bigint; period: number; end: number; returnUrl?: string }) {
    const { recipient, start } = await this.checkTerms(link).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === "INVALID_REQUEST") throw new DomainError("LINK_CLOSED");
      throw error;
    });
    const expiresAt = this.#nowSeconds() + this.deps.settings.setupTtlSeconds;
    const setupToken = this.deps.tokens.mintSetup(this.#offer({ ...link, recipient }, start), expiresAt, {
      linkId: link.linkId,
      ...(link.returnUrl ? { returnUrl: link.returnUrl } : {}),
    });
    return { ...(await this.resolve(setupToken)), setup_token: setupToken, link_id: link.linkId };
  }

  /** The terms and the exact EIP-712 typed data the wallet will show (the payer fills `payer`). */
  async resolve(setupToken: string): Promise<ResolveSubscriptionResponse> {
    const { offer, expiresAt, returnUrl } = this.#setup(setupToken, { enforceExpiry: true });
    if (offer.amount < this.floorUnits || offer.amount > this.deps.settings.maxAmountUnits) throw new DomainError("AMOUNT_OUT_OF_BOUNDS");
    const { deployment } = this.deps;
    return {
      ...this.#echo(offer),
      network_fee_estimate: await this.#networkFeeEstimate(offer),
      expires_at: expiresAt,
      ...(returnUrl ? { return_url: returnUrl } : {}),
      typed_data: {
        domain: recurringDomain(deployment.chainId, this.contract),
        // A copy the wire type can hold (the constant is read-only, as viem wants it).
        types: Object.fromEntries(Object.entries(TERMS_WALLET_TYPES).map(([name, fields]) => [name, [...fields]])),
        primaryType: "Terms" as const,
        message: {
          recipient: offer.recipient,
          token: deployment.token.address,
          amount: offer.amount.toString(),
          period: offer.period.toString(),
          start: offer.start.toString(),
          end: offer.end.toString(),
          salt: offer.salt,
          feeBps: offer.feeBps,
          networkFee: offer.networkFee.toString(),
          maxGasReimbursement: offer.maxGasReimbursement.toString(),
        },
      },
    };
  }

  /** Checks the payer's signature against the terms and returns the subscription capability. */
  /**
   * Checks the payer's signature against the terms and returns the subscription capability. A setup
   * minted by a subscription link is INVALID_SETUP_TOKEN here: its capability is kept against the link
   * (POST /v1/links/subscribe), never handed to whoever holds the public link.
   */
  async finalize(input: { setupToken: string; payer: Address; signature: Hex; caller: string }) {
    const setup = this.#setup(input.setupToken, { enforceExpiry: false });
    if (setup.linkId) throw new DomainError("INVALID_SETUP_TOKEN");
    const signed = await this.#signed(setup.offer, input);
    if (setup.notifyUrl)
      await this.deps.webhooks.watchSubscription(signed.subscriptionId, signed.terms, setup.notifyUrl, input.caller, setup.notifyIncluded === true);
    return signed.answer;
  }

  /**
   * Finalize for a setup a subscription link minted (INVALID_SETUP_TOKEN for any other): the same
   * signature check, and the link it names, for the link to keep the capability. Past its expiry
   * SETUP_TOKEN_EXPIRED: a link's place is taken with fresh terms only (an old setup's period may be
   * about to close, which would let a key hold a place it need not pay for).
   */
  async finalizeThroughLink(input: { setupToken: string; payer: Address; signature: Hex }) {
    const setup = this.#setup(input.setupToken, { enforceExpiry: true });
    if (!setup.linkId) throw new DomainError("INVALID_SETUP_TOKEN");
    return { linkId: setup.linkId, ...(await this.#signed(setup.offer, input)) };
  }

  /**
   * INSUFFICIENT_ALLOWANCE, then INSUFFICIENT_BALANCE, unless the payer's allowance to RecurringCharges
   * and its balance each cover the first charge's signed amount, read at the latest block: what a
   * subscription link asks before it keeps a subscriber, so that a key that could never pay adds no
   * row. The signed amount, not the gas reimbursement on top (priced at charge time, 0 by default):
   * a gate against payers that cannot pay, not a promise that the charge will pass. A contract
   * account (a Safe) is asked the same of its own address.
   */
  checkFirstChargeFunds(terms: { payer: Address; amount: bigint }): Promise<void> {
    return checkPayerFunds(this.deps.client, {
      token: this.deps.deployment.token.address,
      spender: this.contract,
      payer: terms.payer,
      required: terms.amount,
    });
  }

  async #signed(offer: Offer, input: { payer: Address; signature: Hex }) {
    const terms: Terms = { ...offer, payer: getAddress(input.payer), token: this.deps.deployment.token.address };
    const id = this.deps.capabilities.subscriptionId(terms);
    const signature = await checkPayerSignature(this.deps.client, terms.payer, id, input.signature, this.deps.settings.signatureGasCap);
    return {
      terms,
      subscriptionId: id,
      answer: {
        subscription: this.deps.tokens.mintSubscription({ terms, signature }),
        subscription_id: id,
        amount: formatAmount(terms.amount),
        period: Number(terms.period),
        end: Number(terms.end),
      },
    };
  }

  /** The subscription's state read from the chain (at the latest block, or `at`), with its terms echoed. A cancel token past its expiry reads nothing (CANCEL_TOKEN_EXPIRED). */
  async state(token: string, at?: { number: bigint; timestamp: bigint }) {
    const terms = this.deps.capabilities.readOrCancel(token);
    const id = this.deps.capabilities.subscriptionId(terms);
    // A caller reading many states at once (a link's subscribers) reads the head once and passes it.
    const block = at ?? (await rpc(() => this.deps.client.getBlock({ blockTag: "latest" })));
    const { lastPeriod, paidCount, revoked } = await RecurringChargesReader.of(this.deps).subscription(id, block.number);
    const now = block.timestamp;
    const state = subscriptionState({ revoked, paidCount }, terms.end, now);
    const periodIndex = now < terms.start ? null : (now - terms.start) / terms.period;
    const nextStart = periodIndex === null ? terms.start : terms.start + (periodIndex + 1n) * terms.period;
    return {
      ...this.#echo(terms),
      payer: terms.payer,
      subscription_id: id,
      state,
      lastPeriod: paidCount > 0 ? Number(lastPeriod) : null,
      paid_count: paidCount,
      period_index: periodIndex === null ? null : Number(periodIndex),
      next_period_at: state === "REVOKED" || (terms.end !== 0n && nextStart >= terms.end) ? null : Number(nextStart),
      as_of_block: block.number.toString(),
    };
  }

  #setup(token: string, options: { enforceExpiry: boolean }) {
    const setup = this.deps.tokens.readSetup(token);
    if (!setup) throw new DomainError("INVALID_SETUP_TOKEN");
    if (options.enforceExpiry && this.#nowSeconds() >= setup.expiresAt) throw new DomainError("SETUP_TOKEN_EXPIRED");
    return setup;
  }

  #echo(offer: Offer) {
    const { deployment } = this.deps;
    return {
      recipient: offer.recipient,
      amount: formatAmount(offer.amount),
      amount_units: offer.amount.toString(),
      period: Number(offer.period),
      start: Number(offer.start),
      end: Number(offer.end),
      token: deployment.token.address,
      chain_id: deployment.chainId,
      contract: this.contract,
      salt: offer.salt,
      max_gas_reimbursement: offer.maxGasReimbursement.toString(),
      fee_bps: offer.feeBps,
      network_fee: formatAmount(offer.networkFee),
      network_fee_units: offer.networkFee.toString(),
    };
  }

  /**
   * Indicative: what one charge of `offer` costs now, in the token: the measured gas at the next base
   * fee + tip, plus the L1 data fee of such a charge's transaction (both read in one round trip);
   * null when the chain cannot be asked.
   */
  async #networkFeeEstimate(offer: Offer): Promise<string | null> {
    try {
      const [fees, l1Fee] = await Promise.all([
        quoteFees(this.deps.client, this.deps.pricing),
        quoteL1Fee(this.deps.client, typicalChargeCall(this.contract, this.deps.deployment.token.address, offer)),
      ]);
      return formatAmount(transactionCostUnits(CHARGE_GAS, fees.expectedPerGas, l1Fee, this.deps.pricing));
    } catch {
      return null;
    }
  }
}
