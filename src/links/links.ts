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
  LinkSubscriptionsResponse,
  LinkViewTokenResponse,
  RemoveLinkSubscriberResponse,
  ResolvePaymentResponse,
  ResolveSubscriptionResponse,
  SubscribeLinkResponse,
} from "../wire/index.js";
import { LinkRecords } from "./records.js";
import { LinkStatus } from "./link-status.js";
import { LinkSubscribers } from "./subscribers.js";
import { LinkTokens } from "./tokens.js";
import { LinkSubscribe } from "./subscribe.js";
import { FirstCharges, type FirstChargesChain } from "./first-charges.js";
import type { LinkSubscriptions, LinkWatches } from "./ports.js";

/** Subscribers listed per page of POST /v1/links/subscriptions. */
export const LINK_SUBSCRIBERS_PAGE = 100;

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
  /** Where the follower's `Charged` logs come from: the contract and the chain (first-charges.ts). */
  firstCharges: FirstChargesChain;
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
  readonly #subscribe: LinkSubscribe;
  readonly #firstCharges: FirstCharges;

  constructor(private readonly deps: LinksDeps) {
    this.#records = new LinkRecords(deps.db);
    this.#status = new LinkStatus(this.#records, deps.now);
    this.#tokens = new LinkTokens(deps.tokens);
    this.#subscribers = new LinkSubscribers(deps.db, deps.tokens);
    this.#subscribe = new LinkSubscribe({
      records: this.#records,
      status: this.#status,
      subscribers: this.#subscribers,
      subscriptions: deps.subscriptions,
      watches: deps.watches,
      now: deps.now,
    });
    this.#firstCharges = new FirstCharges({
      ...deps.firstCharges,
      records: this.#records,
      subscribers: this.#subscribers,
      subscriptions: deps.subscriptions,
      subscribe: this.#subscribe,
    });
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
      view_token: this.#tokens.mintView(linkId),
      expires_at: expiresAt,
      amount: formatAmount(input.amountUnits),
      recipient,
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
      ...(subscription ? { period: subscription.period, end: subscription.end } : {}),
      ...(accepted && input.notifyIncluded ? { notify_included: true as const } : {}),
    };
  }

  /** Stops the link and its watch, and drops its pending subscribers. */
  async close(manageToken: string): Promise<CloseLinkResponse> {
    const linkId = this.#manageOf(manageToken);
    await this.#records.close(linkId);
    await this.deps.watches.endLink(linkId);
    await this.#subscribers.dropPending(linkId);
    return { link_id: linkId, closed: true as const };
  }

  /** The link a manage token names; a view token there is refused as such. */
  #manageOf(token: string): Hex {
    const linkId = this.#tokens.readManage(token);
    if (linkId) return linkId;
    if (this.#tokens.readView(token)) throw new DomainError("WRONG_LINK_TOKEN", { detail: "a view token reads only: this takes the link's manage_token" });
    throw new DomainError("INVALID_LINK_TOKEN");
  }

  /** The link a view token names; the manage token is refused there (the page never needs it). */
  #viewOf(token: string): Hex {
    const linkId = this.#tokens.readView(token);
    if (linkId) return linkId;
    if (this.#tokens.readManage(token)) throw new DomainError("WRONG_LINK_TOKEN", { detail: "a manage token: this takes the link's view_token" });
    throw new DomainError("INVALID_LINK_TOKEN");
  }

  /** A subscription link's record; a payment link's token is refused as such (it has no subscribers). */
  async #subscriptionLink(linkId: Hex) {
    const record = await this.#records.find(linkId);
    if (!record) throw new DomainError("INVALID_LINK_TOKEN");
    if (!record.subscription) throw new DomainError("WRONG_LINK_TOKEN", { detail: "a payment link's token: only a subscription link has subscribers" });
    return record;
  }

  /** The link's read-only view token, for the merchant page. */
  viewToken(manageToken: string): LinkViewTokenResponse {
    const linkId = this.#manageOf(manageToken);
    return { link_id: linkId, view_token: this.#tokens.mintView(linkId) };
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

  /** A payer's signature on a setup the link minted: see {@link LinkSubscribe.subscribe}. */
  subscribe(input: { setupToken: string; payer: Address; signature: Hex }): Promise<SubscribeLinkResponse> {
    return this.#subscribe.subscribe(input);
  }

  /** Makes pending subscribers active as their first charges' `Charged` logs turn final (the chain follower's consumer). */
  get firstCharges(): FirstCharges {
    return this.#firstCharges;
  }

  /** Removes a subscriber of the link, pending or active, and ends its watch; the subscription itself is the payer's to revoke. */
  async removeSubscriber(manageToken: string, subscriptionId: Hex): Promise<RemoveLinkSubscriberResponse> {
    const linkId = this.#manageOf(manageToken);
    await this.#subscriptionLink(linkId);
    const removed = await this.#subscribers.remove(linkId, subscriptionId);
    await this.deps.watches.endLinkSubscriber(linkId, subscriptionId);
    return { link_id: linkId, subscription_id: subscriptionId, removed };
  }

  /**
   * The link's active subscribers with their capabilities, oldest first, {@link LINK_SUBSCRIBERS_PAGE}
   * at a time; the first page asks after the pending ones first. INVALID_LINK_TOKEN for a bad manage
   * token, WRONG_LINK_TOKEN for a view token or a payment link's.
   */
  async subscriptions(manageToken: string, after?: string): Promise<LinkSubscriptionsResponse> {
    const linkId = this.#manageOf(manageToken);
    await this.#subscriptionLink(linkId);
    if (after === undefined) await this.#subscribe.settlePending(linkId);
    return this.#page(linkId, after);
  }

  /** The same page for the view token, read-only: no charge is asked after. The capabilities go to the caller's own reads (SubscriberStates), never out. */
  async viewSubscriptions(viewToken: string, after?: string): Promise<{ linkId: Hex; page: LinkSubscriptionsResponse }> {
    const linkId = this.#viewOf(viewToken);
    await this.#subscriptionLink(linkId);
    return { linkId, page: await this.#page(linkId, after) };
  }

  async #page(linkId: Hex, after: string | undefined): Promise<LinkSubscriptionsResponse> {
    const rows = await this.#subscribers.page(linkId, after, LINK_SUBSCRIBERS_PAGE);
    return {
      subscriptions: rows.map((r) => ({ subscription_id: r.subscriptionId, subscription: r.subscription, payer: r.payer, created_at: r.createdAt })),
      next: rows.length === LINK_SUBSCRIBERS_PAGE ? rows.at(-1)!.seq : null,
    };
  }
}
