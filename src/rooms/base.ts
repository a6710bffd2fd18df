import type { Config } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import type { ResponseCheck } from "../http/route.js";
import { Metrics } from "../http/metrics.js";
import { createLogger, type Logger } from "../logger.js";
import { pooledRandomBytes } from "../random.js";
import type { RelayerOptions } from "../recurring/relayer.js";
import type { Database } from "../store/database.js";
import type { Resolver } from "../webhooks/target.js";

/** What a caller of createService may replace (tests, mostly). */
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

/** What every room may use: the configuration, the caller's replacements, the clock, randomness, logs and metrics. */
export interface BaseRoom {
  config: Config;
  deps: ServiceDeps;
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  logger: Logger;
  metrics: Metrics;
}

export function baseRoom(config: Config, deps: ServiceDeps): BaseRoom {
  return {
    config,
    deps,
    now: deps.now ?? Date.now,
    randomBytes: pooledRandomBytes(),
    logger: deps.logger ?? createLogger(config.logLevel),
    metrics: new Metrics(),
  };
}

/** The first line of an error's message, for a log field (a viem error's later lines repeat the request). */
export const firstLine = (error: unknown): string => (error as Error).message.split("\n")[0]!;
