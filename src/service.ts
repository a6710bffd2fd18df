import { pooledRandomBytes } from "./random.js";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import type { PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Config } from "./config.js";
import { loadLiveDeployment, type LiveDeployment } from "./deployments.js";
import { describeCapabilities, REFUND_TOKEN_TTL_SECONDS } from "./capabilities.js";
import { chainFor, createChainClient } from "./chain/client.js";
import { checkTokenDomain, TokenDomainMismatchError } from "./chain/token-domain.js";
import { CapabilityTokens } from "./tokens/capability.js";
import { ConcurrencyGate, FixedWindowLimiter, SharedWindowLimiter, type RateLimiter } from "./limits/rate-limiter.js";
import { Payments } from "./payments/payments.js";
import { Links } from "./links/links.js";
import { RecurringTokens } from "./recurring/tokens.js";
import { Subscriptions } from "./recurring/subscriptions.js";
import { Charges } from "./recurring/charges.js";
import { ChargeRecovery } from "./recurring/charge-recovery.js";
import { SubscriptionCapabilities } from "./recurring/capabilities.js";
import { SubscriptionSessions } from "./recurring/sessions.js";
import { StuckCharges } from "./recurring/stuck-charges.js";
import { quoteFees, transactionCostUnits } from "./recurring/gas-quote.js";
import { quoteL1Fee } from "./chain/l1-fee.js";
import { DEPOSIT_CHECK_EVERY_MS, DepositSettler } from "./payments/deposit-settler.js";
import { DepositWatches } from "./store/deposit-watches.js";
import { RefusedChargePayers } from "./store/refused-charge-payers.js";
import { X402Answers } from "./store/x402-answers.js";
import { X402ReceiverStore } from "./store/x402-receivers.js";
import { ReceiverSender } from "./x402/receiver-sender.js";
import { RECEIVER_SPLIT_EVERY_MS, ReceiverSplitter } from "./x402/receiver-splitter.js";
import { ReceiverDirectory } from "./x402/receivers.js";
import { settlementVerdict } from "./x402/verdict.js";
import { Relayer, type RelayerOptions } from "./recurring/relayer.js";
import { Refunds } from "./refunds/refunds.js";
import { openStore, type Database } from "./store/database.js";
import { migrate } from "./store/migrate.js";
import { ChargeAttempts } from "./store/charge-attempts.js";
import { Webhooks } from "./webhooks/webhooks.js";
import { configuredTransport, type Resolver } from "./webhooks/target.js";
import { createApp } from "./http/app.js";
import { x402Endpoints } from "./http/x402.js";
import { X402_SETTLE_POLL_MS, X402_SETTLE_WAIT_MS, X402_SETTLEMENT_GAS, X402Facilitator } from "./x402/facilitator.js";
import { createOpsApp } from "./http/ops.js";
import { readinessProbe } from "./http/readiness.js";
import { Metrics } from "./http/metrics.js";
import { rateLimit } from "./http/middleware.js";
import { integrationRoutes } from "./http/routes/index.js";
import type { ResponseCheck } from "./http/route.js";
import { createLogger, type Logger } from "./logger.js";
import { builtCheckout, checkoutHandler } from "./http/checkout.js";

export interface ServiceDeps {
  /** Milliseconds since the epoch (a fake clock in tests). */
  now?: () => number;
  logger?: Logger;
  /** Overrides deployments/<chain id>.json (tests). */
  deployment?: LiveDeployment;
  /** An open store to use instead of the configured one (tests share one across restarts). */
  database?: Database;
  /** Test hook: runs between recording a charge and broadcasting it. */
  beforeBroadcast?: RelayerOptions["beforeBroadcast"];
  /** Checks every answer against its wire schema and reports a mismatch (tests fail on any). */
  checkResponses?: ResponseCheck;
  /** Where the built checkout is (dist/checkout by default; `npm run build` writes it). */
  checkoutDir?: string;
  /** Test seams for webhook delivery: DNS answers, the receiver's CA, its port. */
  webhookTransport?: { resolve?: Resolver; ca?: string; port?: number };
}

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
  /** Settles payments paid to their payment address (started by listen). */
  depositSettler: DepositSettler;
  x402: X402Facilitator;
  /** Splits what reaches merchants' x402 receivers outside a settlement (started by listen). */
  receiverSplitter: ReceiverSplitter;
  refunds: Refunds;
  webhooks: Webhooks;
  database: Database;
  logger: Logger;
  /** Stops the webhook loops and closes the store (when the service opened it). */
  close(): Promise<void>;
}

/** The composition root: opens the store, applies migrations, builds every module from the configuration. */
export async function createService(config: Config, deps: ServiceDeps = {}): Promise<Service> {
  if (!config.rpcUrl) throw new Error("no RPC_URL: start the embedded chain first (npm start does)");
  const now = deps.now ?? Date.now;
  const random = pooledRandomBytes();
  const logger = deps.logger ?? createLogger(config.logLevel);
  const deployment = deps.deployment ?? loadLiveDeployment(config.chainId);
  const client = createChainClient(config.chainId, config.rpcUrl, config.rpcTimeoutMs);
  const tokens = new CapabilityTokens(
    {
      environment: deployment.environment,
      chainId: deployment.chainId,
      deployment: `${deployment.contracts.Splitter.address}:${deployment.contracts.RecurringCharges.address}`,
    },
    config.tokenKeys,
  );
  // The token's EIP-712 domain as recorded must be the one the token hashes, or every permit and
  // authorization signed over it fails: refuse to start on a mismatch (skip the check if the chain cannot be asked now).
  try {
    await checkTokenDomain(client, deployment.chainId, deployment.token.address, deployment.token.eip712);
  } catch (error) {
    if (error instanceof TokenDomainMismatchError) throw error;
    logger.warn({ error: (error as Error).message.split("\n")[0] }, "could not check the token's EIP-712 domain against the chain");
  }
  const database = deps.database ?? (await openStore(config));
  await migrate(database);
  const chain = { client, deployment, finality: config.finality, preconfirmations: config.preconfirmations };
  // Rate limits: shared through PostgreSQL when several instances can share it, else per instance.
  const windowLimiter = (name: string, perMinute: number): RateLimiter =>
    config.databaseUrl
      ? new SharedWindowLimiter(database, name, perMinute, 60_000, now, (error) =>
          logger.warn({ limiter: name, error: (error as Error).message }, "shared rate limit unavailable: allowed"),
        )
      : new FixedWindowLimiter(perMinute, 60_000, now);

  const webhooks = new Webhooks({
    db: database,
    ...chain,
    tokens,
    settings: config.webhooks,
    now,
    logger,
    // Subscription capabilities are read by recurring, built below.
    subscriptionIdOf: (token) => capabilities.subscriptionId(capabilities.read(token).terms),
    ...configuredTransport(config.webhooks),
    ...(deps.webhookTransport ?? {}),
  });
  const depositWatches = new DepositWatches(database);
  const payments = new Payments({
    chain,
    depositWatches,
    tokens,
    limits: config.payments,
    now,
    randomBytes: random,
    recoverPerIntent: windowLimiter("recover-intent", config.rateLimits.recoverPerIntentPerMinute),
    recoverGate: new ConcurrencyGate(config.rateLimits.recoverConcurrency, 32),
    webhooks,
    // Links are built next and hold the link table; an intent minted through a link asks them.
    linkStatus: { checkOpen: (linkId) => links.checkOpen(linkId) },
    localChain: config.localChain,
  });
  // The payment-address code hash, read once now so the first create needs no chain call (a failed
  // read is tried again on first use).
  payments.depositAddresses.codeHash().catch(() => {});
  const links = new Links({
    db: database,
    tokens,
    watches: webhooks,
    payments,
    // Subscriptions are built next; a subscription link asks them for its terms and signatures.
    subscriptions: {
      checkTerms: (terms) => subscriptions.checkTerms(terms),
      resolveThroughLink: (link) => subscriptions.resolveThroughLink(link),
      finalizeThroughLink: (input) => subscriptions.finalizeThroughLink(input),
    },
    deployment,
    checkoutUrl: config.checkoutUrl,
    limits: {
      minUnits: config.payments.minUnits,
      maxUnits: config.payments.maxUnits,
      linkTtlSeconds: config.links.ttlSeconds,
      maxLinkTtlSeconds: config.links.maxTtlSeconds,
    },
    now,
    randomBytes: random,
    localChain: config.localChain,
  });
  const pricing = { unitsPerEth: config.recurring.unitsPerEth, tipWei: config.recurring.tipWei };
  const recurringTokens = new RecurringTokens(tokens, deployment.token.address);
  const capabilities = new SubscriptionCapabilities(recurringTokens, deployment.chainId, deployment.contracts.RecurringCharges.address, now);
  const subscriptions = new Subscriptions({
    ...chain,
    tokens: recurringTokens,
    capabilities,
    settings: { ...config.recurring, maxAmountUnits: config.payments.maxUnits },
    pricing,
    webhooks,
    now,
    randomBytes: random,
    localChain: config.localChain,
  });
  const metrics = new Metrics();
  const relayer = new Relayer(
    client,
    config.relayer.privateKey ? privateKeyToAccount(config.relayer.privateKey) : null,
    chainFor(config.chainId, config.rpcUrl),
    {
      paused: config.relayer.paused,
      maxFeePerGas: config.relayer.maxFeePerGas,
      onFeeCeiling: (held) => {
        metrics.feeCeiling.inc({ kind: held.kind });
        logger.warn(
          {
            loop: "relayer",
            kind: held.kind,
            tx_hash: held.hash,
            nonce: held.nonce,
            wanted_max_fee_per_gas: String(held.wantedMaxFeePerGas),
            ceiling: String(held.ceilingWei),
          },
          "stuck transaction held at its bid: a replacement would pass the fee ceiling",
        );
      },
      ...(deps.beforeBroadcast ? { beforeBroadcast: deps.beforeBroadcast } : {}),
    },
  );
  const sessions = new SubscriptionSessions({
    ...chain,
    tokens: recurringTokens,
    capabilities,
    settings: config.recurring,
    now,
  });
  const attempts = new ChargeAttempts(database);
  const charges = new Charges({
    ...chain,
    capabilities,
    attempts,
    relayer,
    pricing,
    gate: new ConcurrencyGate(config.relayer.concurrency, config.relayer.queue),
    now,
    batch: config.relayer.batch,
    refusedPayers: new RefusedChargePayers(database),
    signatureGasCap: config.recurring.signatureGasCap,
  });
  const chargeRecovery = new ChargeRecovery({ ...chain, capabilities });
  const stuckCharges = new StuckCharges({ client, attempts, relayer, pricing, now });
  const depositSettler = new DepositSettler({
    ...chain,
    watches: depositWatches,
    depositAddresses: payments.depositAddresses,
    sender: relayer,
    quoteFees: () => quoteFees(client, pricing),
    now,
    replaceAfterMs: config.relayer.replaceAfterSeconds * 1000,
    onWatchError: (depositAddress, error) =>
      logger.warn(
        { loop: "deposits", deposit_address: depositAddress, error: (error as Error).message.split("\n")[0] },
        "following a payment address's settlement failed",
      ),
    // One read of the token's transfers serves the payment addresses and the merchants' x402 receivers.
    // A receiver fault is logged, not the round's: payment addresses are settled all the same, and the
    // next rounds read the same blocks again (the overlap), the backstop after that.
    onTransfersTo: async (recipients) => {
      await receiverSplitter
        .onTransfers(recipients)
        .catch((error: unknown) =>
          logger.warn({ loop: "x402-receivers", error: (error as Error).message.split("\n")[0] }, "splitting receivers that received funds failed"),
        );
    },
  });
  const refunds = new Refunds({
    chain,
    depositAddresses: payments.depositAddresses,
    tokens,
    subscriptions: capabilities,
    ttlSeconds: REFUND_TOKEN_TTL_SECONDS,
    now,
  });

  const x402Answers = new X402Answers(database);
  const x402Receivers = new X402ReceiverStore(database);
  const receiverSender = new ReceiverSender({
    client,
    to: deployment.contracts.X402Receivers.address,
    store: x402Receivers,
    sender: relayer,
    quoteFees: () => quoteFees(client, pricing),
    now,
    replaceAfterMs: config.relayer.replaceAfterSeconds * 1000,
    onError: (hash, error) =>
      logger.warn({ loop: "x402-receivers", tx_hash: hash, error: (error as Error).message.split("\n")[0] }, "following a receiver transaction failed"),
  });
  const receiverSplitter = new ReceiverSplitter({
    client,
    token: deployment.token.address,
    store: x402Receivers,
    answers: x402Answers,
    sender: receiverSender,
    now,
    feeBps: deployment.parameters.feeBps,
    costUnits: async (data) => {
      const [priced, l1Fee, fees] = await Promise.all([
        receiverSender.price(data),
        quoteL1Fee(client, { to: deployment.contracts.X402Receivers.address, data }),
        quoteFees(client, pricing),
      ]);
      return priced ? transactionCostUnits(priced.gas, fees.expectedPerGas, l1Fee, pricing) : null;
    },
  });
  const x402 = new X402Facilitator({
    chain,
    watches: depositWatches,
    answers: x402Answers,
    receivers: x402Receivers,
    settlements: depositSettler,
    receiverSender,
    receiverSplitter,
    submitter: () => relayer.address,
    maxSettlementGas: X402_SETTLEMENT_GAS + config.recurring.signatureGasCap,
    minReceiverUnits: config.payments.minUnits,
    settleWaitMs: X402_SETTLE_WAIT_MS,
    pollMs: X402_SETTLE_POLL_MS,
  });

  const checkoutDir = builtCheckout(deps.checkoutDir);
  const limiter = windowLimiter("api", config.rateLimits.perMinute);
  const recoverLimit = rateLimit(windowLimiter("recover", config.rateLimits.recoverPerMinute), "recover");
  const eventsLimit = rateLimit(windowLimiter("events", config.rateLimits.eventsPerMinute), "events");
  const app = createApp({
    routes: integrationRoutes({
      payments,
      links,
      subscriptions,
      sessions,
      charges,
      chargeRecovery,
      refunds,
      x402: { receivers: new ReceiverDirectory({ chain, store: x402Receivers }), verdict: (q) => settlementVerdict(chain, q) },
      recoverLimit,
      events: webhooks.events,
      eventsLimit,
    }),
    capabilities: () => describeCapabilities(config, deployment),
    webhookKeys: () => webhooks.keys(),
    limiter,
    logger,
    metrics,
    trustProxy: config.trustProxy,
    x402: x402Endpoints({ facilitator: x402, limiter, logger, ...(deps.checkResponses ? { check: deps.checkResponses } : {}) }),
    mounts: [{ path: "/checkout", handler: checkoutHandler(checkoutDir) }],
    ...(deps.checkResponses ? { checkResponses: deps.checkResponses } : {}),
  });
  const opsApp = createOpsApp(metrics, readinessProbe(client, deployment, database));
  return {
    app,
    opsApp,
    config,
    deployment,
    client,
    tokens,
    payments,
    links,
    subscriptions,
    charges,
    capabilities,
    stuckCharges,
    depositSettler,
    x402,
    receiverSplitter,
    refunds,
    webhooks,
    database,
    logger,
    close: async () => {
      webhooks.stop();
      stuckCharges.stop();
      depositSettler.stop();
      receiverSplitter.stop();
      if (!deps.database) await database.close();
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
  service.depositSettler.start(DEPOSIT_CHECK_EVERY_MS, (error) =>
    service.logger.warn({ loop: "deposits", error: (error as Error).message.split("\n")[0] }, "payment-address settlement round failed"),
  );
  service.receiverSplitter.start(RECEIVER_SPLIT_EVERY_MS, (error) =>
    service.logger.warn({ loop: "x402-receivers", error: (error as Error).message.split("\n")[0] }, "x402 receiver split round failed"),
  );
  const url = (server: Server, host: string) => `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: url(api, service.config.host),
    opsUrl: url(ops, "127.0.0.1"),
    close: async () => {
      service.webhooks.stop();
      service.stuckCharges.stop();
      service.depositSettler.stop();
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
