import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import type { PublicClient } from "viem";
import type { Config } from "./config.js";
import type { LiveDeployment } from "./deployments.js";
import type { CapabilityTokens } from "./tokens/capability.js";
import type { Payments } from "./payments/payments.js";
import type { Links } from "./links/links.js";
import type { Subscriptions } from "./recurring/subscriptions.js";
import type { Charges } from "./recurring/charges.js";
import type { SubscriptionCapabilities } from "./recurring/capabilities.js";
import type { StuckCharges } from "./recurring/stuck-charges.js";
import type { DepositSettler } from "./payments/deposit-settler.js";
import type { ChainFollower } from "./chain/follower.js";
import { RECEIVER_SPLIT_EVERY_MS, type ReceiverSplitter } from "./x402/receiver-splitter.js";
import type { X402Facilitator } from "./x402/facilitator.js";
import type { Refunds } from "./refunds/refunds.js";
import type { Database } from "./store/database.js";
import type { Webhooks } from "./webhooks/webhooks.js";
import type { Logger } from "./logger.js";
import { baseRoom, type ServiceDeps } from "./rooms/base.js";
import { chainRoom } from "./rooms/chain.js";
import { storeRoom } from "./rooms/store.js";
import { tokensRoom } from "./rooms/tokens.js";
import { relayerRoom } from "./rooms/relayer.js";
import { webhooksRoom } from "./rooms/webhooks.js";
import { receiversRoom } from "./rooms/receivers.js";
import { paymentsRoom } from "./rooms/payments.js";
import { readCodeHashes } from "./rooms/code-hashes.js";
import { X402ReceiversReader } from "./chain/contracts/x402-receivers.js";
import { recurringRoom } from "./rooms/recurring.js";
import { linksRoom } from "./rooms/links.js";
import { x402Room } from "./rooms/x402.js";
import { refundsRoom } from "./rooms/refunds.js";
import { httpRoom } from "./rooms/http.js";
import { HOLD_FOLLOW_EVERY_MS, holdsRoom } from "./rooms/holds.js";
import type { HoldsApi } from "./holds/holds-api.js";
import type { HoldOperator } from "./holds/operator.js";

export type { ServiceDeps };

export interface Service {
  app: Express;
  opsApp: Express;
  config: Config;
  deployment: LiveDeployment;
  client: PublicClient;
  tokens: CapabilityTokens;
  payments: Payments;
  links: Links;
  subscriptions: Subscriptions;
  charges: Charges;
  capabilities: SubscriptionCapabilities;
  stuckCharges: StuckCharges;
  /** Settles payments paid to their payment address (a consumer of the follower). */
  depositSettler: DepositSettler;
  /** The one follower of the chain's head: its rounds feed the deposit settler (and through it the receivers' split) and the webhook watcher (started by listen). */
  follower: ChainFollower;
  x402: X402Facilitator;
  /** Splits what reaches merchants' x402 receivers outside a settlement (started by listen). */
  receiverSplitter: ReceiverSplitter;
  refunds: Refunds;
  /** The service as the holds' escrow operator (its recorded calls followed once listen starts); null without an escrow in the deployment. */
  holdOperator: HoldOperator | null;
  /** Merchants' holds (null without an escrow in the deployment). */
  holds: HoldsApi | null;
  webhooks: Webhooks;
  database: Database;
  logger: Logger;
  /** Stops the webhook loops and closes the store (when the service opened it). */
  close(): Promise<void>;
}

/**
 * The composition root: each room (src/rooms/) builds its own parts from the configuration and the
 * rooms before it, in dependency order, so nothing here reaches forward.
 */
export async function createService(config: Config, deps: ServiceDeps = {}): Promise<Service> {
  const base = baseRoom(config, deps);
  const chain = await chainRoom(base);
  const store = await storeRoom(base);
  const tokens = tokensRoom(base, chain);
  const relayer = relayerRoom(base, chain);
  const webhooks = webhooksRoom(base, { chain, store, tokens, relayer });
  const receivers = receiversRoom(base, { chain, store, relayer });
  const holds = holdsRoom(base, { chain, store, relayer, tokens, webhooks });
  const payments = paymentsRoom(base, { chain, store, tokens, relayer, webhooks, receivers });
  // The code hashes addresses are derived from, read now so the first create needs no chain call: the majority's, or no start.
  await readCodeHashes(base, { depositAddresses: payments.payments.depositAddresses, receivers: X402ReceiversReader.of(chain.chain) }).catch(
    async (error: unknown) => {
      if (store.ownsDatabase) await store.database.close();
      throw error;
    },
  );
  const recurring = recurringRoom(base, { chain, store, tokens, relayer, webhooks });
  const links = linksRoom(base, { chain, store, tokens, webhooks, payments, recurring });
  const x402 = x402Room(base, { chain, relayer, store, payments, receivers, holds, tokens });
  const refunds = refundsRoom(base, { chain, tokens, payments });
  const http = httpRoom(base, { chain, store, webhooks, payments, recurring, links, x402, refunds, holds: holds.holds });
  chain.follower.add(payments.depositSettler);
  // A pending link subscriber whose first charge is final becomes active from the round's Charged logs.
  chain.follower.add(links.links.firstCharges);
  // The token transfers that are ours: to an open payment address, or to a merchant's x402 receiver.
  chain.follower.watchRecipients(async () => [...(await payments.depositWatches.openAddresses(base.now())), ...(await receivers.store.addresses())]);
  payments.depositWatches.onAdded = () => chain.follower.recipientsChanged();
  if (config.webhooks.enabled) chain.follower.add(webhooks.watcher);
  if (config.webhooks.enabled && webhooks.holdWatcher) chain.follower.add(webhooks.holdWatcher);
  return {
    ...http,
    config,
    deployment: chain.deployment,
    client: chain.client,
    tokens: tokens.tokens,
    payments: payments.payments,
    links: links.links,
    subscriptions: recurring.subscriptions,
    charges: recurring.charges,
    capabilities: tokens.capabilities,
    stuckCharges: recurring.stuckCharges,
    depositSettler: payments.depositSettler,
    follower: chain.follower,
    x402: x402.facilitator,
    receiverSplitter: receivers.splitter,
    refunds,
    holdOperator: holds.operator,
    holds: holds.holds,
    webhooks,
    database: store.database,
    logger: base.logger,
    close: async () => {
      await chain.follower.stop();
      webhooks.stop();
      recurring.stuckCharges.stop();
      receivers.splitter.stop();
      holds.operator?.stop();
      if (store.ownsDatabase) await store.database.close();
    },
  };
}

/** Listens with the API on host:port and the operational app on 127.0.0.1:opsPort, and starts the webhook loops. */
export async function listen(service: Service): Promise<{ apiUrl: string; opsUrl: string; close(): Promise<void> }> {
  const servers: Server[] = [];
  const start = (app: Express, host: string, port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
      servers.push(server);
    });
  const api = await start(service.app, service.config.host, service.config.port);
  const ops = await start(service.opsApp, "127.0.0.1", service.config.opsPort);
  service.webhooks.start();
  service.stuckCharges.start(service.config.relayer.replaceAfterSeconds, service.config.relayer.sweepIntervalMs, (error) =>
    service.logger.warn({ loop: "relayer", error: (error as Error).message.split("\n")[0] }, "stuck-transaction sweep failed"),
  );
  await service.follower.start(service.config.follow.intervalMs, (where, error) =>
    service.logger.warn({ loop: where, error: (error as Error).message.split("\n")[0] }, "a round following the chain failed"),
  );
  service.receiverSplitter.start(RECEIVER_SPLIT_EVERY_MS, (error) =>
    service.logger.warn({ loop: "x402-receivers", error: (error as Error).message.split("\n")[0] }, "x402 receiver split round failed"),
  );
  service.holdOperator?.start(HOLD_FOLLOW_EVERY_MS, (error) =>
    service.logger.warn({ loop: "holds", error: (error as Error).message.split("\n")[0] }, "following the operator's calls failed"),
  );
  const url = (server: Server, host: string) => `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: url(api, service.config.host),
    opsUrl: url(ops, "127.0.0.1"),
    close: async () => {
      await service.follower.stop();
      service.webhooks.stop();
      service.stuckCharges.stop();
      service.receiverSplitter.stop();
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}
