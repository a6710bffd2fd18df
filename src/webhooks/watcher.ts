import { BlockNotFoundError, type Hex, type PublicClient } from "viem";
import { CHARGED_EVENT, REVOKED_EVENT } from "../chain/contracts/recurring-charges.js";
import { PAID_EVENT } from "../chain/contracts/splitter.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { finalityHead } from "../chain/finality.js";
import { logsIn, type ChainView, type FollowerConsumer, type Head } from "../chain/follower.js";
import { rpc } from "../chain/rpc-errors.js";
import type { Database } from "../store/database.js";
import { WatcherCursor } from "./cursor.js";
import { Deliveries } from "./deliveries.js";
import { WatchedEvents, subjectsOf, type Event } from "./watched-events.js";
import { Watches, type Watch } from "./watches.js";
import type { WebhookEvent } from "../wire/index.js";

const EVENTS = [PAID_EVENT, CHARGED_EVENT, REVOKED_EVENT];
/** The events that get an inclusion hint: a payment's and a charge's (a revocation waits for finality). */
const HINTED_EVENTS = [PAID_EVENT, CHARGED_EVENT];
/** How far below the finality head the final pass looks for a block whose header the follower saw, to end its stretch there. */
const HEADER_SEARCH_BLOCKS = 64n;
/** Inclusion hints checked against the chain per tick. */
const HINTS_PER_TICK = 1000;

export interface WatcherDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  db: Database;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Rebuilds the intent token of a watched payment (deterministic; no capability is stored). */
  intentFor: (watch: Watch) => string;
  /** Blocks read back on the first start (no cursor yet). */
  backfillBlocks?: bigint;
  /** Blocks re-read when the cursor's block hash changed (a reorg deeper than finality). */
  rewindBlocks?: bigint;
  /** Most blocks one log query covers. */
  maxRange?: bigint;
}

/**
 * Follows the Splitter's and RecurringCharges' events up to the finality head only, so a payment
 * that is reorged out before it settles is never announced final. Survives restarts from its stored
 * cursor; if the cursor's block hash changed, it re-reads a stretch behind it (events keep their ids).
 *
 * For watches that asked for it (notify_included), it also reads the blocks above the finality head
 * and sends an inclusion hint per watched payment or charge mined there (payment.included,
 * subscription.charge_included), then follows each hint's block until it is final (nothing more is
 * sent but the final event) or the node, having reached its height, shows another block there
 * (payment.reorged, subscription.charge_reorged): a node that lags below a hint retracts nothing.
 */
export class Watcher implements FollowerConsumer {
  readonly name = "watcher";
  readonly #watched: WatchedEvents;

  constructor(private readonly deps: WatcherDeps) {
    this.#watched = new WatchedEvents(deps);
  }

  /** The follower's round (chain/follower.ts): {@link tick} on its view, on until caught up with the finality head. */
  async follow(view: ChainView): Promise<unknown> {
    for (;;) {
      const read = await this.tick(view);
      // Within the last 64 blocks it stopped at a header the follower saw: the next round reads on.
      if (!read || read.to >= view.finalHead - HEADER_SEARCH_BLOCKS) return read;
    }
  }

  /**
   * Reads the next stretch of settled blocks and enqueues events for watched payments and
   * subscriptions, then the inclusion hints above the head (null when no settled block was new).
   * On the follower's `view`, the heads, the headers it saw and the new blocks' logs cost no request.
   */
  async tick(view?: ChainView): Promise<{ from: bigint; to: bigint; enqueued: number } | null> {
    const head = view?.finalHead ?? (await finalityHead(this.deps.client, this.deps.finality));
    if (head < 0n) return null;
    const final = await this.#final(head, view);
    const hints = await this.#hints(head, view);
    return final ? { ...final, enqueued: final.enqueued + hints } : null;
  }

  /** A block's header: the follower's when it saw one at that height, else read (null when the node has none). */
  async #header(n: bigint, view?: ChainView): Promise<Head | null> {
    const seen = view?.headerAt(n);
    if (seen) return seen;
    const block = await rpc(() => this.deps.client.getBlock({ blockNumber: n })).catch((error: unknown) => {
      if (error instanceof BlockNotFoundError) return null;
      throw error;
    });
    return block ? { number: block.number, hash: block.hash, timestamp: block.timestamp } : null;
  }

  /**
   * The final pass: settled blocks after the cursor, up to the head. On the follower's view it stops
   * at the highest block ≤ the head whose header the follower saw (its hash for the cursor costs no
   * read); the next round reads on from there.
   */
  async #final(head: bigint, view?: ChainView): Promise<{ from: bigint; to: bigint; enqueued: number } | null> {
    const { client, db } = this.deps;
    const cursorRepo = new WatcherCursor(db);
    const cursor = await cursorRepo.get();
    let from: bigint;
    if (!cursor) {
      from = head - (this.deps.backfillBlocks ?? 1000n);
    } else {
      const block = await this.#header(cursor.blockNumber, view);
      from = block && block.hash === cursor.blockHash ? cursor.blockNumber + 1n : cursor.blockNumber - (this.deps.rewindBlocks ?? 64n);
    }
    if (from < 0n) from = 0n;
    if (from > head) return null;
    const maxRange = this.deps.maxRange ?? 2000n;
    let to = head - from + 1n > maxRange ? from + maxRange - 1n : head;
    if (view && to === head) {
      for (let n = head; n >= from && n > head - HEADER_SEARCH_BLOCKS; n--) {
        if (view.headerAt(n)) {
          to = n;
          break;
        }
      }
    }
    const { contracts } = this.deps.deployment;
    const [logs, toBlock] = await Promise.all([
      logsIn(client, view, { address: [contracts.Splitter.address, contracts.RecurringCharges.address], events: EVENTS, fromBlock: from, toBlock: to }),
      this.#header(to, view).then((b) => {
        if (!b) throw new Error(`the node has no block ${to}`);
        return b;
      }),
    ]);
    const events = await this.#watched.events(logs);
    await db.transaction(async (tx) => {
      const deliveries = new Deliveries(tx);
      for (const e of events)
        await deliveries.enqueue({
          eventId: e.eventId,
          eventType: e.eventType,
          notifyUrl: e.watch.notifyUrl,
          payload: e.payload,
          dueAt: this.deps.now(),
          subjects: subjectsOf(e.watch),
        });
      // A revoked subscription is announced once and then no more watched: its watch ends at the
      // revocation (pruned later, its place under the caps given back).
      for (const e of events) if (e.eventType === "subscription.revoked") await Watches.endSubscription(tx, e.watch.key, e.payload.created_at);
      await new WatcherCursor(tx).set(to, toBlock.hash, Number(toBlock.timestamp));
    });
    return { from, to, enqueued: events.length };
  }

  /**
   * The hint pass: each hint sent and not yet final is checked against the chain (its block still
   * there: final once at or below the head; gone: its retraction is enqueued), then the blocks above
   * the head are read for watched payments and charges whose watch asked for hints. Costs nothing
   * (one store read) while no watch asks and no hint is open.
   */
  async #hints(head: bigint, view?: ChainView): Promise<number> {
    const { client, db } = this.deps;
    const [wanted] = await db.query<{ open: boolean; asked: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM included_hints) AS open, EXISTS (SELECT 1 FROM watches WHERE (data->>'included') = 'true') AS asked",
    );
    if (!wanted?.open && !wanted?.asked) return 0;
    const latest = view?.head.number ?? (await rpc(() => client.getBlockNumber({ cacheTime: 0 })));
    let enqueued = 0;
    if (wanted.open) {
      const open = await db.query<{
        event_id: string;
        block_number: string | number;
        block_hash: string;
        notify_url: string;
        retraction_type: WebhookEvent["type"];
        retraction_id: string;
        retraction: WebhookEvent | string;
        reference: string | null;
        link_id: string | null;
        subscription_id: string | null;
      }>("SELECT * FROM included_hints ORDER BY block_number LIMIT $1", [HINTS_PER_TICK]);
      const numbers = [...new Set(open.map((h) => BigInt(h.block_number)))];
      // A block the node has not reached (above its latest, or unknown to it: a node behind a load
      // balancer's other one) says nothing of a hint: only another block at the hint's height retracts it.
      const hashes = await Promise.all(
        numbers.map((n) =>
          n > latest
            ? null
            : rpc(() =>
                client.getBlock({ blockNumber: n }).then(
                  (b) => b.hash as string,
                  (error: unknown) => {
                    if (error instanceof BlockNotFoundError) return null;
                    throw error;
                  },
                ),
              ),
        ),
      );
      const canonical = new Map(numbers.map((n, i) => [n, hashes[i]]));
      const reached = (h: { block_number: string | number }) => canonical.get(BigInt(h.block_number)) != null;
      const gone = open.filter((h) => reached(h) && canonical.get(BigInt(h.block_number)) !== h.block_hash);
      const final = open.filter((h) => reached(h) && !gone.includes(h) && BigInt(h.block_number) <= head);
      if (gone.length + final.length > 0)
        await db.transaction(async (tx) => {
          const deliveries = new Deliveries(tx);
          for (const h of gone)
            await deliveries.enqueue({
              eventId: h.retraction_id,
              eventType: h.retraction_type,
              notifyUrl: h.notify_url,
              payload: retractionOf(h),
              dueAt: this.deps.now(),
              subjects: {
                ...(h.reference ? { reference: h.reference } : {}),
                ...(h.link_id ? { linkId: h.link_id } : {}),
                ...(h.subscription_id ? { subscriptionId: h.subscription_id } : {}),
              },
            });
          await tx.query("DELETE FROM included_hints WHERE event_id = ANY($1)", [[...gone, ...final].map((h) => h.event_id)]);
        });
      enqueued += gone.length;
    }
    if (!wanted.asked || latest <= head) return enqueued;
    const maxRange = this.deps.maxRange ?? 2000n;
    const from = latest - head > maxRange ? latest - maxRange + 1n : head + 1n;
    const { contracts } = this.deps.deployment;
    const logs = await logsIn(client, view, {
      address: [contracts.Splitter.address, contracts.RecurringCharges.address],
      events: HINTED_EVENTS,
      fromBlock: from,
      toBlock: latest,
    });
    return enqueued + (await this.#sendHints(await this.#watched.events(logs as never, "hint")));
  }

  /**
   * Records and enqueues hints, each once: a hint already followed (or already final and forgotten)
   * is not sent again, nor a second one for a transaction in the same block.
   */
  async #sendHints(hints: Event[]): Promise<number> {
    if (hints.length === 0) return 0;
    let enqueued = 0;
    await this.deps.db.transaction(async (tx) => {
      const deliveries = new Deliveries(tx);
      for (const e of hints) {
        const subjects = subjectsOf(e.watch);
        const retraction = e.hint!.retraction.payload as { data: { tx_hash: Hex } };
        const [fresh] = await tx.query(
          `INSERT INTO included_hints (event_id, block_number, block_hash, notify_url, retraction_type, retraction_id, retraction, reference, link_id, subscription_id)
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
           WHERE NOT EXISTS (SELECT 1 FROM included_hints WHERE block_number = $2 AND notify_url = $4 AND retraction_type = $5 AND retraction->'data'->>'tx_hash' = $11)
           ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
          [
            e.eventId,
            e.hint!.blockNumber.toString(),
            e.hint!.blockHash,
            e.watch.notifyUrl,
            e.hint!.retraction.eventType,
            e.hint!.retraction.eventId,
            JSON.stringify(e.hint!.retraction.payload),
            subjects.reference ?? null,
            subjects.linkId ?? null,
            subjects.subscriptionId ?? null,
            retraction.data.tx_hash,
          ],
        );
        if (!fresh) continue;
        await deliveries.enqueue({
          eventId: e.eventId,
          eventType: e.eventType,
          notifyUrl: e.watch.notifyUrl,
          payload: e.payload,
          dueAt: this.deps.now(),
          subjects,
        });
        enqueued++;
      }
    });
    return enqueued;
  }
}

/** A kept hint's retraction body (JSONB: an object, or a string from a driver that returns it as text). */
function retractionOf(h: { retraction: WebhookEvent | string }): WebhookEvent & { data: { tx_hash: Hex } } {
  return (typeof h.retraction === "string" ? JSON.parse(h.retraction) : h.retraction) as WebhookEvent & { data: { tx_hash: Hex } };
}
