import { Links } from "../links/links.js";
import { SubscriberStates } from "../links/subscriber-states.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { PaymentsRoom } from "./payments.js";
import type { RecurringRoom } from "./recurring.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";

/** Links, and a subscription link's subscribers as its manage token shows them (the merchant page's). */
export interface LinksRoom {
  links: Links;
  subscriberStates: SubscriberStates;
}

/** Payment and subscription links: built after payments (which mint a link's payments) and recurring (a subscription link's terms and signatures). */
export function linksRoom(
  { config, now, randomBytes }: BaseRoom,
  needs: { chain: ChainRoom; store: StoreRoom; tokens: TokensRoom; webhooks: Webhooks; payments: PaymentsRoom; recurring: RecurringRoom },
): LinksRoom {
  const links = new Links({
    db: needs.store.database,
    tokens: needs.tokens.tokens,
    watches: needs.webhooks,
    payments: needs.payments.payments,
    subscriptions: needs.recurring.subscriptions,
    deployment: needs.chain.deployment,
    checkoutUrl: config.checkoutUrl,
    limits: {
      minUnits: config.payments.minUnits,
      maxUnits: config.payments.maxUnits,
      linkTtlSeconds: config.links.ttlSeconds,
      maxLinkTtlSeconds: config.links.maxTtlSeconds,
    },
    now,
    randomBytes,
    localChain: config.localChain,
  });
  return { links, subscriberStates: new SubscriberStates({ links, subscriptions: needs.recurring.subscriptions }) };
}
