import { z } from "zod";
import { getAddress, type Address, type Hex } from "viem";
import { TOKEN_KINDS, type CapabilityTokens } from "../tokens/capability.js";
import type { Terms } from "./terms.js";

/** Subscription terms without the payer: what a setup token carries before anyone signs. */
export type Offer = Omit<Terms, "payer" | "token">;

const units = z.string().regex(/^(0|[1-9][0-9]{0,29})$/);
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const OfferPayload = {
  recipient: address,
  amount_units: units,
  period: z.number().int().positive(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  salt: z.string().regex(/^0x[0-9a-f]{64}$/),
  fee_bps: z.number().int().min(0).max(10_000),
  network_fee_units: units,
  max_gas_units: units,
};

const SetupPayload = z.strictObject({
  ...OfferPayload,
  expires_at: z.number().int(),
  notify_url: z.string().max(512).optional(),
  notify_included: z.literal(true).optional(),
  return_url: z.string().max(512).optional(),
  link_id: z
    .string()
    .regex(/^0x[0-9a-f]{32}$/)
    .optional(),
});
const SubscriptionPayload = z.strictObject({ ...OfferPayload, payer: address, signature: z.string().regex(/^0x([0-9a-f]{2})*$/) });
const CancelPayload = z.strictObject({ ...OfferPayload, payer: address, expires_at: z.number().int() });
const ApprovePayload = z.strictObject({ ...OfferPayload, payer: address, expires_at: z.number().int() });

function offerData(offer: Offer) {
  return {
    recipient: offer.recipient,
    amount_units: offer.amount.toString(),
    period: Number(offer.period),
    start: Number(offer.start),
    end: Number(offer.end),
    salt: offer.salt,
    fee_bps: offer.feeBps,
    network_fee_units: offer.networkFee.toString(),
    max_gas_units: offer.maxGasReimbursement.toString(),
  };
}

function offerFrom(data: z.infer<z.ZodObject<typeof OfferPayload>>): Offer {
  return {
    recipient: getAddress(data.recipient),
    amount: BigInt(data.amount_units),
    period: BigInt(data.period),
    start: BigInt(data.start),
    end: BigInt(data.end),
    salt: data.salt as Hex,
    feeBps: data.fee_bps,
    networkFee: BigInt(data.network_fee_units),
    maxGasReimbursement: BigInt(data.max_gas_units),
  };
}

/** What a subscription capability carries: the signed terms and the payer's signature. */
export interface SignedSubscription {
  terms: Terms;
  signature: Hex;
}

/** The four recurring token kinds: setup, subscription capability, cancel, approve. */
export class RecurringTokens {
  constructor(
    private readonly tokens: CapabilityTokens,
    private readonly tokenAddress: Address,
  ) {}

  /** `linkId`: the setup was minted for a visitor of that subscription link (POST /v1/links/subscribe takes it). */
  mintSetup(offer: Offer, expiresAt: number, extra: { notifyUrl?: string; notifyIncluded?: boolean; returnUrl?: string; linkId?: Hex } = {}): string {
    return this.tokens.mint(TOKEN_KINDS.setup, {
      ...offerData(offer),
      expires_at: expiresAt,
      ...(extra.notifyUrl ? { notify_url: extra.notifyUrl } : {}),
      ...(extra.notifyUrl && extra.notifyIncluded ? { notify_included: true } : {}),
      ...(extra.returnUrl ? { return_url: extra.returnUrl } : {}),
      ...(extra.linkId ? { link_id: extra.linkId } : {}),
    });
  }

  readSetup(token: string): { offer: Offer; expiresAt: number; notifyUrl?: string; notifyIncluded?: boolean; returnUrl?: string; linkId?: Hex } | null {
    const data = this.tokens.verify(TOKEN_KINDS.setup, token, SetupPayload);
    if (!data) return null;
    const { notify_url, notify_included, return_url, expires_at, link_id } = data;
    return {
      offer: offerFrom(data),
      expiresAt: expires_at,
      ...(notify_url ? { notifyUrl: notify_url } : {}),
      ...(notify_included ? { notifyIncluded: true } : {}),
      ...(return_url ? { returnUrl: return_url } : {}),
      ...(link_id ? { linkId: link_id as Hex } : {}),
    };
  }

  /** The capability that charges: bound to the signed terms and the signature. Merchant server only. */
  mintSubscription(s: SignedSubscription): string {
    return this.tokens.mint(TOKEN_KINDS.subscription, { ...offerData(s.terms), payer: s.terms.payer, signature: s.signature.toLowerCase() });
  }

  readSubscription(token: string): SignedSubscription | null {
    const data = this.tokens.verify(TOKEN_KINDS.subscription, token, SubscriptionPayload);
    if (!data) return null;
    return { terms: { ...offerFrom(data), payer: getAddress(data.payer), token: this.tokenAddress }, signature: data.signature as Hex };
  }

  /** Browser-safe: the terms (to build a revoke) without the signature; cannot charge. */
  mintCancel(terms: Terms, expiresAt: number): string {
    return this.tokens.mint(TOKEN_KINDS.cancel, { ...offerData(terms), payer: terms.payer, expires_at: expiresAt });
  }

  readCancel(token: string): { terms: Terms; expiresAt: number } | null {
    const data = this.tokens.verify(TOKEN_KINDS.cancel, token, CancelPayload);
    if (!data) return null;
    return { terms: { ...offerFrom(data), payer: getAddress(data.payer), token: this.tokenAddress }, expiresAt: data.expires_at };
  }

  /**
   * Browser-safe: restores one subscription's allowance and nothing else. It carries the terms without
   * the signature (as a cancel token does), so the page can name the subscription it restores.
   */
  mintApprove(terms: Terms, expiresAt: number): string {
    return this.tokens.mint(TOKEN_KINDS.approve, { ...offerData(terms), payer: terms.payer, expires_at: expiresAt });
  }

  readApprove(token: string): { terms: Terms; expiresAt: number } | null {
    const data = this.tokens.verify(TOKEN_KINDS.approve, token, ApprovePayload);
    if (!data) return null;
    return { terms: { ...offerFrom(data), payer: getAddress(data.payer), token: this.tokenAddress }, expiresAt: data.expires_at };
  }
}
