import { z } from "zod";
import { getAddress, type Address, type Hex } from "viem";
import { TOKEN_KINDS, type CapabilityTokens } from "../tokens/capability.js";

/** What a payment intent token carries: one payment to one recipient for one amount. */
export interface Intent {
  recipient: Address;
  amountUnits: bigint;
  reference: Hex;
  /** Unix seconds. */
  expiresAt: number;
  /** Set for a payment minted through a payment link. */
  linkId?: Hex;
  /** Where the checkout offers to send the buyer back after paying (an extension, validated at creation). */
  returnUrl?: string;
}

const IntentPayload = z.strictObject({
  recipient: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  amount_units: z.string().regex(/^[1-9][0-9]{0,29}$/),
  reference: z.string().regex(/^0x[0-9a-f]{64}$/),
  expires_at: z.number().int().positive(),
  link_id: z
    .string()
    .regex(/^0x[0-9a-f]{32}$/)
    .optional(),
  return_url: z.string().max(512).optional(),
});

export function mintIntent(tokens: CapabilityTokens, intent: Intent): string {
  return tokens.mint(TOKEN_KINDS.intent, {
    recipient: intent.recipient,
    amount_units: intent.amountUnits.toString(),
    reference: intent.reference,
    expires_at: intent.expiresAt,
    ...(intent.linkId ? { link_id: intent.linkId } : {}),
    ...(intent.returnUrl ? { return_url: intent.returnUrl } : {}),
  });
}

/** The intent a token carries, or null when the token is not a valid intent of this deployment. */
export function readIntent(tokens: CapabilityTokens, token: string): Intent | null {
  const data = tokens.verify(TOKEN_KINDS.intent, token, IntentPayload);
  if (!data) return null;
  return {
    recipient: getAddress(data.recipient),
    amountUnits: BigInt(data.amount_units),
    reference: data.reference as Hex,
    expiresAt: data.expires_at,
    ...(data.link_id ? { linkId: data.link_id as Hex } : {}),
    ...(data.return_url ? { returnUrl: data.return_url } : {}),
  };
}
