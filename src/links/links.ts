import { getAddress, toHex, type Address, type Hex } from "viem";
import { z } from "zod";
import { ServiceError } from "../errors.js";
import { formatAmount } from "../money.js";
import type { Database } from "../store/database.js";
import { TOKEN_KINDS, type CapabilityTokens } from "../tokens/capability.js";
import { checkReturnUrl } from "../payments/return-url.js";
import { checkRecipient } from "../payments/recipient.js";
import type { LiveDeployment } from "../deployments.js";
import { LinkRecords } from "../webhooks/store.js";
import type { Webhooks } from "../webhooks/webhooks.js";

export interface LinksDeps {
  db: Database;
  tokens: CapabilityTokens;
  webhooks: Webhooks;
  /** Where our contracts and the token are: a link cannot pay them (see checkRecipient). */
  deployment: LiveDeployment;
  checkoutUrl: string;
  limits: { minUnits: bigint; maxUnits: bigint; linkTtlSeconds: number; maxLinkTtlSeconds: number };
  /** The local chain allows a plain-http return_url (see returnUrlProblem). */
  localChain?: boolean;
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
}

/** An open link, as a payment through it needs it. */
export interface OpenLink {
  linkId: Hex;
  recipient: Address;
  amountUnits: bigint;
  notifyUrl: string | null;
  caller: string;
  expiresAt: number;
  /** Carried in the link token (so it cannot be changed), copied into each intent minted through it. */
  returnUrl?: string;
}

const LinkPayload = z.strictObject({
  link_id: z.string().regex(/^0x[0-9a-f]{32}$/),
  recipient: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  amount_units: z.string().regex(/^[1-9][0-9]{0,29}$/),
  expires_at: z.number().int(),
  return_url: z.string().max(512).optional(),
});
const ManagePayload = z.strictObject({ link_id: z.string().regex(/^0x[0-9a-f]{32}$/) });

/**
 * Payment links: a browser-safe token that mints a fresh payment (a reference starting with the
 * link id) each time it is resolved, until it expires or its manage token closes it.
 */
export class Links {
  readonly #records: LinkRecords;

  constructor(private readonly deps: LinksDeps) {
    this.#records = new LinkRecords(deps.db);
  }

  #nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  async create(input: { recipient: Address; amountUnits: bigint; expiresAt?: number; notifyUrl?: string; returnUrl?: string; caller: string }) {
    const { limits } = this.deps;
    const recipient = checkRecipient(this.deps.deployment, input.recipient);
    if (input.amountUnits < limits.minUnits || input.amountUnits > limits.maxUnits) throw new ServiceError("AMOUNT_OUT_OF_BOUNDS");
    const now = this.#nowSeconds();
    const expiresAt = input.expiresAt ?? now + limits.linkTtlSeconds;
    if (expiresAt <= now || expiresAt > now + limits.maxLinkTtlSeconds) throw new ServiceError("INVALID_REQUEST", { detail: "expires_at out of range" });
    if (input.returnUrl !== undefined) checkReturnUrl(input.returnUrl, this.deps.localChain ?? false);
    if (input.notifyUrl !== undefined) this.deps.webhooks.validate(input.notifyUrl);
    const linkId = toHex(this.deps.randomBytes(16));
    const accepted = input.notifyUrl !== undefined && (await this.deps.webhooks.watchLink(linkId, input.notifyUrl, input.caller, expiresAt));
    await this.#records.add({
      linkId,
      recipient,
      amountUnits: input.amountUnits,
      notifyUrl: accepted ? input.notifyUrl! : null,
      caller: input.caller,
      expiresAt,
    });
    const link = this.deps.tokens.mint(TOKEN_KINDS.link, {
      link_id: linkId,
      recipient,
      amount_units: input.amountUnits.toString(),
      expires_at: expiresAt,
      ...(input.returnUrl ? { return_url: input.returnUrl } : {}),
    });
    return {
      link_id: linkId,
      link,
      url: `${this.deps.checkoutUrl.replace(/\/$/, "")}/#/link/${link}`,
      manage_token: this.deps.tokens.mint(TOKEN_KINDS.linkManage, { link_id: linkId }),
      expires_at: expiresAt,
      amount: formatAmount(input.amountUnits),
      recipient,
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
    };
  }

  /** Stops the link and its watch. */
  async close(manageToken: string) {
    const data = this.deps.tokens.verify(TOKEN_KINDS.linkManage, manageToken, ManagePayload);
    if (!data) throw new ServiceError("INVALID_LINK_TOKEN");
    const linkId = data.link_id as Hex;
    await this.#records.close(linkId);
    await this.deps.webhooks.endLink(linkId);
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
    if (!record || record.closed || this.#nowSeconds() >= record.expiresAt) throw new ServiceError("LINK_CLOSED");
    return record;
  }

  /** The link a token names, if it is still open: INVALID_INTENT for a bad token, LINK_CLOSED when closed or expired. */
  async open(linkToken: string): Promise<OpenLink> {
    const data = this.deps.tokens.verify(TOKEN_KINDS.link, linkToken, LinkPayload);
    if (!data) throw new ServiceError("INVALID_INTENT");
    const record = await this.#openRecord(data.link_id as Hex);
    return {
      linkId: data.link_id as Hex,
      recipient: getAddress(data.recipient),
      amountUnits: BigInt(data.amount_units),
      notifyUrl: record.notifyUrl,
      caller: record.caller,
      expiresAt: record.expiresAt,
      ...(data.return_url ? { returnUrl: data.return_url } : {}),
    };
  }
}
