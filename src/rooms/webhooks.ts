import { blocksIn } from "../block-time.js";
import { configuredTransport } from "../webhooks/target.js";
import { Webhooks } from "../webhooks/webhooks.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";

/** Webhooks: watches, the chain watcher, deliveries and the event read-back; the domains built after it report to it through their ports. */
export function webhooksRoom(
  { config, deps, now, logger }: BaseRoom,
  { chain, store, tokens: { tokens, capabilities } }: { chain: ChainRoom; store: StoreRoom; tokens: TokensRoom },
): Webhooks {
  return new Webhooks({
    db: store.database,
    ...chain.chain,
    tokens,
    settings: config.webhooks,
    now,
    logger,
    subscriptionIdOf: (token) => capabilities.subscriptionId(capabilities.read(token).terms),
    watcherBlocks: {
      backfill: blocksIn(config.follow.backfillSeconds, config.chainId),
      maxRange: blocksIn(config.follow.logRangeSeconds, config.chainId),
    },
    ...configuredTransport(config.webhooks),
    ...(deps.webhookTransport ?? {}),
  });
}
