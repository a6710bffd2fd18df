import { getAddress, type Address, type Hex } from "viem";
import { z } from "zod";
import { CapabilityTokens, TOKEN_KINDS } from "../tokens/capability.js";

/** What a link token carries: the link id, the payment (or, with a period, the subscription terms) each resolve mints, the link's expiry. */
const LinkPayload = z.strictObject({
  link_id: z.string().regex(/^0x[0-9a-f]{32}$/),
  recipient: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  amount_units: z.string().regex(/^[1-9][0-9]{0,29}$/),
  expires_at: z.number().int(),
  return_url: z.string().max(512).optional(),
  period: z.number().int().positive().optional(),
  end: z.number().int().nonnegative().optional(),
});
const ManagePayload = z.strictObject({ link_id: z.string().regex(/^0x[0-9a-f]{32}$/) });

export interface LinkTerms {
  linkId: Hex;
  recipient: Address;
  amountUnits: bigint;
  expiresAt: number;
  /** Carried in the link token (so it cannot be changed), copied into each intent minted through it. */
  returnUrl?: string;
  /** A subscription link's terms (each visitor signs them): seconds, and unix seconds (0 = no end). */
  subscription?: { period: number; end: number };
}

/**
 * The link's three tokens: the browser-safe link token (`lk`), the merchant's manage token (`lm`: it
 * closes the link, lists and removes subscribers with their capabilities) and the read-only view
 * token (`lv`: subscribers' states and payments, never a capability; what the merchant page asks for).
 */
export class LinkTokens {
  constructor(private readonly tokens: CapabilityTokens) {}

  /** Whether a token claims to be a link token (verified later by {@link read}). */
  static isLinkToken(token: string): boolean {
    return CapabilityTokens.kindOf(token) === TOKEN_KINDS.link;
  }

  mint(terms: LinkTerms): string {
    return this.tokens.mint(TOKEN_KINDS.link, {
      link_id: terms.linkId,
      recipient: terms.recipient,
      amount_units: terms.amountUnits.toString(),
      expires_at: terms.expiresAt,
      ...(terms.returnUrl ? { return_url: terms.returnUrl } : {}),
      ...(terms.subscription ? { period: terms.subscription.period, end: terms.subscription.end } : {}),
    });
  }

  read(token: string): LinkTerms | null {
    const data = this.tokens.verify(TOKEN_KINDS.link, token, LinkPayload);
    if (!data) return null;
    return {
      linkId: data.link_id as Hex,
      recipient: getAddress(data.recipient),
      amountUnits: BigInt(data.amount_units),
      expiresAt: data.expires_at,
      ...(data.return_url ? { returnUrl: data.return_url } : {}),
      ...(data.period !== undefined ? { subscription: { period: data.period, end: data.end ?? 0 } } : {}),
    };
  }

  mintManage(linkId: Hex): string {
    return this.tokens.mint(TOKEN_KINDS.linkManage, { link_id: linkId });
  }

  readManage(token: string): Hex | null {
    return (this.tokens.verify(TOKEN_KINDS.linkManage, token, ManagePayload)?.link_id as Hex | undefined) ?? null;
  }

  mintView(linkId: Hex): string {
    return this.tokens.mint(TOKEN_KINDS.linkView, { link_id: linkId });
  }

  readView(token: string): Hex | null {
    return (this.tokens.verify(TOKEN_KINDS.linkView, token, ManagePayload)?.link_id as Hex | undefined) ?? null;
  }

  /** The link a token of another of its kinds names (the view token where the manage token is asked, or back), or null: what a refusal of the wrong kind checks. */
  otherKindLink(token: string, expected: "manage" | "view"): Hex | null {
    return expected === "manage" ? this.readView(token) : this.readManage(token);
  }
}
