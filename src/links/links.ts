import { toHex, type Address, type Hex } from "viem";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import { checkReturnUrl } from "../rules/return-url.js";
import { checkRecipient } from "../rules/recipient.js";
import type { LiveDeployment } from "../deployments.js";
import type { Payments } from "../payments/payments.js";
import type {
  CloseLinkResponse,
  CreateLinkResponse,
  FinalizeSubscriptionResponse,
  LinkSubscriptionsResponse,
  ResolvePaymentResponse,
  ResolveSubscriptionResponse,
  SubscribeLinkResponse,
} from "../wire/index.js";
import { LinkRecords } from "./records.js";
import { LinkStatus } from "./link-status.js";
import { LinkSubscribers } from "./subscribers.js";
import { LinkTokens } from "./tokens.js";

/** Subscribers listed per page of POST /v1/links/subscriptions. */
export const LINK_SUBSCRIBERS_PAGE = 100;

/** What links need of webhooks (the composition root passes the webhooks module; links never import it). */
export interface LinkWatches {
  validate(notifyUrl: string): void;
  watchLink(linkId: Hex, notifyUrl: string, caller: string, expiresAt: number, included?: boolean): Promise<boolean>;
  endLink(linkId: Hex): Promise<void>;
  /** A payer subscribed through the link: announce subscription.created and watch its charges and revocation, with the link id. */
  subscribedThroughLink(s: { linkId: Hex; subscriptionId: Hex; payer: Address; end: bigint; notifyUrl: string; caller: string }): Promise<boolean>;
}

/**
 * What subscription links need of subscriptions (the composition root passes them; links come
 * before recurring and never import it).
 */
export interface LinkSubscriptions {
  checkTerms(terms: { recipient: Address; amountUnits: bigint; period: number; end: number }): Promise<{ recipient: Address }>;
  resolveThroughLink(link: {
    linkId: Hex;
    recipient: Address;
    amountUnits: bigint;
    period: number;
    end: number;
    returnUrl?: string;
  }): Promise<ResolveSubscriptionResponse & { setup_token: string; link_id: Hex }>;
  finalizeThroughLink(input: {
    setupToken: string;
    payer: Address;
    signature: Hex;
  }): Promise<{ linkId: Hex; subscriptionId: Hex; terms: { payer: Address; amount: bigint; end: bigint }; answer: FinalizeSubscriptionResponse }>;
  /** INSUFFICIENT_ALLOWANCE / INSUFFICIENT_BALANCE unless the payer's allowance and balance cover the first charge. */
  checkFirstChargeFunds(terms: { payer: Address; amount: bigint }): Promise<void>;
}

export interface LinksDeps {
  db: Database;
  tokens: CapabilityTokens;
  watches: LinkWatches;
  /** Mints the payment each resolve of a link hands out. */
  payments: Pick<Payments, "resolveThroughLink">;
  /** Checks a subscription link's terms, mints each visitor's setup, checks each signature. */
  subscriptions: LinkSubscriptions;
  /** Where our contracts and the token are: a link cannot pay them (see checkRecipient). */
  deployment: LiveDeployment;
  checkoutUrl: string;
  limits: { minUnits: bigint; maxUnits: bigint; linkTtlSeconds: number; maxLinkTtlSeconds: number };
  /** The local chain allows a plain-http return_url (src/rules/return-url.ts). */
  localChain?: boolean;
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
}

/**
 * Links: a browser-safe token that mints a fresh payment (a reference starting with the link id)
 * each time it is resolved, or, for a subscription link (created with a period), fresh subscription
 * terms for each visitor, whose signed subscriptions the link keeps for the merchant; until it
 * expires or its manage token closes it.
 */
export class Links {
  readonly #records: LinkRecords;
  readonly #status: LinkStatus;
  readonly #tokens: LinkTokens;
  readonly #subscribers: LinkSubscribers;

  constructor(private readonly deps: LinksDeps) {
    this.#records = new LinkRecords(deps.db);
    this.#status = new LinkStatus(this.#records, deps.now);
    this.#tokens = new LinkTokens(deps.tokens);
    this.#subscribers = new LinkSubscribers(deps.db, deps.tokens);
  }

  /** Whether a token is a link's (payment resolve hands those to {@link resolvePayment}). */
  owns(token: string): boolean {
    return LinkTokens.isLinkToken(token);
  }

  #nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  async create(input: {
    recipient: Address;
    amountUnits: bigint;
    expiresAt?: number;
    notifyUrl?: string;
    notifyIncluded?: boolean;
    returnUrl?: string;
    /** A subscription link: the terms' period (seconds) and end (unix seconds, 0 = none). */
    subscription?: { period: number; end: number };
    caller: string;
  }): Promise<CreateLinkResponse> {
    const { limits } = this.deps;
    const { subscription } = input;
    let recipient: Address;
    if (subscription) {
      // The same refusals (and amount floor) as POST /v1/subscriptions.
      recipient = (await this.deps.subscriptions.checkTerms({ recipient: input.recipient, amountUnits: input.amountUnits, ...subscription })).recipient;
    } else {
      recipient = checkRecipient(this.deps.deployment, input.recipient);
      if (input.amountUnits < limits.minUnits || input.amountUnits > limits.maxUnits) throw new DomainError("AMOUNT_OUT_OF_BOUNDS");
    }
    const now = this.#nowSeconds();
    const expiresAt = input.expiresAt ?? now + limits.linkTtlSeconds;
    if (expiresAt <= now || expiresAt > now + limits.maxLinkTtlSeconds) throw new DomainError("INVALID_REQUEST", { detail: "expires_at: out of range" });
    if (input.returnUrl !== undefined) checkReturnUrl(input.returnUrl, this.deps.localChain ?? false);
    if (input.notifyIncluded && input.notifyUrl === undefined) throw new DomainError("INVALID_REQUEST", { detail: "notify_included: needs notify_url" });
    if (input.notifyUrl !== undefined) this.deps.watches.validate(input.notifyUrl);
    const linkId = toHex(this.deps.randomBytes(16));
    const accepted =
      input.notifyUrl !== undefined && (await this.deps.watches.watchLink(linkId, input.notifyUrl, input.caller, expiresAt, input.notifyIncluded === true));
    await this.#records.add({
      linkId,
      recipient,
      amountUnits: input.amountUnits,
      notifyUrl: accepted ? input.notifyUrl! : null,
      caller: input.caller,
      expiresAt,
      subscription: subscription ?? null,
    });
    const link = this.#tokens.mint({
      linkId,
      recipient,
      amountUnits: input.amountUnits,
      expiresAt,
      ...(input.returnUrl ? { returnUrl: input.returnUrl } : {}),
      ...(subscription ? { subscription } : {}),
    });
    return {
      link_id: linkId,
      link,
      // A subscription link opens the checkout's subscribe page, which resolves the link token to a setup.
      url: `${this.deps.checkoutUrl.replace(/\/$/, "")}/#/${subscription ? "subscribe" : "link"}/${link}`,
      manage_token: this.#tokens.mintManage(linkId),
      expires_at: expiresAt,
      amount: formatAmount(input.amountUnits),
      recipient,
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
      ...(subscription ? { period: subscription.period, end: subscription.end } : {}),
      ...(accepted && input.notifyIncluded ? { notify_included: true as const } : {}),
    };
  }

  /** Stops the link and its watch. */
  async close(manageToken: string): Promise<CloseLinkResponse> {
    const linkId = this.#tokens.readManage(manageToken);
    if (!linkId) throw new DomainError("INVALID_LINK_TOKEN");
    await this.#records.close(linkId);
    await this.deps.watches.endLink(linkId);
    return { link_id: linkId, closed: true as const };
  }

  /**
   * LINK_CLOSED unless the link is still open: what resolve asks of an intent minted through a link,
   * so that closing (or the link's expiry) stops the link's intents already handed out too.
   */
  #openRecord(linkId: Hex) {
    return this.#status.openRecord(linkId);
  }

  /**
   * A payment through a link: a fresh intent whose reference is the link id followed by 16 random
   * bytes, resolved like any intent. Nothing is stored (anyone holding the link may resolve it, as
   * often as they like): the link's own watch covers every payment through it. INVALID_INTENT for a
   * bad token or a subscription link's, LINK_CLOSED when the link is closed or expired.
   */
  async resolvePayment(linkToken: string): Promise<ResolvePaymentResponse> {
    const link = this.#tokens.read(linkToken);
    if (!link || link.subscription) throw new DomainError("INVALID_INTENT");
    const record = await this.#openRecord(link.linkId);
    const { subscription: _none, ...terms } = link;
    return this.deps.payments.resolveThroughLink({ ...terms, caller: record.caller });
  }

  /**
   * A visitor of a subscription link: fresh terms in a setup token that names the link (nothing is
   * stored until the payer signs). INVALID_SETUP_TOKEN for a bad token or a payment link's,
   * LINK_CLOSED when the link is closed or expired.
   */
  async resolveSubscription(linkToken: string): Promise<ResolveSubscriptionResponse & { setup_token: string; link_id: Hex }> {
    const link = this.#tokens.read(linkToken);
    if (!link?.subscription) throw new DomainError("INVALID_SETUP_TOKEN");
    await this.#openRecord(link.linkId);
    return this.deps.subscriptions.resolveThroughLink({
      linkId: link.linkId,
      recipient: link.recipient,
      amountUnits: link.amountUnits,
      ...link.subscription,
      ...(link.returnUrl ? { returnUrl: link.returnUrl } : {}),
    });
  }

  /**
   * A payer's signature on a setup the link minted, checked as finalize checks it; the capability is
   * kept against the link (sealed) and only the browser-safe part is answered. The same subscription
   * again is the same answer, with nothing added or announced. LINK_CLOSED once the link is closed
   * or expired: existing subscribers keep their subscriptions. A payer whose allowance or balance
   * does not cover the first charge is refused (INSUFFICIENT_ALLOWANCE, INSUFFICIENT_BALANCE) with
   * nothing written or announced: a link is public, and a key that could never pay would otherwise
   * add a lasting row (and a place in the merchant's renewals) for free.
   */
  async subscribe(input: { setupToken: string; payer: Address; signature: Hex }): Promise<SubscribeLinkResponse> {
    const signed = await this.deps.subscriptions.finalizeThroughLink(input);
    const record = await this.#openRecord(signed.linkId);
    // A subscriber already kept answers as before, whatever its funds now.
    if (!(await this.#subscribers.has(signed.linkId, signed.subscriptionId))) await this.deps.subscriptions.checkFirstChargeFunds(signed.terms);
    const added = await this.#subscribers.add({
      linkId: signed.linkId,
      subscriptionId: signed.subscriptionId,
      payer: signed.terms.payer,
      subscription: signed.answer.subscription,
      createdAt: this.#nowSeconds(),
    });
    if (added && record.notifyUrl)
      await this.deps.watches.subscribedThroughLink({
        linkId: signed.linkId,
        subscriptionId: signed.subscriptionId,
        payer: signed.terms.payer,
        end: signed.terms.end,
        notifyUrl: record.notifyUrl,
        caller: record.caller,
      });
    const { subscription_id, amount, period, end } = signed.answer;
    return { subscription_id, link_id: signed.linkId, amount, period, end };
  }

  /** The link's subscribers with their capabilities, oldest first, {@link LINK_SUBSCRIBERS_PAGE} at a time. INVALID_LINK_TOKEN for a bad manage token. */
  async subscriptions(manageToken: string, after?: string): Promise<LinkSubscriptionsResponse> {
    const linkId = this.#tokens.readManage(manageToken);
    if (!linkId) throw new DomainError("INVALID_LINK_TOKEN");
    const rows = await this.#subscribers.page(linkId, after, LINK_SUBSCRIBERS_PAGE);
    return {
      subscriptions: rows.map((r) => ({ subscription_id: r.subscriptionId, subscription: r.subscription, payer: r.payer, created_at: r.createdAt })),
      next: rows.length === LINK_SUBSCRIBERS_PAGE ? rows.at(-1)!.seq : null,
    };
  }
}
