import type { Database } from "../store/database.js";

export type WatchKind = "payment" | "subscription" | "link" | "hold";

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

/**
 * Whether a watch counts toward the caps: every watch but a payment minted through a link (the link's
 * own watch covers those). A link's subscribers each count, under the link's caller: each is a watch
 * that lasts as long as its subscription.
 */
const counted = (w: { kind: WatchKind; linkId: string | null }) => w.kind !== "payment" || w.linkId === null;

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
   * Watches not yet pruned of one caller, and in total. A link counts once and each of its
   * subscribers once; the payments minted through it do not count again. A watch counts until the watcher has read past its end.
   */
  async activeCounts(caller: string): Promise<{ caller: number; total: number }> {
    const rows = await this.db.query<{ scope: string; active: string | number }>("SELECT scope, active FROM watch_counts WHERE scope = ANY($1)", [
      [`caller:${caller}`, "total"],
    ]);
    const of = (scope: string) => Number(rows.find((r) => r.scope === scope)?.active ?? 0);
    return { caller: of(`caller:${caller}`), total: of("total") };
  }

  /**
   * Adds (or renews) a watch. A new counted watch takes a place under `caps` in the same statement
   * (the store's add_watch); false, with nothing written, when there is none.
   */
  async add(w: Watch, caps: WatchCaps | null): Promise<boolean> {
    try {
      await this.db.query("SELECT add_watch($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10)", [
        w.kind,
        w.key,
        w.notifyUrl,
        w.caller,
        w.linkId,
        JSON.stringify(w.data),
        w.watchUntil,
        counted(w),
        caps?.perCaller ?? Number.MAX_SAFE_INTEGER,
        caps?.total ?? Number.MAX_SAFE_INTEGER,
      ]);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === NO_ROOM) return false;
      throw error;
    }
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

  /** Ends the watch a link's subscriber holds (the merchant removed it), giving its place back at once. */
  async endForLinkSubscriber(linkId: string, subscriptionId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const gone = await tx.query<{ kind: WatchKind; caller: string; link_id: string | null }>(
        "DELETE FROM watches WHERE kind = 'subscription' AND key = $1 AND link_id = $2 RETURNING kind, caller, link_id",
        [subscriptionId, linkId],
      );
      await releasePlaces(
        tx,
        gone.filter((g) => counted({ kind: g.kind, linkId: g.link_id })).map((g) => g.caller),
      );
    });
  }

  /**
   * Ends a subscription's watch at `at` (unix seconds) if it would last longer: the subscription was
   * revoked then, and nothing of it is announced after. Pruned, like any ended watch, once the watcher
   * has read past it, and its place under the caps is given back then.
   */
  static async endSubscription(db: Pick<Database, "query">, subscriptionId: string, at: number): Promise<void> {
    await db.query("UPDATE watches SET watch_until = $2 WHERE kind = 'subscription' AND key = $1 AND watch_until > $2", [subscriptionId, at]);
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

/** The SQLSTATE add_watch raises when a cap is full (migration 016). */
const NO_ROOM = "SVNRM";

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
