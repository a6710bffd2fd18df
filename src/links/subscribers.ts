import type { Address, Hex } from "viem";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";

/** The sealing purpose of a capability kept against its link (src/tokens/capability.ts `seal`). */
const SEALED_CAPABILITY = "link-subscription-capability";

/** A subscriber is pending until its first charge is settled, then active (listed, watched, renewed). */
export type LinkSubscriberState = "pending" | "active";

export interface LinkSubscriber {
  subscriptionId: Hex;
  /** The capability that charges, opened for the merchant. */
  subscription: string;
  payer: Address;
  /** Unix seconds. */
  createdAt: number;
  /** Where this row is in the link's list (the page cursor). */
  seq: string;
  state: LinkSubscriberState;
  /** Unix seconds after which a pending row is dropped; null once active. */
  pendingUntil: number | null;
}

interface Row {
  seq: string | number;
  subscription_id: string;
  payer: string;
  capability_sealed: string;
  created_at: string | number;
  state: LinkSubscriberState;
  pending_until: string | number | null;
}

/**
 * The subscribers of subscription links: one row per (link, subscription), the capability sealed at
 * rest (AES-256-GCM, key derived from TOKEN_KEYS, bound to the link and the subscription). A row is
 * written pending (at most one per payer and link, by a partial unique index) and becomes active once
 * its first charge is settled; only active rows are listed.
 */
export class LinkSubscribers {
  constructor(
    private readonly db: Pick<Database, "query">,
    private readonly tokens: Pick<CapabilityTokens, "seal" | "open">,
  ) {}

  /**
   * Keeps a pending subscriber. "added" when written; "kept" when this subscription is kept for this
   * link already; "payer-pending" when this payer has another subscription pending on the link.
   */
  async addPending(s: {
    linkId: Hex;
    subscriptionId: Hex;
    payer: Address;
    subscription: string;
    createdAt: number;
    pendingUntil: number;
  }): Promise<"added" | "kept" | "payer-pending"> {
    const sealed = this.tokens.seal(SEALED_CAPABILITY, `${s.linkId}:${s.subscriptionId}`, s.subscription);
    // No conflict target: either unique rule (the same subscription, or a second pending row of the payer) writes nothing.
    const rows = await this.db.query(
      "INSERT INTO link_subscriptions (link_id, subscription_id, payer, capability_sealed, created_at, state, pending_until) VALUES ($1, $2, $3, $4, $5, 'pending', $6) ON CONFLICT DO NOTHING RETURNING seq",
      [s.linkId, s.subscriptionId, s.payer, sealed, s.createdAt, s.pendingUntil],
    );
    if (rows.length > 0) return "added";
    return (await this.find(s.linkId, s.subscriptionId)) ? "kept" : "payer-pending";
  }

  /** This subscription's row on this link, or null. */
  async find(linkId: Hex, subscriptionId: Hex): Promise<LinkSubscriber | null> {
    const [row] = await this.db.query<Row>(
      "SELECT seq, subscription_id, payer, capability_sealed, created_at, state, pending_until FROM link_subscriptions WHERE link_id = $1 AND subscription_id = $2",
      [linkId, subscriptionId],
    );
    return row ? this.#open(linkId, row) : null;
  }

  /** Makes a pending row active; false when it was not pending (already active, or dropped). */
  async activate(linkId: Hex, subscriptionId: Hex): Promise<boolean> {
    const rows = await this.db.query(
      "UPDATE link_subscriptions SET state = 'active', pending_until = NULL WHERE link_id = $1 AND subscription_id = $2 AND state = 'pending' RETURNING seq",
      [linkId, subscriptionId],
    );
    return rows.length > 0;
  }

  /** Deletes a subscriber whatever its state; false when there was none. */
  async remove(linkId: Hex, subscriptionId: Hex): Promise<boolean> {
    const rows = await this.db.query("DELETE FROM link_subscriptions WHERE link_id = $1 AND subscription_id = $2 RETURNING seq", [linkId, subscriptionId]);
    return rows.length > 0;
  }

  /** Drops the link's pending rows past their time (or all of them with `now` = Infinity); how many remain pending. */
  async dropExpiredPending(linkId: Hex, now: number): Promise<number> {
    if (now === Infinity) {
      await this.db.query("DELETE FROM link_subscriptions WHERE link_id = $1 AND state = 'pending'", [linkId]);
      return 0;
    }
    await this.db.query("DELETE FROM link_subscriptions WHERE link_id = $1 AND state = 'pending' AND pending_until <= $2", [linkId, now]);
    const [row] = await this.db.query<{ n: string | number }>("SELECT count(*) AS n FROM link_subscriptions WHERE link_id = $1 AND state = 'pending'", [
      linkId,
    ]);
    return Number(row?.n ?? 0);
  }

  /** The link's pending rows (at most `limit`), oldest first. */
  async pending(linkId: Hex, limit: number): Promise<LinkSubscriber[]> {
    const rows = await this.db.query<Row>(
      "SELECT seq, subscription_id, payer, capability_sealed, created_at, state, pending_until FROM link_subscriptions WHERE link_id = $1 AND state = 'pending' ORDER BY seq LIMIT $2",
      [linkId, limit],
    );
    return rows.map((r) => this.#open(linkId, r));
  }

  /** Up to `limit` active subscribers of a link after the cursor `after`, oldest first. */
  async page(linkId: Hex, after: string | undefined, limit: number): Promise<LinkSubscriber[]> {
    const rows = await this.db.query<Row>(
      "SELECT seq, subscription_id, payer, capability_sealed, created_at, state, pending_until FROM link_subscriptions WHERE link_id = $1 AND state = 'active' AND seq > $2 ORDER BY seq LIMIT $3",
      [linkId, after ?? "0", limit],
    );
    return rows.map((r) => this.#open(linkId, r));
  }

  #open(linkId: Hex, r: Row): LinkSubscriber {
    const subscription = this.tokens.open(SEALED_CAPABILITY, `${linkId}:${r.subscription_id}`, r.capability_sealed);
    // A row that does not open was sealed under a key no longer configured: TOKEN_KEYS must keep every key that sealed a row.
    if (subscription === null) throw new Error(`link subscription ${r.subscription_id}: sealed under a key not in TOKEN_KEYS`);
    return {
      subscriptionId: r.subscription_id as Hex,
      subscription,
      payer: r.payer as Address,
      createdAt: Number(r.created_at),
      seq: String(r.seq),
      state: r.state,
      pendingUntil: r.pending_until === null ? null : Number(r.pending_until),
    };
  }
}
