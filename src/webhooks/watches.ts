import type { Database } from "../store/database.js";

export type WatchKind = "payment" | "subscription" | "link";

export interface Watch {
  kind: WatchKind;
  /** The payment's reference, the subscription's id or the link's id. */
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

  /** Ends the watches of a link and of its payments (the link was closed); its subscribers' subscriptions go on, watched. */
  async endForLink(linkId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const gone = await tx.query<{ kind: WatchKind; caller: string; link_id: string | null }>(
        "DELETE FROM watches WHERE link_id = $1 AND kind <> 'subscription' RETURNING kind, caller, link_id",
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
