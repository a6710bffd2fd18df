import type { Address, Hex, PublicClient } from "viem";
import { agreeOnLogs } from "../chain/agreement.js";
import { logsIn, type ChainView, type FollowerConsumer } from "../chain/follower.js";
import { finalityHead } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import { blockTimestampMs, logTimestampMs } from "../chain/timestamp-ms.js";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import { payerAgnosticHash, type PaymentInfo } from "../holds/payment-info.js";
import type { Database } from "../store/database.js";
import type { HoldEventBody } from "../wire/events.js";
import { Deliveries } from "./deliveries.js";
import { eventIdOf } from "./watched-events.js";
import type { Watch } from "./watches.js";

type EscrowEvent = Extract<(typeof authCaptureEscrowAbi)[number], { type: "event" }>;
const ESCROW_EVENTS = authCaptureEscrowAbi.filter(
  (i): i is Extract<EscrowEvent, { name: "PaymentAuthorized" | "PaymentCharged" | "PaymentCaptured" | "PaymentVoided" | "PaymentReclaimed" }> =>
    i.type === "event" && ["PaymentAuthorized", "PaymentCharged", "PaymentCaptured", "PaymentVoided", "PaymentReclaimed"].includes(i.name),
);

export interface HoldWatcherDeps {
  db: Pick<Database, "query" | "transaction">;
  client: PublicClient;
  finality: Finality;
  chainId: number;
  escrow: Address;
  now: () => number;
  /** Blocks read back on the first start, and the longest read. */
  backfillBlocks: bigint;
  maxRange: bigint;
}

/**
 * The holds' events (hold.authorized, hold.captured, hold.voided, hold.reclaimed) for holds made with
 * a notify_url: the escrow's final events, each kind announced from the logs a majority of the nodes
 * hold (the door), never one node's copy. A hold's watch is keyed by its id (the payer-agnostic hash);
 * its authorization names the payer, and so the payment's hash every later event is indexed by, kept
 * in the watch's data. Costs one store read a round while no hold is watched.
 */
export class HoldWatcher implements FollowerConsumer {
  readonly name = "hold-watcher";

  constructor(private readonly deps: HoldWatcherDeps) {}

  /** The follower's round: the escrow's events up to its finality head, from its logs. */
  follow(view: ChainView): Promise<unknown> {
    return this.tick(view);
  }

  /** One stretch of final blocks after the cursor (on the follower's view, or read from the node). */
  async tick(view?: ChainView): Promise<{ from: bigint; to: bigint; enqueued: number } | null> {
    const { db } = this.deps;
    const head = view?.finalHead ?? (await finalityHead(this.deps.client, this.deps.finality));
    const [cursor] = await db.query<{ block_number: string | number }>("SELECT block_number FROM watcher_cursor WHERE name = 'holds'");
    const from = cursor ? BigInt(cursor.block_number) + 1n : head - this.deps.backfillBlocks > 0n ? head - this.deps.backfillBlocks : 0n;
    if (from > head) return null;
    const to = head - from + 1n > this.deps.maxRange ? from + this.deps.maxRange - 1n : head;
    const [watched] = await db.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM watches WHERE kind = 'hold') AS any");
    const events = watched?.any ? await this.#events(view, from, to) : [];
    await db.transaction(async (tx) => {
      const deliveries = new Deliveries(tx);
      for (const e of events) {
        if (e.paymentHash) {
          await tx.query("UPDATE watches SET data = data || jsonb_build_object('payment_hash', $2::text) WHERE kind = 'hold' AND key = $1", [
            e.watch.key,
            e.paymentHash,
          ]);
        }
        await deliveries.enqueue({
          eventId: e.payload.id,
          eventType: e.payload.type,
          notifyUrl: e.watch.notifyUrl,
          payload: e.payload,
          dueAt: this.deps.now(),
          subjects: { reference: e.watch.key },
        });
      }
      await tx.query(
        "INSERT INTO watcher_cursor (name, block_number, block_hash, block_time) VALUES ('holds', $1, '', 0) ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number",
        [to.toString()],
      );
    });
    return { from, to, enqueued: events.length };
  }

  async #events(view: ChainView | undefined, from: bigint, to: bigint): Promise<Array<{ watch: Watch; payload: HoldEventBody; paymentHash?: Hex }>> {
    const { client, db, finality } = this.deps;
    const logs = await logsIn(client, view, { address: this.deps.escrow, events: ESCROW_EVENTS, fromBlock: from, toBlock: to });
    if (logs.length === 0) return [];
    const opened = new Map(
      logs
        .filter((l) => l.eventName === "PaymentAuthorized" || l.eventName === "PaymentCharged")
        .map((l) => [
          l.args.paymentInfoHash,
          payerAgnosticHash((l.args as unknown as { paymentInfo: PaymentInfo }).paymentInfo, this.deps.chainId, this.deps.escrow),
        ]),
    );
    const rows = await db.query<{ key: string; notify_url: string; caller: string; data: Record<string, unknown> | string; watch_until: string | number }>(
      "SELECT key, notify_url, caller, data, watch_until FROM watches WHERE kind = 'hold' AND (key = ANY($1::text[]) OR data->>'payment_hash' = ANY($2::text[]))",
      [[...opened.values()], logs.map((l) => l.args.paymentInfoHash)],
    );
    const watches = rows.map((r) => {
      const data = typeof r.data === "string" ? JSON.parse(r.data) : r.data;
      return {
        watch: { kind: "hold", key: r.key, notifyUrl: r.notify_url, caller: r.caller, linkId: null, data, watchUntil: Number(r.watch_until) } as Watch,
        paymentHash: data.payment_hash as string | undefined,
      };
    });
    const watchOf = (paymentHash: Hex) => {
      const holdId = opened.get(paymentHash);
      return watches.find((w) => w.watch.key === holdId || w.paymentHash === paymentHash)?.watch;
    };
    const matched = logs.filter((l) => watchOf(l.args.paymentInfoHash));
    if (matched.length === 0) return [];
    // Each kind through the door on its own; short of a majority the round fails and is read again.
    const byKind = (names: string[]) => matched.filter((l) => names.includes(l.eventName));
    const asked = await Promise.all([
      agreeOnLogs("hold_authorized", client, finality, byKind(["PaymentAuthorized"])),
      agreeOnLogs("hold_captured", client, finality, byKind(["PaymentCaptured", "PaymentCharged"])),
      agreeOnLogs("hold_voided", client, finality, byKind(["PaymentVoided"])),
      agreeOnLogs("hold_reclaimed", client, finality, byKind(["PaymentReclaimed"])),
    ]);
    const groups = [["PaymentAuthorized"], ["PaymentCaptured", "PaymentCharged"], ["PaymentVoided"], ["PaymentReclaimed"]];
    if (asked.some((held, i) => held === null && byKind(groups[i]!).length > 0)) {
      throw new DomainError("RPC_BUSY", { detail: "hold events short of a majority of the chain's nodes" });
    }
    const held = asked
      .flatMap((h) => h ?? [])
      .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    const blockNumbers = [...new Set(held.map((l) => l.blockNumber))];
    const blocks = await Promise.all(blockNumbers.map((n) => rpc(() => client.getBlock({ blockNumber: n }))));
    const blockOf = new Map(blockNumbers.map((n, i) => [n, blocks[i]!]));
    return held.map((log) => {
      const watch = watchOf(log.args.paymentInfoHash)!;
      const block = blockOf.get(log.blockNumber)!;
      const ms = logTimestampMs(log) ?? blockTimestampMs(block);
      const base = {
        hold_id: watch.key as Hex,
        tx_hash: log.transactionHash,
        amount_units: (log.args as { amount: bigint }).amount.toString(),
        ...(ms !== undefined ? { timestamp_ms: Number(ms) } : {}),
      };
      const created_at = Number(block.timestamp);
      const body = (type: HoldEventBody["type"], data: Record<string, unknown>) =>
        ({ id: eventIdOf(type, log, watch.notifyUrl), type, created_at, data: { ...base, ...data } }) as HoldEventBody;
      switch (log.eventName) {
        case "PaymentAuthorized":
          return { watch, payload: body("hold.authorized", { payer: log.args.paymentInfo.payer }), paymentHash: log.args.paymentInfoHash };
        case "PaymentCharged":
        case "PaymentCaptured": {
          const { feeAmount } = log.args as { feeAmount: bigint };
          return {
            watch,
            payload: body("hold.captured", { fee_units: feeAmount.toString() }),
            ...(log.eventName === "PaymentCharged" ? { paymentHash: log.args.paymentInfoHash } : {}),
          };
        }
        case "PaymentVoided":
          return { watch, payload: body("hold.voided", {}) };
        default:
          return { watch, payload: body("hold.reclaimed", {}) };
      }
    });
  }
}

/** hold.refunded, once per refund transaction, for a watched hold (its refund verified through the door by holds/hold-refunds.ts). */
export async function enqueueHoldRefunded(
  db: Pick<Database, "query">,
  now: () => number,
  holdId: Hex,
  refund: { txHash: Hex; amountUnits: bigint; blockNumber: bigint; payer: Address; createdAt: number },
): Promise<void> {
  const [row] = await db.query<{ notify_url: string }>("SELECT notify_url FROM watches WHERE kind = 'hold' AND key = $1", [holdId]);
  if (!row) return;
  const id = eventIdOf("hold.refunded", { transactionHash: refund.txHash, logIndex: 0 }, row.notify_url);
  const payload: HoldEventBody = {
    id,
    type: "hold.refunded",
    created_at: refund.createdAt,
    data: { hold_id: holdId, tx_hash: refund.txHash, amount_units: refund.amountUnits.toString(), payer: refund.payer },
  };
  await new Deliveries(db).enqueue({ eventId: id, eventType: payload.type, notifyUrl: row.notify_url, payload, dueAt: now(), subjects: { reference: holdId } });
}
