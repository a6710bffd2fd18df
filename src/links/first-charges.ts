import type { Address, Hex, PublicClient } from "viem";
import { agreeOnLogs } from "../chain/agreement.js";
import type { Finality } from "../config.js";
import { CHARGED_EVENT } from "../chain/contracts/recurring-charges.js";
import { logsIn, type ChainView, type FollowerConsumer } from "../chain/follower.js";
import type { LinkRecords } from "./records.js";
import type { LinkSubscribers } from "./subscribers.js";
import type { LinkSubscribe } from "./subscribe.js";
import type { LinkSubscriptions } from "./ports.js";

/** Where the first charges' `Charged` logs are. */
export interface FirstChargesChain {
  client: PublicClient;
  /** The finality the service states: a first charge makes its subscriber active only on a majority's `Charged` log there. */
  finality: Finality;
  /** RecurringCharges. */
  contract: Address;
  /** Final blocks read back at the first round (after a start): a pending subscriber's window. */
  backfillBlocks: bigint;
  /** Most blocks one read covers. */
  maxRangeBlocks: bigint;
}

export interface FirstChargesDeps extends FirstChargesChain {
  records: Pick<LinkRecords, "find">;
  subscribers: Pick<LinkSubscribers, "pendingOf">;
  subscriptions: Pick<LinkSubscriptions, "termsOf" | "firstChargeReported">;
  subscribe: Pick<LinkSubscribe, "activate">;
}

/**
 * A consumer of the chain follower's rounds: a pending link subscriber whose first charge is final
 * is made active (watched, `subscription.created` announced) by the service itself, whether or not
 * the payer's checkout or the merchant's listing ever asks again. It reads the `Charged` logs the
 * follower already holds for the final blocks since its last round (no request on the follower's
 * view), and asks the store only when a round has some; nothing is polled per subscriber. After a
 * start it reads back a pending subscriber's window; a charge older than that is found when its row's
 * time passes (subscribe.ts asks after a row whose charge was sent before dropping it).
 */
export class FirstCharges implements FollowerConsumer {
  readonly name = "link-first-charges";
  #cursor: bigint | null = null;

  constructor(private readonly deps: FirstChargesDeps) {}

  async follow(view: ChainView): Promise<{ from: bigint; to: bigint; activated: number } | null> {
    const to = view.finalHead;
    let from = this.#cursor === null ? to - this.deps.backfillBlocks : this.#cursor + 1n;
    if (from < 0n) from = 0n;
    if (from > to) return null;
    const first = from;
    let activated = 0;
    while (from <= to) {
      const end = from + this.deps.maxRangeBlocks - 1n < to ? from + this.deps.maxRangeBlocks - 1n : to;
      const logs = await logsIn(this.deps.client, view, { address: this.deps.contract, events: [CHARGED_EVENT], fromBlock: from, toBlock: end });
      const done = await this.#activate(logs);
      if (done === null) break; // short of a majority: this stretch is read again next round
      activated += done;
      this.#cursor = end;
      from = end + 1n;
    }
    return { from: first, to, activated };
  }

  /**
   * The pending subscribers these `Charged` logs settle, made active, each only on its log as a
   * majority of the nodes hold it (the follower read it from one node, which may forge a charge).
   * Null: a log not yet agreed (nothing past it is taken).
   */
  async #activate(logs: Awaited<ReturnType<typeof logsIn<readonly [typeof CHARGED_EVENT]>>>): Promise<number | null> {
    const pending = await this.deps.subscribers.pendingOf([...new Set(logs.map((l) => (l.args.subscriptionId as Hex).toLowerCase() as Hex))]);
    let activated = 0;
    for (const p of pending) {
      const own = logs.filter((l) => (l.args.subscriptionId as Hex).toLowerCase() === p.subscriptionId.toLowerCase());
      const held = await agreeOnLogs("settled_event", this.deps.client, this.deps.finality, own);
      if (!held) return null;
      // Its logs were another node's invention: no charge of it is held, and nothing is activated.
      if (held.length === 0) continue;
      const record = await this.deps.records.find(p.linkId);
      if (!record) continue;
      // The charge that settles it is the service's own: reported here, as the checkout's ask would
      // have, so the merchant's first POST /v1/charges for the period answers ALREADY_CHARGED.
      for (const log of held) await this.deps.subscriptions.firstChargeReported(p.subscription, log.args.periodIndex as bigint);
      const { end } = this.deps.subscriptions.termsOf(p.subscription);
      await this.deps.subscribe.activate({ linkId: p.linkId, subscriptionId: p.subscriptionId, payer: p.payer, end, record });
      activated++;
    }
    return activated;
  }
}
