import type { Links } from "./links.js";
import type { LinkSubscribersResponse, SubscriptionStateResponse } from "../wire/index.js";

export interface SubscriberStatesDeps {
  links: Pick<Links, "subscriptions">;
  /** A subscription's state read from the chain (recurring's `state`, wired by the composition root). */
  subscriptions: { state(token: string): Promise<SubscriptionStateResponse> };
}

/**
 * A subscription link's subscribers with their state on chain and last charge, for a browser holding
 * the link's manage token (the checkout's merchant page): the capabilities the link keeps are used
 * here, on the server, to read each state, and never leave it. A page of the link's list, each
 * subscriber's state read at once (one JSON-RPC batch).
 */
export class SubscriberStates {
  constructor(private readonly deps: SubscriberStatesDeps) {}

  async list(manageToken: string, after?: string): Promise<LinkSubscribersResponse> {
    const page = await this.deps.links.subscriptions(manageToken, after);
    const states = await Promise.all(page.subscriptions.map((s) => this.deps.subscriptions.state(s.subscription)));
    return {
      subscribers: page.subscriptions.map((s, i) => {
        const state = states[i]!;
        return {
          subscription_id: s.subscription_id,
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
      as_of_block: states.length ? states.reduce((max, s) => (BigInt(s.as_of_block) > BigInt(max) ? s.as_of_block : max), states[0]!.as_of_block) : null,
    };
  }
}
