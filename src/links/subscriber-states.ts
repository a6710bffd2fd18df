import type { Hex } from "viem";
import { DomainError } from "../errors.js";
import type { FairGate } from "../limits/fair-gate.js";
import type { Links } from "./links.js";
import type { LinkSubscribersResponse, SubscriptionStateResponse } from "../wire/index.js";

/** The head a page of states is read at. */
export interface StatesBlock {
  number: bigint;
  timestamp: bigint;
}

export interface SubscriberStatesDeps {
  links: Pick<Links, "viewSubscriptions">;
  /** A subscription's state read from the chain at a block (recurring's `state`, wired by the composition root). */
  subscriptions: { state(token: string, at?: StatesBlock): Promise<SubscriptionStateResponse> };
  /** The latest block (one eth_getBlockByNumber). */
  head(): Promise<StatesBlock>;
  /** Bounds the pages read from the node at once, each caller's waiting behind its own; past its queue, RPC_BUSY. */
  gate: Pick<FairGate, "run">;
  /** Unix milliseconds (the service's clock). */
  now: () => number;
}

/** How long a head read answers later calls too (ms): Base's block interval, so no block is missed for long. */
export const HEAD_MAX_AGE_MS = 200;

/** Pages of states kept (the latest block's read of each link page); the oldest goes first past it. */
const KEPT_PAGES = 1000;

/**
 * A subscription link's active subscribers with their state on chain and last charge, for a browser
 * holding the link's view token (the checkout's merchant page): the capabilities the link keeps are
 * used here, on the server, to read each state, and never leave it. Whatever the number of callers,
 * a page's states are read once per block: the head is read once for all the calls within a block
 * interval of each other, and a page read at that head is shared by every call that asks for it (in
 * flight or done). The reads go through a gate where each caller's wait behind its own.
 */
export class SubscriberStates {
  #head: { read: Promise<StatesBlock>; at: number } | null = null;
  readonly #pages = new Map<string, { block: bigint; answer: Promise<LinkSubscribersResponse> }>();

  constructor(private readonly deps: SubscriberStatesDeps) {}

  async list(viewToken: string, after?: string, caller = "anyone"): Promise<LinkSubscribersResponse> {
    const { linkId, page } = await this.deps.links.viewSubscriptions(viewToken, after);
    if (page.subscriptions.length === 0) return { subscribers: [], next: page.next, as_of_block: null };
    const block = await this.#latest();
    const key = `${linkId}:${after ?? ""}`;
    const kept = this.#pages.get(key);
    if (kept && kept.block === block.number) return kept.answer;
    const answer = this.#read(page, block, caller);
    this.#pages.delete(key);
    this.#pages.set(key, { block: block.number, answer });
    if (this.#pages.size > KEPT_PAGES) this.#pages.delete(this.#pages.keys().next().value!);
    // A failed read is not kept: the next call reads again.
    answer.catch(() => {
      if (this.#pages.get(key)?.answer === answer) this.#pages.delete(key);
    });
    return answer;
  }

  /** One head read for every call that asks while it is in flight or within {@link HEAD_MAX_AGE_MS} of it. */
  #latest(): Promise<StatesBlock> {
    const now = this.deps.now();
    if (this.#head && now - this.#head.at < HEAD_MAX_AGE_MS) return this.#head.read;
    const read = this.deps.head();
    const head = { read, at: now };
    this.#head = head;
    read.catch(() => {
      if (this.#head === head) this.#head = null;
    });
    return read;
  }

  async #read(page: Awaited<ReturnType<Links["viewSubscriptions"]>>["page"], block: StatesBlock, caller: string): Promise<LinkSubscribersResponse> {
    const ran = await this.deps.gate.run(caller, () => Promise.all(page.subscriptions.map((s) => this.deps.subscriptions.state(s.subscription, block))));
    if (!ran) throw new DomainError("RPC_BUSY", { detail: "link subscribers queue full" });
    const states = ran.value;
    return {
      subscribers: page.subscriptions.map((s, i) => {
        const state = states[i]!;
        return {
          subscription_id: s.subscription_id as Hex,
          payer: s.payer,
          created_at: s.created_at,
          amount: state.amount,
          amount_units: state.amount_units,
          period: state.period,
          state: state.state,
          paid_count: state.paid_count,
          last_period: state.lastPeriod,
          last_period_start: state.lastPeriod === null ? null : state.start + state.lastPeriod * state.period,
          next_period_at: state.next_period_at,
        };
      }),
      next: page.next,
      as_of_block: block.number.toString(),
    };
  }
}
