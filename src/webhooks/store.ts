import type { Database } from "../store/database.js";

export type WatchKind = "payment" | "subscription" | "link";

export interface Watch {
  kind: WatchKind;
  key: string;
  notifyUrl: string;
  caller: string;
  linkId: string | null;
  data: Record<string, unknown>;
  watchUntil: number;
}

interface WatchRow {
  kind: WatchKind;
  key: string;
  notify_url: string;
  caller: string;
  link_id: string | null;
  data: Record<string, unknown> | string;
  watch_until: string | number;
}

const watchFrom = (r: WatchRow): Watch => ({
  kind: r.kind,
  key: r.key,
  notifyUrl: r.notify_url,
  caller: r.caller,
  linkId: r.link_id,
  data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
  watchUntil: Number(r.watch_until),
});

/** Watched references and subscriptions. */
export class Watches {
  constructor(private readonly db: Pick<Database, "query">) {}

  /**
   * Active watches (`watch_until` after `nowSeconds`) of one caller, and in total. A link counts once;
   * the payments minted through it do not count again.
   */
  async activeCounts(caller: string, nowSeconds: number): Promise<{ caller: number; total: number }> {
    const [row] = await this.db.query<{ caller: string | number; total: string | number }>(
      "SELECT count(*) FILTER (WHERE caller = $1) AS caller, count(*) AS total FROM watches WHERE watch_until > $2 AND (kind = 'link' OR link_id IS NULL)",
      [caller, nowSeconds],
    );
    return { caller: Number(row!.caller), total: Number(row!.total) };
  }

  async add(w: Watch): Promise<void> {
    await this.db.query(
      "INSERT INTO watches (kind, key, notify_url, caller, link_id, data, watch_until) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kind, key) DO UPDATE SET notify_url = EXCLUDED.notify_url, watch_until = EXCLUDED.watch_until",
      [w.kind, w.key, w.notifyUrl, w.caller, w.linkId, JSON.stringify(w.data), w.watchUntil],
    );
  }

  async find(kind: WatchKind, keys: string[]): Promise<Watch[]> {
    if (keys.length === 0) return [];
    return (await this.db.query<WatchRow>("SELECT * FROM watches WHERE kind = $1 AND key = ANY($2)", [kind, keys])).map(watchFrom);
  }

  /** Ends every watch of a link (the link was closed). */
  async endForLink(linkId: string): Promise<void> {
    await this.db.query("DELETE FROM watches WHERE link_id = $1", [linkId]);
  }
}

export interface LinkRecord {
  linkId: string;
  recipient: string;
  amountUnits: bigint;
  notifyUrl: string | null;
  caller: string;
  expiresAt: number;
  closed: boolean;
}

/** Payment links: kept so a link can mint payments, carry its notify_url, and be closed. */
export class LinkRecords {
  constructor(private readonly db: Pick<Database, "query">) {}

  async add(l: Omit<LinkRecord, "closed">): Promise<void> {
    await this.db.query("INSERT INTO links (link_id, recipient, amount_units, notify_url, caller, expires_at) VALUES ($1, $2, $3, $4, $5, $6)", [
      l.linkId,
      l.recipient,
      l.amountUnits.toString(),
      l.notifyUrl,
      l.caller,
      l.expiresAt,
    ]);
  }

  async find(linkId: string): Promise<LinkRecord | null> {
    const [r] = await this.db.query<{ link_id: string; recipient: string; amount_units: string; notify_url: string | null; caller: string; expires_at: string | number; closed: boolean }>(
      "SELECT * FROM links WHERE link_id = $1",
      [linkId],
    );
    return r ? { linkId: r.link_id, recipient: r.recipient, amountUnits: BigInt(r.amount_units), notifyUrl: r.notify_url, caller: r.caller, expiresAt: Number(r.expires_at), closed: r.closed } : null;
  }

  async close(linkId: string): Promise<void> {
    await this.db.query("UPDATE links SET closed = true WHERE link_id = $1", [linkId]);
  }
}

export interface Delivery {
  eventId: string;
  eventType: string;
  notifyUrl: string;
  payload: Record<string, unknown>;
  attempts: number;
  nextAttemptAt: number;
  status: "pending" | "delivered" | "dropped";
  lastError: string | null;
}

interface DeliveryRow {
  event_id: string;
  event_type: string;
  notify_url: string;
  payload: Record<string, unknown> | string;
  attempts: number;
  next_attempt_at: string | number;
  status: Delivery["status"];
  last_error: string | null;
}

const deliveryFrom = (r: DeliveryRow): Delivery => ({
  eventId: r.event_id,
  eventType: r.event_type,
  notifyUrl: r.notify_url,
  payload: typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload,
  attempts: Number(r.attempts),
  nextAttemptAt: Number(r.next_attempt_at),
  status: r.status,
  lastError: r.last_error,
});

/** The persisted delivery queue. Several instances take due rows with leases (SKIP LOCKED). */
export class Deliveries {
  constructor(private readonly db: Pick<Database, "query">) {}

  /** Enqueues an event once: the same event id again is ignored. */
  async enqueue(e: { eventId: string; eventType: string; notifyUrl: string; payload: Record<string, unknown>; dueAt: number }): Promise<void> {
    await this.db.query(
      "INSERT INTO webhook_deliveries (event_id, event_type, notify_url, payload, next_attempt_at, status) VALUES ($1, $2, $3, $4, $5, 'pending') ON CONFLICT (event_id) DO NOTHING",
      [e.eventId, e.eventType, e.notifyUrl, JSON.stringify(e.payload), e.dueAt],
    );
  }

  /** Leases up to `limit` due deliveries for `leaseMs`; rows another instance holds are skipped. */
  async leaseDue(nowMs: number, leaseMs: number, limit: number): Promise<Delivery[]> {
    const rows = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET lease_until = $1
        WHERE event_id IN (
          SELECT event_id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2
           ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [nowMs + leaseMs, nowMs, limit],
    );
    return rows.map(deliveryFrom);
  }

  async markDelivered(eventId: string): Promise<void> {
    await this.db.query("UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, lease_until = 0, last_error = NULL WHERE event_id = $1", [eventId]);
  }

  /** Records a failed attempt: due again at `nextAttemptAt`, or dropped when that is null. */
  async markFailed(eventId: string, error: string, nextAttemptAt: number | null): Promise<void> {
    await this.db.query(
      "UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = 0, last_error = $2, status = $3, next_attempt_at = COALESCE($4, next_attempt_at) WHERE event_id = $1",
      [eventId, error.slice(0, 500), nextAttemptAt === null ? "dropped" : "pending", nextAttemptAt],
    );
  }

  async all(): Promise<Delivery[]> {
    return (await this.db.query<DeliveryRow>("SELECT * FROM webhook_deliveries ORDER BY created_at, event_id")).map(deliveryFrom);
  }
}

/** The watcher's position: the last block read, with its hash. */
export class WatcherCursor {
  constructor(private readonly db: Pick<Database, "query">) {}

  async get(): Promise<{ blockNumber: bigint; blockHash: string } | null> {
    const [r] = await this.db.query<{ block_number: string | number; block_hash: string }>("SELECT * FROM watcher_cursor WHERE name = 'chain'");
    return r ? { blockNumber: BigInt(r.block_number), blockHash: r.block_hash } : null;
  }

  async set(blockNumber: bigint, blockHash: string): Promise<void> {
    await this.db.query(
      "INSERT INTO watcher_cursor (name, block_number, block_hash) VALUES ('chain', $1, $2) ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash",
      [blockNumber.toString(), blockHash],
    );
  }
}
