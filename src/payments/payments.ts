import { concat, toHex, type Address, type Hex } from "viem";
import { tokenDomain, type TokenDomain } from "../chain/token-authorizations.js";
import { splitterAbi } from "../generated/contracts.js";
import { ServiceError } from "../errors.js";
import { formatAmount } from "../money.js";
import { rpc } from "../chain/rpc-errors.js";
import { finalityHead, isSettled } from "../chain/finality.js";
import { checkTokenWillTransfer } from "../chain/token-refusals.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { ConcurrencyGate, RateLimiter } from "../limits/rate-limiter.js";
import type { OpenLink } from "../links/links.js";
import { mintIntent, readIntent, type Intent } from "./intent.js";
import { checkReturnUrl } from "./return-url.js";
import { checkRecipient } from "./recipient.js";
import { recoverPayment, type RecoverResult } from "./recover.js";
import { paymentKeyOf, verifyPaymentTransaction, type PaymentChain, type PaymentVerdict } from "./verify.js";

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
    watchPayment(intent: Intent, notifyUrl: string, caller: string): Promise<boolean>;
  };
  /** Payment links, for resolve with a link token. */
  links?: { open(linkToken: string): Promise<OpenLink>; checkOpen(linkId: Hex): Promise<void> };
  /** The local chain allows a plain-http return_url (see returnUrlProblem). */
  localChain?: boolean;
}

export interface CreatedPayment {
  intent: string;
  reference: Hex;
  amount: string;
  expires_at: number;
  pay: { chain_id: number; splitter: Address; token: Address; recipient: Address; amount_units: string; reference: Hex };
  notify_url?: string;
}

export interface ResolvedPayment {
  recipient: Address;
  amount: string;
  amount_units: string;
  token: Address;
  splitter: Address;
  chain_id: number;
  reference: Hex;
  expires_at: number;
  /** The token's EIP-712 domain (from deployments/<chain id>.json): what an EIP-3009 authorization or a permit is signed over. */
  token_domain: TokenDomain;
  /** Extension: the merchant's way back, when it gave one. */
  return_url?: string;
}

/** One-time payments: create an intent, resolve it for the checkout, verify and recover its payment. */
export class Payments {
  constructor(private readonly deps: PaymentsDeps) {}

  /** Mints an intent for one payment of `amountUnits` to `recipient`, with a fresh 32-byte reference. */
  async create(input: { recipient: Address; amountUnits: bigint; notifyUrl?: string; returnUrl?: string; caller: string }): Promise<CreatedPayment> {
    if (input.returnUrl !== undefined) checkReturnUrl(input.returnUrl, this.deps.localChain ?? false);
    if (input.notifyUrl !== undefined) this.deps.webhooks.validate(input.notifyUrl);
    return this.#mint(input);
  }

  async #mint(input: {
    recipient: Address;
    amountUnits: bigint;
    notifyUrl?: string;
    returnUrl?: string;
    caller: string;
    linkId?: Hex;
    reference?: Hex;
  }): Promise<CreatedPayment> {
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
    const accepted = input.notifyUrl === undefined ? false : await this.deps.webhooks.watchPayment(intent, input.notifyUrl, input.caller);
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
      },
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
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
  async resolve(token: string): Promise<ResolvedPayment | (ResolvedPayment & { intent: string; link_id: Hex })> {
    if (token.startsWith("lk.") && this.deps.links) return this.#resolveLink(token);
    const intent = this.#intent(token);
    const { client, deployment } = this.deps.chain;
    const settledBlock = await rpc(() =>
      client.readContract({
        address: deployment.contracts.Splitter.address,
        abi: splitterAbi,
        functionName: "settledBlock",
        args: [paymentKeyOf(deployment.token.address, intent)],
      }),
    );
    if (settledBlock !== 0n) {
      const head = await finalityHead(client, this.deps.chain.finality);
      throw new ServiceError(isSettled(settledBlock, head) ? "PAYMENT_ALREADY_PROCESSED" : "PAYMENT_CONFIRMING");
    }
    if (Math.floor(this.deps.now() / 1000) >= intent.expiresAt) throw new ServiceError("INTENT_EXPIRED");
    // An intent minted through a link dies with the link (closed or expired): LINK_CLOSED.
    if (intent.linkId) {
      if (!this.deps.links) throw new ServiceError("LINK_CLOSED");
      await this.deps.links.checkOpen(intent.linkId);
    }
    this.#checkBounds(intent.amountUnits);
    await this.#checkTokenWillTransfer(intent.recipient);
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
      ...(intent.returnUrl ? { return_url: intent.returnUrl } : {}),
    };
  }

  /** Verifies a transaction against the intent (expiry ignored). */
  verify(token: string, txHash: Hex): Promise<PaymentVerdict> {
    return verifyPaymentTransaction(this.deps.chain, this.#intent(token), txHash);
  }

  /** Finds the intent's payment without a hash; limited per intent and run at low priority. */
  async recover(token: string): Promise<RecoverResult> {
    const intent = this.#intent(token);
    const limited = await this.deps.recoverPerIntent.hit(intent.reference);
    if (!limited.allowed) throw new ServiceError("RATE_LIMITED", { retryAfter: limited.retryAfterSeconds });
    const result = await this.deps.recoverGate.run(() => recoverPayment(this.deps.chain, intent));
    if (!result) throw new ServiceError("RECOVERY_UNAVAILABLE", { detail: "recovery queue full" });
    return result.value;
  }

  /**
   * A payment through a link: a fresh intent whose reference is the link id followed by 16 random
   * bytes. Nothing is stored (anyone holding the link may resolve it, as often as they like): the
   * link's own watch covers every payment through it.
   */
  /** A checkout must not take a payment that will revert: the token's refusals, before the buyer signs. */
  #checkTokenWillTransfer(recipient: Address): Promise<void> {
    const { client, deployment } = this.deps.chain;
    return checkTokenWillTransfer(client, deployment.token.address, [recipient, deployment.parameters.feeCollector, deployment.contracts.Splitter.address]);
  }

  async #resolveLink(token: string) {
    const link = await this.deps.links!.open(token);
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
    const { deployment } = this.deps.chain;
    return {
      recipient: link.recipient,
      amount: created.amount,
      amount_units: created.pay.amount_units,
      token: deployment.token.address,
      splitter: deployment.contracts.Splitter.address,
      chain_id: deployment.chainId,
      reference,
      expires_at: created.expires_at,
      token_domain: tokenDomain(deployment.chainId, deployment.token.address, deployment.token.eip712),
      intent: created.intent,
      link_id: link.linkId,
      ...(link.returnUrl ? { return_url: link.returnUrl } : {}),
    };
  }

  #intent(token: string): Intent {
    const intent = readIntent(this.deps.tokens, token);
    if (!intent) throw new ServiceError("INVALID_INTENT");
    return intent;
  }

  #checkBounds(units: bigint): void {
    if (units < this.deps.limits.minUnits || units > this.deps.limits.maxUnits) throw new ServiceError("AMOUNT_OUT_OF_BOUNDS");
  }
}
