import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import type { PublicClient } from "viem";
import type { Config } from "./config.js";
import { loadLiveDeployment, type LiveDeployment } from "./deployments.js";
import { describeCapabilities } from "./capabilities.js";
import { createChainClient } from "./chain/client.js";
import { CapabilityTokens } from "./tokens/capability.js";
import { ConcurrencyGate, FixedWindowLimiter } from "./limits/rate-limiter.js";
import { Payments } from "./payments/payments.js";
import { createApp } from "./http/app.js";
import { createOpsApp } from "./http/ops.js";
import { Metrics } from "./http/metrics.js";
import { rateLimit } from "./http/middleware.js";
import { paymentRoutes } from "./http/routes/payments.js";
import { recurringRoutes } from "./http/routes/recurring.js";
import { refundRoutes } from "./http/routes/refunds.js";
import { Refunds } from "./refunds/refunds.js";
import { REFUND_TOKEN_TTL_SECONDS } from "./capabilities.js";
import { createLogger, type Logger } from "./logger.js";
import { privateKeyToAccount } from "viem/accounts";
import { chainFor } from "./chain/client.js";
import { openDatabase, type Database } from "./store/database.js";
import { migrate } from "./store/migrate.js";
import { ChargeAttempts } from "./store/charge-attempts.js";
import { RecurringTokens } from "./recurring/tokens.js";
import { Subscriptions } from "./recurring/subscriptions.js";
import { Charges } from "./recurring/charges.js";
import { Relayer, type RelayerOptions } from "./recurring/relayer.js";

export interface ServiceDeps {
  /** Milliseconds since the epoch (a fake clock in tests). */
  now?: () => number;
  logger?: Logger;
  /** Overrides deployments/<chain id>.json (tests). */
  deployment?: LiveDeployment;
  /** An open store to use instead of opening `config.dataDir` (tests share one across restarts). */
  database?: Database;
  /** Test hook: runs between recording a charge and broadcasting it. */
  beforeBroadcast?: RelayerOptions["beforeBroadcast"];
}

export interface Service {
  app: Express;
  opsApp: Express;
  config: Config;
  deployment: LiveDeployment;
  client: PublicClient;
  tokens: CapabilityTokens;
  payments: Payments;
  subscriptions: Subscriptions;
  charges: Charges;
  refunds: Refunds;
  database: Database;
  logger: Logger;
  /** Closes the store (when the service opened it). */
  close(): Promise<void>;
}

/** The composition root: opens the store, applies migrations, builds every module from the configuration. */
export async function createService(config: Config, deps: ServiceDeps = {}): Promise<Service> {
  if (!config.rpcUrl) throw new Error("no RPC_URL: start the embedded chain first (npm start does)");
  const now = deps.now ?? Date.now;
  const logger = deps.logger ?? createLogger(config.logLevel);
  const deployment = deps.deployment ?? loadLiveDeployment(config.chainId);
  const client = createChainClient(config.chainId, config.rpcUrl, config.rpcTimeoutMs);
  const tokens = new CapabilityTokens(
    { environment: deployment.environment, chainId: deployment.chainId, deployment: `${deployment.contracts.Splitter.address}:${deployment.contracts.RecurringCharges.address}` },
    config.tokenKeys,
  );
  const chain = { client, deployment, finality: config.finality };
  const payments = new Payments({
    chain,
    tokens,
    limits: config.payments,
    now,
    randomBytes: (n) => randomBytes(n),
    recoverPerIntent: new FixedWindowLimiter(config.rateLimits.recoverPerIntentPerMinute, 60_000, now),
    recoverGate: new ConcurrencyGate(config.rateLimits.recoverConcurrency, 32),
    webhooks: { enabled: config.webhooksEnabled },
  });
  const database = deps.database ?? (await openDatabase(config.dataDir));
  await migrate(database);
  const pricing = { unitsPerEth: config.recurring.unitsPerEth, tipWei: config.recurring.tipWei };
  const subscriptions = new Subscriptions({
    client,
    deployment,
    finality: config.finality,
    tokens: new RecurringTokens(tokens, deployment.token.address),
    settings: { ...config.recurring, maxAmountUnits: config.payments.maxUnits },
    pricing,
    now,
    randomBytes: (n) => randomBytes(n),
  });
  const relayer = new Relayer(
    client,
    config.relayer.privateKey ? privateKeyToAccount(config.relayer.privateKey) : null,
    chainFor(config.chainId, config.rpcUrl),
    { paused: config.relayer.paused, ...(deps.beforeBroadcast ? { beforeBroadcast: deps.beforeBroadcast } : {}) },
  );
  const charges = new Charges({ client, deployment, finality: config.finality, subscriptions, attempts: new ChargeAttempts(database), relayer, pricing });
  const refunds = new Refunds({ chain, tokens, subscriptions, ttlSeconds: REFUND_TOKEN_TTL_SECONDS, now });
  const metrics = new Metrics();
  const limiter = new FixedWindowLimiter(config.rateLimits.perMinute, 60_000, now);
  const recoverLimit = rateLimit(new FixedWindowLimiter(config.rateLimits.recoverPerMinute, 60_000, now), "recover");
  const app = createApp({
    routes: [...paymentRoutes(payments, recoverLimit), ...recurringRoutes(subscriptions, charges), ...refundRoutes(refunds)],
    capabilities: () => describeCapabilities(config, deployment),
    limiter,
    logger,
    metrics,
    trustProxy: config.trustProxy,
  });
  const opsApp = createOpsApp(metrics, async () => {
    const checks = { chain: false, contracts: false };
    try {
      const chainId = await client.getChainId();
      checks.chain = chainId === deployment.chainId;
      const code = await client.getCode({ address: deployment.contracts.Splitter.address });
      checks.contracts = !!code && code !== "0x";
    } catch {
      // not ready
    }
    return { ready: checks.chain && checks.contracts, checks };
  });
  return {
    app,
    opsApp,
    config,
    deployment,
    client,
    tokens,
    payments,
    subscriptions,
    charges,
    refunds,
    database,
    logger,
    close: async () => {
      if (!deps.database) await database.close();
    },
  };
}

/** Listens with the API on host:port and the operational app on 127.0.0.1:opsPort. */
export async function listen(service: Service): Promise<{ apiUrl: string; opsUrl: string; close(): Promise<void> }> {
  const servers: Server[] = [];
  const start = (app: Express, host: string, port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
      servers.push(server);
    });
  const api = await start(service.app, service.config.host, service.config.port);
  const ops = await start(service.opsApp, "127.0.0.1", service.config.opsPort);
  const url = (server: Server, host: string) => `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: url(api, service.config.host),
    opsUrl: url(ops, "127.0.0.1"),
    close: async () => {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); })));
    },
  };
}
