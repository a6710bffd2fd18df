import { toHex, type Address, type Hex } from "viem";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import { checkReturnUrl } from "../rules/return-url.js";
import { checkRecipient } from "../rules/recipient.js";
import type { LiveDeployment } from "../deployments.js";
import type { Payments } from "../payments/payments.js";
import type { CloseLinkResponse, CreateLinkResponse, ResolvePaymentResponse } from "../wire/index.js";
import { LinkRecords } from "./records.js";
import { LinkTokens } from "./tokens.js";

/** What links need of webhooks (the composition root passes the webhooks module; links never import it). */
export interface LinkWatches {
  validate(notifyUrl: string): void;
  watchLink(linkId: Hex, notifyUrl: string, caller: string, expiresAt: number, included?: boolean): Promise<boolean>;
  endLink(linkId: Hex): Promise<void>;
}

export interface LinksDeps {
  db: Database;
  tokens: CapabilityTokens;
  watches: LinkWatches;
  /** Mints the payment each resolve of a link hands out. */
  payments: Pick<Payments, "resolveThroughLink">;
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
 * Payment links: a browser-safe token that mints a fresh payment (a reference starting with the
 * link id) each time it is resolved, until it expires or its manage token closes it.
 */
export class Links {
  readonly #records: LinkRecords;
  readonly #tokens: LinkTokens;

  constructor(private readonly deps: LinksDeps) {
    this.#records = new LinkRecords(deps.db);
    this.#tokens = new LinkTokens(deps.tokens);
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
    caller: string;
  }): Promise<CreateLinkResponse> {
    const { limits } = this.deps;
    const recipient = checkRecipient(this.deps.deployment, input.recipient);
    if (input.amountUnits < limits.minUnits || input.amountUnits > limits.maxUnits) throw new DomainError("AMOUNT_OUT_OF_BOUNDS");
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
    });
    const link = this.#tokens.mint({
      linkId,
      recipient,
      amountUnits: input.amountUnits,
      expiresAt,
      ...(input.returnUrl ? { returnUrl: input.returnUrl } : {}),
    });
    return {
      link_id: linkId,
      link,
      url: `${this.deps.checkoutUrl.replace(/\/$/, "")}/#/link/${link}`,
      manage_token: this.#tokens.mintManage(linkId),
      expires_at: expiresAt,
      amount: formatAmount(input.amountUnits),
      recipient,
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
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
  async checkOpen(linkId: Hex): Promise<void> {
    await this.#openRecord(linkId);
  }

  async #openRecord(linkId: Hex) {
    const record = await this.#records.find(linkId);
    if (!record || record.closed || this.#nowSeconds() >= record.expiresAt) throw new DomainError("LINK_CLOSED");
    return record;
  }

  /**
   * A payment through a link: a fresh intent whose reference is the link id followed by 16 random
   * bytes, resolved like any intent. Nothing is stored (anyone holding the link may resolve it, as
   * often as they like): the link's own watch covers every payment through it. INVALID_INTENT for a
   * bad token, LINK_CLOSED when the link is closed or expired.
   */
  async resolvePayment(linkToken: string): Promise<ResolvePaymentResponse> {
    const link = this.#tokens.read(linkToken);
    if (!link) throw new DomainError("INVALID_INTENT");
    const record = await this.#openRecord(link.linkId);
    return this.deps.payments.resolveThroughLink({ ...link, caller: record.caller });
  }
}
