import { FairGate } from "../limits/fair-gate.js";

/** A caller's pages of subscriber states waiting at once; past it, RPC_BUSY. */
const SUBSCRIBER_PAGES_WAITING_PER_CALLER = 8;
import { rpc } from "../chain/rpc-errors.js";
import { Links } from "../links/links.js";
import { LINK_SUBSCRIBER_PENDING_SECONDS } from "../links/subscribe.js";
import { ChargeAttempts } from "../store/charge-attempts.js";
import { blocksIn } from "../block-time.js";
import { SubscriberStates } from "../links/subscriber-states.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { PaymentsRoom } from "./payments.js";
import type { RecurringRoom } from "./recurring.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";

/** Links, and a subscription link's subscribers as its view token shows them (the merchant page's). */
export interface LinksRoom {
  links: Links;
  subscriberStates: SubscriberStates;
}

/** Payment and subscription links: built after payments (which mint a link's payments) and recurring (a subscription link's terms and signatures). */
export function linksRoom(
  { config, now, randomBytes }: BaseRoom,
  needs: { chain: ChainRoom; store: StoreRoom; tokens: TokensRoom; webhooks: Webhooks; payments: PaymentsRoom; recurring: RecurringRoom },
): LinksRoom {
  // A charge recorded for a pending subscriber may still be mined: its place is kept until it is known.
  const attempts = new ChargeAttempts(needs.store.database);
  const links = new Links({
    db: needs.store.database,
    tokens: needs.tokens.tokens,
    watches: needs.webhooks,
    payments: needs.payments.payments,
    subscriptions: {
      checkTerms: (terms) => needs.recurring.subscriptions.checkTerms(terms),
      resolveThroughLink: (link) => needs.recurring.subscriptions.resolveThroughLink(link),
      finalizeThroughLink: (input) => needs.recurring.subscriptions.finalizeThroughLink(input),
      checkFirstChargeFunds: (terms) => needs.recurring.subscriptions.checkFirstChargeFunds(terms),
      // The first charge is the service's own POST /v1/charges: its answer is settled when ok.
      chargeFirst: async (capability) => ({ settled: (await needs.recurring.charges.charge(capability)).ok }),
      termsOf: (capability) => needs.tokens.capabilities.read(capability).terms,
      firstChargeSent: async (capability) => {
        const { capabilities } = needs.tokens;
        return attempts.anyFor(capabilities.subscriptionId(capabilities.read(capability).terms));
      },
      firstChargeReported: async (capability, period) => {
        const { capabilities } = needs.tokens;
        await attempts.markReported(capabilities.subscriptionId(capabilities.read(capability).terms), period);
      },
    },
    firstCharges: {
      client: needs.chain.client,
      finality: needs.chain.chain.finality,
      contract: needs.chain.deployment.contracts.RecurringCharges.address,
      backfillBlocks: blocksIn(LINK_SUBSCRIBER_PENDING_SECONDS, config.chainId),
      maxRangeBlocks: blocksIn(config.follow.logRangeSeconds, config.chainId),
    },
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
  const { client } = needs.chain.chain;
  const subscriberStates = new SubscriberStates({
    links,
    subscriptions: needs.recurring.subscriptions,
    head: async () => {
      const block = await rpc(() => client.getBlock({ blockTag: "latest" }));
      return { number: block.number, timestamp: block.timestamp };
    },
    gate: new FairGate(config.rateLimits.recoverConcurrency, SUBSCRIBER_PAGES_WAITING_PER_CALLER),
    now,
  });
  return { links, subscriberStates };
}
