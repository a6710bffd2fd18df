import type { Address, Hex } from "viem";
import type { Database } from "../store/database.js";
import type { CapabilityTokens } from "../tokens/capability.js";

/** The sealing purpose of a capability kept against its link (src/tokens/capability.ts `seal`). */
const SEALED_CAPABILITY = "link-subscription-capability";

/** A subscriber is pending until its first charge is settled, then active (listed, watched, renewed). */
export type LinkSubscriberState = "pending" | "active";

export interface LinkSubscriber {
  linkId: Hex;
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

const COLUMNS = "link_id, seq, subscription_id, payer, capability_sealed, created_at, state, pending_until";

interface Row {
  link_id: string;
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
    private readonly db: Pick<Database, "query" | "transaction">,
    private readonly tokens: Pick<CapabilityTokens, "seal" | "open">,
  ) {}

  /**
   * Keeps a pending subscriber, unless the link has `limit` pending already. "added" when written;
   * "kept" when this subscription is kept for this link already; "payer-pending" when this payer has
   * another subscription pending on the link; "full" at the bound. Counted and written in one
   * transaction holding the link's row, so concurrent subscribes to one link (on several instances
   * sharing PostgreSQL too) take their turns and never pass the bound together.
   */
  async addPending(
    s: {
      linkId: Hex;
      subscriptionId: Hex;
      payer: Address;
      subscription: string;
      createdAt: number;
      pendingUntil: number;
    },
    limit: number,
  ): Promise<"added" | "kept" | "payer-pending" | "full"> {
    const sealed = this.tokens.seal(SEALED_CAPABILITY, `${s.linkId}:${s.subscriptionId}`, s.subscription);
    return this.db.transaction(async (tx) => {
      await tx.query("SELECT link_id FROM links WHERE link_id = $1 FOR UPDATE", [s.linkId]);
      const kept = await tx.query("SELECT 1 FROM link_subscriptions WHERE link_id = $1 AND subscription_id = $2", [s.linkId, s.subscriptionId]);
      if (kept.length > 0) return "kept";
      const [row] = await tx.query<{ n: string | number }>("SELECT count(*) AS n FROM link_subscriptions WHERE link_id = $1 AND state = 'pending'", [s.linkId]);
      if (Number(row?.n ?? 0) >= limit) return "full";
      // No conflict target: a second pending row of the payer (the partial unique index) writes nothing.
      const rows = await tx.query(
        "INSERT INTO link_subscriptions (link_id, subscription_id, payer, capability_sealed, created_at, state, pending_until) VALUES ($1, $2, $3, $4, $5, 'pending', $6) ON CONFLICT DO NOTHING RETURNING seq",
        [s.linkId, s.subscriptionId, s.payer, sealed, s.createdAt, s.pendingUntil],
      );
      return rows.length > 0 ? "added" : "payer-pending";
    });
  }

  /** The pending rows of these subscriptions, on whatever link (what a round's `Charged` logs name). */
  async pendingOf(subscriptionIds: Hex[]): Promise<LinkSubscriber[]> {
    if (subscriptionIds.length === 0) return [];
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM link_subscriptions WHERE subscription_id = ANY($1::text[]) AND state = 'pending'`, [
      subscriptionIds,
    ]);
    return rows.map((r) => this.#open(r));
  }

  /** The link's pending rows past their time (at most `limit`), oldest first. */
  async expiredPending(linkId: Hex, now: number, limit: number): Promise<LinkSubscriber[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM link_subscriptions WHERE link_id = $1 AND state = 'pending' AND pending_until <= $2 ORDER BY seq LIMIT $3`,
      [linkId, now, limit],
    );
    return rows.map((r) => this.#open(r));
  }

  /** A pending row whose first charge may still be mined gets another while. */
  async extendPending(linkId: Hex, subscriptionId: Hex, until: number): Promise<void> {
    await this.db.query("UPDATE link_subscriptions SET pending_until = $3 WHERE link_id = $1 AND subscription_id = $2 AND state = 'pending'", [
      linkId,
      subscriptionId,
      until,
    ]);
  }

  /** Drops every pending row of the link (a closed link keeps none). */
  async dropPending(linkId: Hex): Promise<void> {
    await this.db.query("DELETE FROM link_subscriptions WHERE link_id = $1 AND state = 'pending'", [linkId]);
  }

  /** This subscription's row on this link, or null. */
  async find(linkId: Hex, subscriptionId: Hex): Promise<LinkSubscriber | null> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM link_subscriptions WHERE link_id = $1 AND subscription_id = $2`, [linkId, subscriptionId]);
    return row ? this.#open(row) : null;
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

  /** The link's pending rows (at most `limit`), oldest first. */
  async pending(linkId: Hex, limit: number): Promise<LinkSubscriber[]> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM link_subscriptions WHERE link_id = $1 AND state = 'pending' ORDER BY seq LIMIT $2`, [
      linkId,
      limit,
    ]);
    return rows.map((r) => this.#open(r));
  }

  /** Up to `limit` active subscribers of a link after the cursor `after`, oldest first. */
  async page(linkId: Hex, after: string | undefined, limit: number): Promise<LinkSubscriber[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM link_subscriptions WHERE link_id = $1 AND state = 'active' AND seq > $2 ORDER BY seq LIMIT $3`,
      [linkId, after ?? "0", limit],
    );
    return rows.map((r) => this.#open(r));
  }

  #open(r: Row): LinkSubscriber {
    const subscription = this.tokens.open(SEALED_CAPABILITY, `${r.link_id}:${r.subscription_id}`, r.capability_sealed);
    // A row that does not open was sealed under a key no longer configured: TOKEN_KEYS must keep every key that sealed a row.
    if (subscription === null) throw new Error(`link subscription ${r.subscription_id}: sealed under a key not in TOKEN_KEYS`);
    return {
      linkId: r.link_id as Hex,
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
