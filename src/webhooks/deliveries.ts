import type { Database } from "../store/database.js";

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
  /** The exact body every attempt sends (and POST /v1/events answers). */
  body: string;
  attempts: number;
  nextAttemptAt: number;
  status: "pending" | "delivered" | "dropped";
  lastError: string | null;
  /**
   * Its first signing (the first attempt's, or a read-back's before any attempt): the
   * `webhook-timestamp` (unix seconds) and `webhook-signature` POST /v1/events answers for good.
   * Null until then.
   */
  signed: FirstSigning | null;
}

/** An event's headers as first signed: the timestamp and the signature made over it. */
export interface FirstSigning {
  at: number;
  signature: string;
}

/** What reads an event back (POST /v1/events): the payment's reference, the link's id, the subscription's id. */
export interface EventSubjects {
  reference?: string;
  linkId?: string;
  subscriptionId?: string;
}

interface DeliveryRow {
  event_id: string;
  target: string;
  event_type: string;
  notify_url: string;
  /** Absent where only the body is read (a lease). */
  payload?: Record<string, unknown> | string;
  body: string | null;
  attempts: number;
  next_attempt_at: string | number;
  status: Delivery["status"];
  last_error: string | null;
  signed_at?: string | number | null;
  signature?: string | null;
}

const deliveryFrom = (r: DeliveryRow): Delivery => {
  const stored = r.payload === undefined ? null : typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload;
  return {
    eventId: r.event_id,
    target: r.target,
    eventType: r.event_type,
    notifyUrl: r.notify_url,
    // A lease reads only the body: the payload is parsed from it if anything asks.
    get payload() {
      return stored ?? JSON.parse(r.body!);
    },
    body: r.body ?? JSON.stringify(stored),
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    status: r.status,
    lastError: r.last_error,
    signed: r.signed_at != null && r.signature != null ? { at: Number(r.signed_at), signature: r.signature } : null,
  };
};

/** The persisted delivery queue. Several instances take due rows with leases (SKIP LOCKED). */
export class Deliveries {
  constructor(private readonly db: Pick<Database, "query">) {}

  /**
   * Enqueues an event once: the same event id again is ignored. The body is fixed here, so every
   * attempt and every read-back carries the same bytes.
   */
  async enqueue(e: { eventId: string; eventType: string; notifyUrl: string; payload: object; dueAt: number; subjects?: EventSubjects }): Promise<void> {
    const body = JSON.stringify(e.payload);
    await this.db.query(
      "INSERT INTO webhook_deliveries (event_id, event_type, notify_url, target, payload, body, next_attempt_at, status, reference, link_id, subscription_id) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9, $10) ON CONFLICT (event_id) DO NOTHING",
      [
        e.eventId,
        e.eventType,
        e.notifyUrl,
        deliveryTarget(e.notifyUrl),
        body,
        body,
        e.dueAt,
        e.subjects?.reference ?? null,
        e.subjects?.linkId ?? null,
        e.subjects?.subscriptionId ?? null,
      ],
    );
  }

  /**
   * The events filed under one subject, delivered or not, oldest first, after the event `after`
   * (from the start when it is not given or no longer kept): at most `limit`, read by its index.
   */
  async eventsFor(subject: { column: "reference" | "link_id" | "subscription_id"; value: string }, after: string | null, limit: number): Promise<Delivery[]> {
    const rows = await this.db.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries
        WHERE ${subject.column} = $1 AND seq > COALESCE((SELECT seq FROM webhook_deliveries WHERE event_id = $2 AND ${subject.column} = $1), 0)
        ORDER BY seq LIMIT $3`,
      [subject.value, after, limit],
    );
    return rows.map(deliveryFrom);
  }

  /**
   * Leases up to `limit` due deliveries for `leaseMs`, oldest first (by the due index, then each row
   * by its key: the cost grows with `limit`, not with the queue), skipping rows another instance holds and the targets
   * named in `skipTargets` (their slots are full here); only `onlyTarget`'s rows when it is given.
   */
  async leaseDue(nowMs: number, leaseMs: number, limit: number, skipTargets: string[] = [], onlyTarget: string | null = null): Promise<Delivery[]> {
    const rows = await this.db.query<DeliveryRow>(
      `UPDATE webhook_deliveries SET lease_until = $1
        WHERE event_id = ANY(ARRAY(
          SELECT event_id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= $2 AND lease_until <= $2 AND NOT (target = ANY($4))
             AND ($5::text IS NULL OR target = $5)
           ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED))
        RETURNING event_id, target, event_type, notify_url, COALESCE(body, payload::text) AS body, attempts, next_attempt_at, status, last_error, signed_at, signature`,
      [nowMs + leaseMs, nowMs, limit, skipTargets, onlyTarget],
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

  /**
   * Marks deliveries acknowledged at `nowMs` (kept until pruned), in one statement, each keeping its
   * first signing (`signed[i]` is `eventIds[i]`'s attempt's; one already kept stays).
   */
  async markDelivered(eventIds: string | string[], nowMs: number, signed: readonly (FirstSigning | null)[] = []): Promise<void> {
    const ids = typeof eventIds === "string" ? [eventIds] : eventIds;
    await this.db.query(
      `UPDATE webhook_deliveries d SET status = 'delivered', attempts = d.attempts + 1, lease_until = 0, last_error = NULL, next_attempt_at = $2,
          signed_at = COALESCE(d.signed_at, s.at), signature = COALESCE(d.signature, s.signature)
        FROM (SELECT unnest($1::text[]) AS id, unnest($3::bigint[]) AS at, unnest($4::text[]) AS signature) s
        WHERE d.event_id = s.id`,
      [ids, nowMs, ids.map((_, i) => signed[i]?.at ?? null), ids.map((_, i) => signed[i]?.signature ?? null)],
    );
  }

  /** Records a failed attempt: due again at `nextAttemptAt`, or dropped when that is null; its signing kept if it is the first. */
  async markFailed(eventId: string, error: string, nextAttemptAt: number | null, signed: FirstSigning | null = null): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, lease_until = 0, last_error = $2, status = $3, next_attempt_at = COALESCE($4, next_attempt_at),
          signed_at = COALESCE(signed_at, $5), signature = COALESCE(signature, $6)
        WHERE event_id = $1`,
      [eventId, error.slice(0, 500), nextAttemptAt === null ? "dropped" : "pending", nextAttemptAt, signed?.at ?? null, signed?.signature ?? null],
    );
  }

  /**
   * Keeps `signing` as the first signing of each of `eventIds` not signed yet and not leased (an
   * attempt in flight keeps its own when it is recorded); returns the ids it was kept for.
   */
  async keepFirstSigning(signings: Readonly<Record<string, FirstSigning>>, nowMs: number): Promise<Set<string>> {
    const ids = Object.keys(signings);
    if (ids.length === 0) return new Set();
    const rows = await this.db.query<{ event_id: string }>(
      `UPDATE webhook_deliveries d SET signed_at = s.at, signature = s.signature
        FROM (SELECT unnest($1::text[]) AS id, unnest($2::bigint[]) AS at, unnest($3::text[]) AS signature) s
        WHERE d.event_id = s.id AND d.signed_at IS NULL AND d.lease_until <= $4
        RETURNING d.event_id`,
      [ids, ids.map((id) => signings[id]!.at), ids.map((id) => signings[id]!.signature), nowMs],
    );
    return new Set(rows.map((r) => r.event_id));
  }

  async all(): Promise<Delivery[]> {
    return (await this.db.query<DeliveryRow>("SELECT * FROM webhook_deliveries ORDER BY created_at, event_id")).map(deliveryFrom);
  }
}
