import { holdsEscrowSet } from "../deployments.js";
import { blocksIn } from "../block-time.js";
import { configuredTransport } from "../webhooks/target.js";
import { Webhooks } from "../webhooks/webhooks.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";
import type { RelayerRoom } from "./relayer.js";
import { holdIdFromToken } from "../holds/terms.js";

/** Webhooks: watches, the chain watcher, deliveries and the event read-back; the domains built after it report to it through their ports. */
export function webhooksRoom(
  { config, deps, now, logger }: BaseRoom,
  { chain, store, tokens: { tokens, capabilities }, relayer }: { chain: ChainRoom; store: StoreRoom; tokens: TokensRoom; relayer: RelayerRoom },
): Webhooks {
  const { deployment } = chain;
  const escrow = holdsEscrowSet(deployment);
  const operator = relayer.relayer.address;
  return new Webhooks({
    db: store.database,
    ...chain.chain,
    tokens,
    settings: config.webhooks,
    now,
    logger,
    subscriptionIdOf: (token) => capabilities.subscriptionId(capabilities.read(token).terms),
    ...(escrow && operator
      ? {
          holdIdOf: (token: string) =>
            holdIdFromToken(tokens, token, {
              operator,
              token: deployment.token.address,
              feeBps: deployment.parameters.feeBps,
              feeReceiver: deployment.parameters.feeCollector,
              chainId: deployment.chainId,
              escrow: escrow.escrow,
            }),
        }
      : {}),
    watcherBlocks: {
      backfill: blocksIn(config.follow.backfillSeconds, config.chainId),
      maxRange: blocksIn(config.follow.logRangeSeconds, config.chainId),
    },
    ...configuredTransport(config.webhooks),
    ...(deps.webhookTransport ?? {}),
  });
}
