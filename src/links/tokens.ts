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

/** The link's two tokens: the browser-safe link token (`lk`) and the merchant's manage token (`lm`). */
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
}
