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

/** Whether a watch counts toward the caps: a link's own watch and payments made without a link. */
const counted = (w: { kind: WatchKind; linkId: string | null }) => w.kind === "link" || w.linkId === null;

export interface WatchCaps {
  perCaller: number;
  total: number;
}

/**
 * Watched references and subscriptions, with their cap counters (`watch_counts`: one row per caller
 * and one for the total), kept in the same transaction as the rows they count, so a cap check is
 * two primary-key reads however many watches exist.
 */
export class Watches {
  constructor(private readonly db: Pick<Database, "query" | "transaction">) {}

  /**
   * Watches not yet pruned of one caller, and in total. A link counts once; the payments minted
   * through it do not count again. A watch counts until the watcher has read past its end.
   */
  async activeCounts(caller: string): Promise<{ caller: number; total: number }> {
    const rows = await this.db.query<{ scope: string; active: string | number }>("SELECT scope, active FROM watch_counts WHERE scope = ANY($1)", [
      [`caller:${caller}`, "total"],
    ]);
    const of = (scope: string) => Number(rows.find((r) => r.scope === scope)?.active ?? 0);
    return { caller: of(`caller:${caller}`), total: of("total") };
  }

  /**
   * Adds (or renews) a watch. A new counted watch takes a place under `caps` in the same
   * transaction; false, with nothing written, when there is none.
   */
  async add(w: Watch, caps: WatchCaps | null): Promise<boolean> {
    return this.db
      .transaction(async (tx) => {
        const [row] = await tx.query<{ inserted: boolean }>(
          "INSERT INTO watches (kind, key, notify_url, caller, link_id, data, watch_until) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (kind, key) DO UPDATE SET notify_url = EXCLUDED.notify_url, watch_until = EXCLUDED.watch_until RETURNING (xmax = 0) AS inserted",
          [w.kind, w.key, w.notifyUrl, w.caller, w.linkId, JSON.stringify(w.data), w.watchUntil],
        );
        if (!row!.inserted || !counted(w)) return true;
        if (await takePlace(tx, w.caller, caps)) return true;
        throw NO_ROOM;
      })
      .catch((error) => {
        if (error === NO_ROOM) return false;
        throw error;
      });
  }

  async find(kind: WatchKind, keys: string[]): Promise<Watch[]> {
    if (keys.length === 0) return [];
    return (await this.db.query<WatchRow>("SELECT * FROM watches WHERE kind = $1 AND key = ANY($2)", [kind, keys])).map(watchFrom);
  }

  /** Ends every watch of a link (the link was closed). */
  async endForLink(linkId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const gone = await tx.query<{ kind: WatchKind; caller: string; link_id: string | null }>(
        "DELETE FROM watches WHERE link_id = $1 RETURNING kind, caller, link_id",
        [linkId],
      );
      await releasePlaces(
        tx,
        gone.filter((g) => counted({ kind: g.kind, linkId: g.link_id })).map((g) => g.caller),
      );
    });
  }

  /**
   * Deletes up to `limit` watches that ended before `before` (unix seconds), releasing their places.
   * Returns how many were deleted.
   */
  async pruneEnded(before: number, limit: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.query<{ kind: WatchKind; caller: string; link_id: string | null }>(
        "DELETE FROM watches WHERE (kind, key) IN (SELECT kind, key FROM watches WHERE watch_until < $1 ORDER BY watch_until LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING kind, caller, link_id",
        [before, limit],
      );
      await releasePlaces(
        tx,
        gone.filter((g) => counted({ kind: g.kind, linkId: g.link_id })).map((g) => g.caller),
      );
      return gone.length;
    });
  }
}

const NO_ROOM = new Error("no room under the watch caps");

/** Takes one place for `caller` under the caps (no caps: counts only). False when either is full. */
async function takePlace(tx: Pick<Database, "query">, caller: string, caps: WatchCaps | null): Promise<boolean> {
  for (const [scope, cap] of [
    [`caller:${caller}`, caps?.perCaller],
    ["total", caps?.total],
  ] as const) {
    const rows = await tx.query(
      "INSERT INTO watch_counts (scope, active) SELECT $1, 1 WHERE 1 <= $2::bigint ON CONFLICT (scope) DO UPDATE SET active = watch_counts.active + 1 WHERE watch_counts.active < $2::bigint RETURNING active",
      [scope, cap ?? Number.MAX_SAFE_INTEGER],
    );
    if (rows.length === 0) return false;
  }
  return true;
}

async function releasePlaces(tx: Pick<Database, "query">, callers: string[]): Promise<void> {
  if (callers.length === 0) return;
  const perCaller = new Map<string, number>();
  for (const c of callers) perCaller.set(`caller:${c}`, (perCaller.get(`caller:${c}`) ?? 0) + 1);
  perCaller.set("total", callers.length);
  const scopes = [...perCaller.keys()].sort(); // one lock order for every writer
  await tx.query(
    "UPDATE watch_counts SET active = GREATEST(0, active - d.n) FROM (SELECT unnest($1::text[]) AS scope, unnest($2::bigint[]) AS n) d WHERE watch_counts.scope = d.scope",
    [scopes, scopes.map((s) => perCaller.get(s)!)],
  );
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
    const [r] = await this.db.query<{
      link_id: string;
      recipient: string;
      amount_units: string;
      notify_url: string | null;
      caller: string;
      expires_at: string | number;
      closed: boolean;
    }>("SELECT * FROM links WHERE link_id = $1", [linkId]);
    return r
      ? {
          linkId: r.link_id,
          recipient: r.recipient,
          amountUnits: BigInt(r.amount_units),
          notifyUrl: r.notify_url,
          caller: r.caller,
          expiresAt: Number(r.expires_at),
          closed: r.closed,
        }
      : null;
  }

  async close(linkId: string): Promise<void> {
    await this.db.query("UPDATE links SET closed = true WHERE link_id = $1", [linkId]);
  }
}

/** The target a delivery counts against for per-target concurrency: the notify_url's host and port. */
export function deliveryTarget(notifyUrl: string): string {
  return new URL(notifyUrl).host.toLowerCase();
}

export interface Delivery {
  eventId: string;
  target: string;
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
  target: string;
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
  target: r.target,
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
      "INSERT INTO webhook_deliveries (event_id, event_type, notify_url, target, payload, next_attempt_at, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (event_id) DO NOTHING",
      [e.eventId, e.eventType, e.notifyUrl, deliveryTarget(e.notifyUrl), JSON.stringify(e.payload), e.dueAt],
    );
  }

  /**
   * Leases up to `limit` due deliveries for `leaseMs`, oldest first (by the due index: the cost
   * grows with `limit`, not with the queue), skipping rows another instance holds and the targets
   * named in `skipTargets` (their slots are full here).
   */
  async leaseDue(nowMs: number, leaseMs: number, limit: number, skipTargets: string[] = []): Promise<Delivery[]> {
    const rows = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET lease_until = $1
        WHERE event_id IN (
          SELECT event_id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2 AND NOT (target = ANY($4))
           ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [nowMs + leaseMs, nowMs, limit, skipTargets],
    );
    return rows.map(deliveryFrom);
  }

  /** Gives leased rows back untouched (this instance will not attempt them now). */
  async release(eventIds: string[]): Promise<void> {
    if (eventIds.length) await this.db.query("UPDATE webhook_deliveries SET lease_until = 0 WHERE event_id = ANY($1)", [eventIds]);
  }

  /** Deletes up to `limit` delivered or dropped rows whose last attempt was before `beforeMs`. */
  async pruneFinished(beforeMs: number, limit: number): Promise<number> {
    const rows = await this.db.query(
      "DELETE FROM webhook_deliveries WHERE event_id IN (SELECT event_id FROM webhook_deliveries WHERE status <> 'pending' AND next_attempt_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING event_id",
      [beforeMs, limit],
    );
    return rows.length;
  }

  /** Marks deliveries acknowledged at `nowMs` (kept until pruned), in one statement. */
  async markDelivered(eventIds: string | string[], nowMs: number): Promise<void> {
    await this.db.query(
      "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, lease_until = 0, last_error = NULL, next_attempt_at = $2 WHERE event_id = ANY($1)",
      [typeof eventIds === "string" ? [eventIds] : eventIds, nowMs],
    );
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

  async get(): Promise<{ blockNumber: bigint; blockHash: string; blockTime: number } | null> {
    const [r] = await this.db.query<{ block_number: string | number; block_hash: string; block_time: string | number }>(
      "SELECT * FROM watcher_cursor WHERE name = 'chain'",
    );
    return r ? { blockNumber: BigInt(r.block_number), blockHash: r.block_hash, blockTime: Number(r.block_time) } : null;
  }

  /** Moves the cursor to a block (its number, hash and timestamp in unix seconds). */
  async set(blockNumber: bigint, blockHash: string, blockTime: number): Promise<void> {
    await this.db.query(
      "INSERT INTO watcher_cursor (name, block_number, block_hash, block_time) VALUES ('chain', $1, $2, $3) ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number, block_hash = EXCLUDED.block_hash, block_time = EXCLUDED.block_time",
      [blockNumber.toString(), blockHash, blockTime],
    );
  }
}
