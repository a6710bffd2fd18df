import type { Address, Hex } from "viem";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";

/** The sealing purpose of a capability kept against its link (src/tokens/capability.ts `seal`). */
const SEALED_CAPABILITY = "link-subscription-capability";

export interface LinkSubscriber {
  subscriptionId: Hex;
  /** The capability that charges, opened for the merchant. */
  subscription: string;
  payer: Address;
  /** Unix seconds. */
  createdAt: number;
  /** Where this row is in the link's list (the page cursor). */
  seq: string;
}

/**
 * The subscribers of subscription links: one row per (link, subscription), the capability sealed at
 * rest (AES-256-GCM, key derived from TOKEN_KEYS, bound to the link and the subscription).
 */
export class LinkSubscribers {
  constructor(
    private readonly db: Pick<Database, "query">,
    private readonly tokens: Pick<CapabilityTokens, "seal" | "open">,
  ) {}

  /** Keeps a subscriber; false when this subscription is already kept for this link (nothing written). */
  async add(s: { linkId: Hex; subscriptionId: Hex; payer: Address; subscription: string; createdAt: number }): Promise<boolean> {
    const sealed = this.tokens.seal(SEALED_CAPABILITY, `${s.linkId}:${s.subscriptionId}`, s.subscription);
    const rows = await this.db.query(
      "INSERT INTO link_subscriptions (link_id, subscription_id, payer, capability_sealed, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (link_id, subscription_id) DO NOTHING RETURNING seq",
      [s.linkId, s.subscriptionId, s.payer, sealed, s.createdAt],
    );
    return rows.length > 0;
  }

  /** Whether this subscription is kept for this link already. */
  async has(linkId: Hex, subscriptionId: Hex): Promise<boolean> {
    const rows = await this.db.query("SELECT 1 FROM link_subscriptions WHERE link_id = $1 AND subscription_id = $2", [linkId, subscriptionId]);
    return rows.length > 0;
  }

  /** Up to `limit` subscribers of a link after the cursor `after`, oldest first. */
  async page(linkId: Hex, after: string | undefined, limit: number): Promise<LinkSubscriber[]> {
    const rows = await this.db.query<{ seq: string | number; subscription_id: string; payer: string; capability_sealed: string; created_at: string | number }>(
      "SELECT seq, subscription_id, payer, capability_sealed, created_at FROM link_subscriptions WHERE link_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [linkId, after ?? "0", limit],
    );
    return rows.map((r) => {
      const subscription = this.tokens.open(SEALED_CAPABILITY, `${linkId}:${r.subscription_id}`, r.capability_sealed);
      // A row that does not open was sealed under a key no longer configured: TOKEN_KEYS must keep every key that sealed a row.
      if (subscription === null) throw new Error(`link subscription ${r.subscription_id}: sealed under a key not in TOKEN_KEYS`);
      return { subscriptionId: r.subscription_id as Hex, subscription, payer: r.payer as Address, createdAt: Number(r.created_at), seq: String(r.seq) };
    });
  }
}
