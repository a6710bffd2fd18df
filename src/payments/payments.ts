import { concat, toHex, type Address, type Hex } from "viem";
import { tokenDomain } from "../chain/token-authorizations.js";
import type { CreatePaymentResponse, RecoverPaymentResponse, ResolvePaymentResponse, VerifyPaymentResponse } from "../wire/index.js";
import { SplitterReader } from "../chain/contracts/splitter.js";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import { finalityHead, isSettled } from "../chain/finality.js";
import { checkTokenWillTransfer } from "../chain/token-refusals.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { ConcurrencyGate, RateLimiter } from "../limits/rate-limiter.js";
import { mintIntent, readIntent, type Intent } from "./intent.js";
import { checkReturnUrl } from "../rules/return-url.js";
import { checkRecipient } from "../rules/recipient.js";
import { recoverPayment } from "./recover.js";
import { paymentKeyOf, verifyPaymentTransaction, type PaymentChain } from "./verify.js";
import { DepositAddresses } from "./deposit-address.js";
import { depositVerdict } from "./deposit-verdict.js";
import type { DepositWatches } from "../store/deposit-watches.js";

export interface PaymentsDeps {
  chain: PaymentChain;
  tokens: CapabilityTokens;
  limits: { minUnits: bigint; maxUnits: bigint; intentTtlSeconds: number };
  /** Milliseconds since the epoch. */
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** Recovery: per-intent limit and low-priority gate. */
  recoverPerIntent: RateLimiter;
  recoverGate: ConcurrencyGate;
  /** Webhooks: notify_url rules and the watch registrar (false past the caps). */
  webhooks: {
    validate(notifyUrl: string): void;
    watchPayment(intent: Intent, notifyUrl: string, caller: string, included?: boolean): Promise<boolean>;
  };
  /** Whether the link an intent was minted through is still open (LINK_CLOSED if not); links implement it. */
  linkStatus?: { checkOpen(linkId: Hex): Promise<void> };
  /** The local chain allows a plain-http return_url (see returnUrlProblem). */
  localChain?: boolean;
  /** Payment addresses the service settles by itself (deposit-settler.ts): each new payment's is watched. */
  depositWatches?: DepositWatches;
}

/** How long after an intent expires its payment address is still watched (a slow exchange withdrawal still settles). */
export const DEPOSIT_WATCH_AFTER_EXPIRY_SECONDS = 7 * 86_400;

export type CreatedPayment = CreatePaymentResponse;

/** What a create asks for (the route's parsed body and the caller). */
export interface CreatePaymentInput {
  recipient: Address;
  amountUnits: bigint;
  notifyUrl?: string;
  notifyIncluded?: boolean;
  returnUrl?: string;
  caller: string;
}
export type ResolvedPayment = ResolvePaymentResponse;

/** One-time payments: create an intent, resolve it for the checkout, verify and recover its payment. */
export class Payments {
  readonly depositAddresses: DepositAddresses;

  constructor(private readonly deps: PaymentsDeps) {
    this.depositAddresses = new DepositAddresses(deps.chain);
  }

  /** Mints an intent for one payment of `amountUnits` to `recipient`, with a fresh 32-byte reference. */
  async create(input: CreatePaymentInput): Promise<CreatedPayment> {
    if (input.returnUrl !== undefined) checkReturnUrl(input.returnUrl, this.deps.localChain ?? false);
    if (input.notifyIncluded && input.notifyUrl === undefined) throw new DomainError("INVALID_REQUEST", { detail: "notify_included: needs notify_url" });
    if (input.notifyUrl !== undefined) this.deps.webhooks.validate(input.notifyUrl);
    return this.#mint(input);
  }

  /** A create's minting; a link's resolve also names the link and the reference. */
  async #mint(input: CreatePaymentInput & { linkId?: Hex; reference?: Hex }): Promise<CreatedPayment> {
    this.#checkBounds(input.amountUnits);
    const recipient = checkRecipient(this.deps.chain.deployment, input.recipient);
    const intent: Intent = {
      recipient,
      amountUnits: input.amountUnits,
      reference: input.reference ?? toHex(this.deps.randomBytes(32)),
      expiresAt: Math.floor(this.deps.now() / 1000) + this.deps.limits.intentTtlSeconds,
      ...(input.linkId ? { linkId: input.linkId } : {}),
      ...(input.returnUrl ? { returnUrl: input.returnUrl } : {}),
    };
    const depositAddress = await this.depositAddresses.of(intent);
    await this.deps.depositWatches?.add({
      depositAddress,
      recipient,
      amountUnits: intent.amountUnits,
      reference: intent.reference,
      watchUntil: intent.expiresAt + DEPOSIT_WATCH_AFTER_EXPIRY_SECONDS,
    });
    const accepted =
      input.notifyUrl === undefined ? false : await this.deps.webhooks.watchPayment(intent, input.notifyUrl, input.caller, input.notifyIncluded === true);
    const { deployment } = this.deps.chain;
    return {
      intent: mintIntent(this.deps.tokens, intent),
      reference: intent.reference,
      amount: formatAmount(intent.amountUnits),
      expires_at: intent.expiresAt,
      pay: {
        chain_id: deployment.chainId,
        splitter: deployment.contracts.Splitter.address,
        token: deployment.token.address,
        recipient: intent.recipient,
        amount_units: intent.amountUnits.toString(),
        reference: intent.reference,
        deposit_address: depositAddress,
      },
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
      ...(accepted && input.notifyIncluded ? { notify_included: true as const } : {}),
    };
  }

  /**
   * What the checkout needs to pay an intent. The only place expiry is enforced; when the intent's own
   * payment (same token, recipient, amount and reference) already settled, at or below the finality
   * head, it answers PAYMENT_ALREADY_PROCESSED (nothing is owed), even after expiry; mined above the
   * head it answers PAYMENT_CONFIRMING (WAIT: the buyer paid, do not pay again, ask later). A
   * look-alike payment of the same reference settles another key and leaves the intent payable.
   * An unpaid intent of a link that was closed or expired is LINK_CLOSED.
   */
  async resolve(token: string): Promise<ResolvedPayment> {
    const intent = this.#intent(token);
    const { client, deployment } = this.deps.chain;
    const settledBlock = await SplitterReader.of(this.deps.chain).settledBlock(paymentKeyOf(deployment.token.address, intent));
    if (settledBlock !== 0n) {
      const head = await finalityHead(client, this.deps.chain.finality);
      throw new DomainError(isSettled(settledBlock, head) ? "PAYMENT_ALREADY_PROCESSED" : "PAYMENT_CONFIRMING");
    }
    if (Math.floor(this.deps.now() / 1000) >= intent.expiresAt) throw new DomainError("INTENT_EXPIRED");
    // An intent minted through a link dies with the link (closed or expired): LINK_CLOSED.
    if (intent.linkId) {
      if (!this.deps.linkStatus) throw new DomainError("LINK_CLOSED");
      await this.deps.linkStatus.checkOpen(intent.linkId);
    }
    this.#checkBounds(intent.amountUnits);
    await this.#checkTokenWillTransfer(intent.recipient);
    return this.#resolved(intent, await this.depositAddresses.of(intent));
  }

  /**
   * What resolve answers for a payment through an open link (links call this): a fresh intent whose
   * reference is the link id followed by 16 random bytes, with the intent and the link id.
   */
  async resolveThroughLink(link: { linkId: Hex; recipient: Address; amountUnits: bigint; caller: string; returnUrl?: string }): Promise<ResolvedPayment> {
    await this.#checkTokenWillTransfer(link.recipient);
    const reference = concat([link.linkId, toHex(this.deps.randomBytes(16))]);
    const created = await this.#mint({
      recipient: link.recipient,
      amountUnits: link.amountUnits,
      caller: link.caller,
      linkId: link.linkId,
      reference,
      ...(link.returnUrl ? { returnUrl: link.returnUrl } : {}),
    });
    const intent: Intent = {
      recipient: link.recipient,
      amountUnits: link.amountUnits,
      reference,
      expiresAt: created.expires_at,
      linkId: link.linkId,
      ...(link.returnUrl ? { returnUrl: link.returnUrl } : {}),
    };
    return { ...this.#resolved(intent, created.pay.deposit_address), intent: created.intent, link_id: link.linkId };
  }

  /** The resolve answer for an intent, with its payment address. */
  #resolved(intent: Intent, depositAddress: Address): ResolvedPayment {
    const { deployment } = this.deps.chain;
    return {
      recipient: intent.recipient,
      amount: formatAmount(intent.amountUnits),
      amount_units: intent.amountUnits.toString(),
      token: deployment.token.address,
      splitter: deployment.contracts.Splitter.address,
      chain_id: deployment.chainId,
      reference: intent.reference,
      expires_at: intent.expiresAt,
      token_domain: tokenDomain(deployment.chainId, deployment.token.address, deployment.token.eip712),
      deposit_address: depositAddress,
      ...(intent.returnUrl ? { return_url: intent.returnUrl } : {}),
    };
  }

  /** Verifies a transaction against the intent (expiry ignored). */
  async verify(token: string, txHash: Hex): Promise<VerifyPaymentResponse> {
    const intent = this.#intent(token);
    const depositAddress = await this.depositAddresses.of(intent);
    const verdict = await verifyPaymentTransaction(this.deps.chain, intent, txHash, depositAddress);
    return "deposit" in verdict ? depositVerdict(this.deps.chain, intent, depositAddress) : verdict;
  }

  /** Finds the intent's payment without a hash; limited per intent and run at low priority. */
  async recover(token: string): Promise<RecoverPaymentResponse> {
    const intent = this.#intent(token);
    const limited = await this.deps.recoverPerIntent.hit(intent.reference);
    if (!limited.allowed) throw new DomainError("RATE_LIMITED", { retryAfter: limited.retryAfterSeconds });
    const depositAddress = await this.depositAddresses.of(intent);
    const result = await this.deps.recoverGate.run(() => recoverPayment(this.deps.chain, intent, depositAddress));
    if (!result) throw new DomainError("RECOVERY_UNAVAILABLE", { detail: "recovery queue full" });
    return result.value;
  }

  /** A checkout must not take a payment that will revert: the token's refusals, before the buyer signs. */
  #checkTokenWillTransfer(recipient: Address): Promise<void> {
    const { client, deployment } = this.deps.chain;
    return checkTokenWillTransfer(client, deployment.token.address, [recipient, deployment.parameters.feeCollector, deployment.contracts.Splitter.address]);
  }

  #intent(token: string): Intent {
    const intent = readIntent(this.deps.tokens, token);
    if (!intent) throw new DomainError("INVALID_INTENT");
    return intent;
  }

  #checkBounds(units: bigint): void {
    if (units < this.deps.limits.minUnits || units > this.deps.limits.maxUnits) throw new DomainError("AMOUNT_OUT_OF_BOUNDS");
  }
}
