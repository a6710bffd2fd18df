import type { Address, Hex } from "viem";
import { DomainError } from "../errors.js";
import type { SubscribeLinkResponse } from "../wire/index.js";
import type { LinkStatus } from "./link-status.js";
import type { LinkRecords } from "./records.js";
import type { LinkSubscribers } from "./subscribers.js";
import type { LinkSubscriptions, LinkWatches } from "./ports.js";

/** Subscribers of one link pending their first charge at once: past it, subscribe answers CONCURRENCY_LIMIT until one settles or is dropped. */
export const LINK_PENDING_SUBSCRIBERS = 10;

/**
 * How long a subscriber stays pending (seconds) without a first charge sent before it is dropped;
 * one whose charge was sent and may still be mined is kept another while each time.
 */
export const LINK_SUBSCRIBER_PENDING_SECONDS = 600;

/**
 * A first charge's refusals that keep the subscriber pending (the node, the service or the relayer
 * was short for a while: asking again may settle it). Any other refusal drops it at once.
 */
const FIRST_CHARGE_ASK_AGAIN = new Set(["RPC_ERROR", "RPC_BUSY", "CONCURRENCY_LIMIT", "GAS_QUOTE_UNAVAILABLE", "RELAYER_UNAVAILABLE", "INTERNAL_ERROR"]);

export interface LinkSubscribeDeps {
  records: Pick<LinkRecords, "find">;
  status: Pick<LinkStatus, "openRecord">;
  subscribers: LinkSubscribers;
  subscriptions: LinkSubscriptions;
  watches: Pick<LinkWatches, "subscribedThroughLink">;
  now: () => number;
}

/** A pending subscriber as the first charge's answer needs it. */
interface Pending {
  linkId: Hex;
  subscriptionId: Hex;
  subscription: string;
  payer: Address;
  end: bigint;
  record: { notifyUrl: string | null; caller: string };
}

/**
 * A subscription link's subscribe and the life of its pending places. A place is held only by a
 * payer who could be charged now: its funds cover the first charge, and the charge is asked for at
 * once; NOT_DUE (the period closes before a charge could be mined, or the chain is a moment behind
 * the terms' start) keeps no row and is refused with Retry-After. A pending subscriber becomes
 * active when its first charge is final: from the `Charged` logs the chain follower reads
 * (first-charges.ts), or when the checkout or the merchant's listing asks after it. Only a refused or
 * reverted first charge drops it, or its time without a charge sent.
 */
export class LinkSubscribe {
  constructor(private readonly deps: LinkSubscribeDeps) {}

  #nowSeconds(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  /**
   * A payer's signature on a setup the link minted (refused past the setup's expiry), checked as
   * finalize checks it; the capability is kept against the link (sealed) and only the browser-safe
   * part is answered. The same subscription again asks after its first charge again (what the
   * checkout does until it is ACTIVE). A payer holds one pending subscription per link at a time, and
   * a link at most LINK_PENDING_SUBSCRIBERS (CONCURRENCY_LIMIT past either). LINK_CLOSED once the link
   * is closed or expired: existing subscribers keep their subscriptions.
   */
  async subscribe(input: { setupToken: string; payer: Address; signature: Hex }): Promise<SubscribeLinkResponse> {
    const signed = await this.deps.subscriptions.finalizeThroughLink(input);
    const record = await this.deps.status.openRecord(signed.linkId);
    const { subscription_id, amount, period, end } = signed.answer;
    const answer = (state: "ACTIVE" | "PENDING"): SubscribeLinkResponse => ({ subscription_id, link_id: signed.linkId, amount, period, end, state });
    const { subscribers } = this.deps;
    const kept = await subscribers.find(signed.linkId, signed.subscriptionId);
    if (kept?.state === "active") return answer("ACTIVE");
    if (!kept) {
      await this.deps.subscriptions.checkFirstChargeFunds(signed.terms);
      const now = this.#nowSeconds();
      await this.dropExpired(signed.linkId);
      const added = await subscribers.addPending(
        {
          linkId: signed.linkId,
          subscriptionId: signed.subscriptionId,
          payer: signed.terms.payer,
          subscription: signed.answer.subscription,
          createdAt: now,
          pendingUntil: now + LINK_SUBSCRIBER_PENDING_SECONDS,
        },
        LINK_PENDING_SUBSCRIBERS,
      );
      if (added === "full")
        throw new DomainError("CONCURRENCY_LIMIT", { detail: "this link has as many subscribers waiting on their first charge as it takes at once" });
      if (added === "payer-pending")
        throw new DomainError("CONCURRENCY_LIMIT", { detail: "this payer has a subscription through this link waiting on its first charge" });
    }
    const pending = {
      linkId: signed.linkId,
      subscriptionId: signed.subscriptionId,
      subscription: signed.answer.subscription,
      payer: signed.terms.payer,
      end: signed.terms.end,
      record,
    };
    return answer((await this.#settleFirst(pending)) ? "ACTIVE" : "PENDING");
  }

  /**
   * Asks after a pending subscriber's first charge: settled makes it active; a refusal that asking
   * again cannot change (NOT_DUE included: a place is held only by a payer who could be charged now)
   * drops it and is thrown; any other refusal keeps it pending and is thrown.
   */
  async #settleFirst(s: Pending): Promise<boolean> {
    let settled: boolean;
    try {
      ({ settled } = await this.deps.subscriptions.chargeFirst(s.subscription));
    } catch (error) {
      if (!(error instanceof DomainError) || !FIRST_CHARGE_ASK_AGAIN.has(error.code)) await this.deps.subscribers.remove(s.linkId, s.subscriptionId);
      throw error;
    }
    if (settled) await this.activate(s);
    return settled;
  }

  /** Makes a pending subscriber active (once): watched and announced from then on, under the link caller's caps. */
  async activate(s: Omit<Pending, "subscription">): Promise<void> {
    if ((await this.deps.subscribers.activate(s.linkId, s.subscriptionId)) && s.record.notifyUrl)
      await this.deps.watches.subscribedThroughLink({
        linkId: s.linkId,
        subscriptionId: s.subscriptionId,
        payer: s.payer,
        end: s.end,
        notifyUrl: s.record.notifyUrl,
        caller: s.record.caller,
      });
  }

  /**
   * The link's pending rows past their time: one without a first charge sent is dropped; one whose
   * charge was sent is asked after (settled: active; refused or reverted: dropped; still on its way:
   * kept another while), never dropped while its charge may still be mined.
   */
  async dropExpired(linkId: Hex): Promise<void> {
    const now = this.#nowSeconds();
    const expired = await this.deps.subscribers.expiredPending(linkId, now, LINK_PENDING_SUBSCRIBERS);
    if (expired.length === 0) return;
    const record = await this.deps.records.find(linkId);
    for (const p of expired) {
      if (!record || !(await this.deps.subscriptions.firstChargeSent(p.subscription))) {
        await this.deps.subscribers.remove(linkId, p.subscriptionId);
        continue;
      }
      const { end } = this.deps.subscriptions.termsOf(p.subscription);
      const settled = await this.#settleFirst({ ...p, end, record }).catch(() => true);
      if (!settled) await this.deps.subscribers.extendPending(linkId, p.subscriptionId, now + LINK_SUBSCRIBER_PENDING_SECONDS);
    }
  }

  /**
   * The link's pending subscribers asked after once more (at most LINK_PENDING_SUBSCRIBERS, each a
   * charge followed): those whose first charge settled since are listed from now on, those refused
   * are dropped. What the merchant's listing does first.
   */
  async settlePending(linkId: Hex): Promise<void> {
    const record = await this.deps.records.find(linkId);
    if (!record) return;
    await this.dropExpired(linkId);
    for (const p of await this.deps.subscribers.pending(linkId, LINK_PENDING_SUBSCRIBERS)) {
      const { end } = this.deps.subscriptions.termsOf(p.subscription);
      await this.#settleFirst({ ...p, end, record }).catch(() => false);
    }
  }
}
