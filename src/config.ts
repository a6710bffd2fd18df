import { generateKeyPairSync } from "node:crypto";
import { blocksIn } from "./block-time.js";
import { z } from "zod";
import { BUDGET_ENV, budgetOf, type RelayerBudgetLimits } from "./config-budget.js";
import { independentNodes, nodeProblems } from "./config-nodes.js";
import { parseAmount } from "./money.js";
import type { SigningKey } from "./tokens/capability.js";

// Configuration, parsed once at start from environment variables. A bad value stops the process
// with a message naming the variable. Every default is the embedded local stack's.

/** The secret the embedded local stack signs tokens with when TOKEN_KEYS is not set. Never for a real chain. */
export const LOCAL_TOKEN_SECRET = "local-development-secret-not-for-any-real-chain";

const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();
const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const amount = z
  .string()
  .refine((v) => parseAmount(v) !== null, "a decimal amount with at most 6 fractional digits")
  .transform((v) => parseAmount(v)!);

const EnvSchema = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: port.default(8787),
  OPS_PORT: port.default(9464),
  CHAIN_ID: z.enum(["84532", "8453"]).default("84532").transform(Number),
  RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  RPC_URLS: z
    .string()
    .transform((v) => v.split(",").map((u) => u.trim()))
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1))
    .optional(),
  RPC_QUORUM: positiveInt.optional(),
  RPC_QUORUM_UNSAFE: bool.default(false),
  RPC_TIMEOUT_MS: positiveInt.default(10_000),
  RPC_WS_URL: z.url({ protocol: /^wss?$/ }).optional(),
  FOLLOW_INTERVAL_MS: positiveInt.default(3000),
  LOG_RANGE_SECONDS: positiveInt.default(400),
  TRANSFER_RANGE_SECONDS: positiveInt.default(20),
  WATCHER_BACKFILL_SECONDS: positiveInt.default(200),
  FINALITY: z
    .string()
    .regex(/^(safe|[0-9]{1,4}|[0-9]{1,4}(\.[0-9]{1,3})?s)$/, '"safe", a duration in seconds ("1s", "0.4s"), or a number of confirmations')
    .optional(),
  TOKEN_KEYS: z
    .string()
    .regex(/^[a-z0-9]{1,16}:[^,]{32,}(,[a-z0-9]{1,16}:[^,]{32,})*$/, "id:secret[,id:secret…], ids 1–16 of a–z 0–9, secrets ≥ 32 characters")
    .optional(),
  PAYMENT_MIN_AMOUNT: amount.default(parseAmount("0.01")!),
  PAYMENT_MAX_AMOUNT: amount.default(parseAmount("1000000.00")!),
  INTENT_TTL_SECONDS: positiveInt.default(3600),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(600),
  RECOVER_LIMIT_PER_MINUTE: positiveInt.default(120),
  RECOVER_INTENT_LIMIT_PER_MINUTE: positiveInt.default(10),
  RECOVER_CONCURRENCY: positiveInt.default(2),
  CHECKOUT_URL: z.url({ protocol: /^https?$/ }).optional(),
  WEBHOOKS_ENABLED: bool.default(true),
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  DATA_DIR: z.string().default(".data/pglite"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .optional(),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  WEBHOOKS_ALLOW_LOOPBACK: bool.default(false),
  WEBHOOKS_RESOLVE: z
    .string()
    .regex(/^[a-z0-9.-]+=[0-9.]+(,[a-z0-9.-]+=[0-9.]+)*$/, "host=ip[,host=ip…]")
    .optional(),
  WEBHOOKS_PORT_OVERRIDE: port.optional(),
  WEBHOOK_WATCH_CAP_PER_CALLER: positiveInt.default(1000),
  WEBHOOK_WATCH_CAP_TOTAL: positiveInt.default(100_000),
  DELIVERY_INTERVAL_MS: positiveInt.default(1000),
  WEBHOOK_DELIVERY_CONCURRENCY: positiveInt.default(64),
  WEBHOOK_TARGET_CONCURRENCY: positiveInt.default(8),
  WEBHOOK_RETENTION_SECONDS: positiveInt.default(30 * 24 * 3600),
  WEBHOOK_SIGNING_KEYS: z
    .string()
    .regex(
      /^[a-z0-9]{1,16}:[A-Za-z0-9+/]{43}=(@[0-9]{1,12})?(,[a-z0-9]{1,16}:[A-Za-z0-9+/]{43}=(@[0-9]{1,12})?)*$/,
      "kid:base64 seed[@not_before][,…]: kids 1–16 of a–z 0–9, each an ed25519 seed of 32 bytes in base64, not_before in unix seconds",
    )
    .optional(),
  WEBHOOK_KEY_OVERLAP_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 3600),
  EVENTS_LIMIT_PER_MINUTE: positiveInt.default(120),
  PRUNE_INTERVAL_MS: positiveInt.default(60_000),
  LINK_TTL_SECONDS: positiveInt.default(7 * 24 * 3600),
  X402_RECEIVER_IDLE_SECONDS: positiveInt.default(7 * 24 * 3600),
  X402_UNFUNDED_RECEIVERS_PER_CALLER: positiveInt.default(100),
  SUBSCRIPTION_MIN_PERIOD_SECONDS: positiveInt.optional(),
  SETUP_TTL_SECONDS: positiveInt.default(3600),
  CANCEL_TTL_SECONDS: positiveInt.default(900),
  APPROVE_TTL_SECONDS: positiveInt.default(900),
  MAX_GAS_REIMBURSEMENT: z
    .string()
    .refine((v) => parseAmount(v) !== null, "a decimal amount")
    .transform((v) => parseAmount(v)!)
    .default(0n),
  GAS_PRICE_USDC_PER_ETH: amount.default(parseAmount("3000")!),
  RELAYER_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits")
    .optional(),
  RELAYER_RETIRED_KEYS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((k) => k.trim())
        .filter((k) => k !== ""),
    )
    .pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, "each key 0x and 64 hex digits, comma-separated")))
    .default([]),
  RELAYER_PAUSED: bool.default(false),
  RELAYER_TIP_WEI: z.coerce.bigint().nonnegative().default(1_000_000n),
  CHARGE_CONCURRENCY: positiveInt.default(512),
  CHARGE_QUEUE: z.coerce.number().int().min(0).default(1024),
  CHARGE_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(400),
  CHARGE_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(2000).default(20),
  RELAYER_REPLACE_AFTER_SECONDS: positiveInt.default(60),
  RELAYER_MAX_FEE_PER_GAS: z.coerce.bigint().positive().optional(),
  RELAYER_SWEEP_INTERVAL_MS: positiveInt.default(15_000),
  // At most RecurringCharges' own SIGNATURE_GAS_CAP (200,000): a check finalize accepted under a larger
  // cap could run out of the contract's on the first charge.
  SIGNATURE_GAS_CAP: positiveInt.max(200_000).default(200_000),
  ...BUDGET_ENV,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** How webhooks are watched and delivered (src/webhooks). */
export interface WebhookSettings {
  enabled: boolean;
  /** Test-only: loopback targets allowed (refused in production configuration). */
  allowLoopback: boolean;
  timeoutMs: number;
  capPerCaller: number;
  capTotal: number;
  deliveryIntervalMs: number;
  /** Delivery attempts in flight at once per instance, and per target (a notify_url's host). */
  deliveryConcurrency: number;
  targetConcurrency: number;
  /** How long delivered and dropped events are kept (seconds) before they are pruned. */
  retentionSeconds: number;
  /** How often expired watches and old events are pruned (ms), in batches of `pruneBatch`. */
  pruneIntervalMs: number;
  /** The ed25519 keys deliveries are signed with, oldest first: each signs from its `notBefore` until the next one's. */
  signingKeys: WebhookSigningKey[];
  /** How long before a key starts signing it is published, and how long after it stops it still is (seconds). */
  keyOverlapSeconds: number;
}

/** One webhook signing key: its id, its 32-byte ed25519 seed, and when it starts signing (unix seconds). */
export interface WebhookSigningKey {
  kid: string;
  seed: Uint8Array;
  notBefore: number;
}

/** A fresh signing key for the embedded stack (npm start): its public half is at GET /v1/webhooks/keys. */
function generatedSigningKey(): WebhookSigningKey {
  const jwk = generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" });
  return { kid: "generated", seed: Buffer.from(jwk.d!, "base64url"), notBefore: 0 };
}

function parseSigningKeys(value: string): WebhookSigningKey[] {
  return value.split(",").map((entry) => {
    const [kid, rest] = [entry.slice(0, entry.indexOf(":")), entry.slice(entry.indexOf(":") + 1)];
    const [seed, notBefore] = rest.split("@") as [string, string | undefined];
    return { kid, seed: Buffer.from(seed, "base64"), notBefore: notBefore === undefined ? 0 : Number(notBefore) };
  });
}

/** The finality rule: the node's `safe` block, or a depth in confirmations (with the duration it was given as, when it was). */
export type Finality = { kind: "safe" } | { kind: "confirmations"; confirmations: number; seconds?: number };

/** FINALITY's value as a rule: `safe`, `<seconds>s` (turned into blocks at the chain's block time), or confirmations. */
function finalityOf(text: string, chainId: number): Finality {
  if (text === "safe") return { kind: "safe" };
  if (!text.endsWith("s")) return { kind: "confirmations", confirmations: Number(text) };
  const seconds = Number(text.slice(0, -1));
  return { kind: "confirmations", confirmations: seconds === 0 ? 0 : Number(blocksIn(seconds, chainId)), seconds };
}

export interface Config {
  host: string;
  port: number;
  opsPort: number;
  chainId: number;
  /** The first of {@link rpcUrls}; null: the embedded local chain (npm start sets it once the chain is up). */
  rpcUrl: string | null;
  /** The chain's nodes (RPC_URLS, else RPC_URL as a list of one); empty: the embedded local chain. */
  rpcUrls: string[];
  /** How many nodes must agree before a verdict releases goods or money (RPC_QUORUM, default ⌊n/2⌋+1). */
  rpcQuorum: number;
  /** RPC_QUORUM_UNSAFE: each URL counts as a node of its own, even several of one host. */
  rpcQuorumUnsafe: boolean;
  /** A development chain: the embedded one, or a test-network RPC on this host (127.0.0.1, localhost, ::1); never on Base. The checkout
   *  shows no explorer link for it, and a return_url may be plain http there. */
  localChain: boolean;
  rpcTimeoutMs: number;
  /**
   * How the chain is followed (chain/follower.ts): the node's WebSocket (`newHeads`, `logs`) when
   * `wsUrl` is set, else by polling; a round every `intervalMs`. Windows are durations, turned into
   * blocks with the chain's block time (block-time.ts).
   */
  follow: { wsUrl: string | null; intervalMs: number; logRangeSeconds: number; transferRangeSeconds: number; backfillSeconds: number };
  finality: Finality;
  tokenKeys: SigningKey[];
  payments: { minUnits: bigint; maxUnits: bigint; intentTtlSeconds: number };
  rateLimits: { perMinute: number; recoverPerMinute: number; recoverPerIntentPerMinute: number; recoverConcurrency: number; eventsPerMinute: number };
  checkoutUrl: string;
  webhooksEnabled: boolean;
  trustProxy: number;
  logLevel: string;
  /** PGlite's folder; null keeps the store in memory (DATA_DIR=memory). */
  dataDir: string | null;
  /** A real PostgreSQL instead of PGlite. */
  databaseUrl: string | null;
  webhooks: WebhookSettings & {
    /** Test-only: fixed DNS answers and the port deliveries connect to (the demo's local receiver). */
    resolve: Record<string, string> | null;
    portOverride: number | null;
  };
  links: { ttlSeconds: number; maxTtlSeconds: number };
  /** A merchant's x402 receiver never funded is forgotten this long after it was last registered. */
  x402: { receiverIdleSeconds: number; unfundedReceiversPerCaller: number };
  recurring: {
    minPeriodSeconds: number;
    setupTtlSeconds: number;
    cancelTtlSeconds: number;
    approveTtlSeconds: number;
    maxGasReimbursementUnits: bigint;
    signatureGasCap: bigint;
    /** Token micro-units per 1 ETH, to price gas. */
    unitsPerEth: bigint;
    /** The relayer's priority fee, wei per gas. */
    tipWei: bigint;
  };
  relayer: {
    privateKey: `0x${string}` | null;
    /** Keys the relayer used before a rotation: each only captures and voids the open holds that name its account as operator. */
    retiredKeys: `0x${string}`[];
    paused: boolean;
    /** Charges in flight at once per instance, and waiting beyond them; past both, 429 CONCURRENCY_LIMIT. */
    concurrency: number;
    queue: number;
    /** Charges ready together go out in one chargeBatch transaction of at most `maxItems`, the first waiting up to `waitMs`. */
    batch: { maxItems: number; waitMs: number };
    /** A charge transaction unmined this long after it was sent is replaced with a higher fee. */
    replaceAfterSeconds: number;
    /** No replacement bids a fee cap (wei per gas) above it; null: five times the current quote's cap (about ten times the base fee). */
    maxFeePerGas: bigint | null;
    budget: RelayerBudgetLimits; // RELAYER_BUDGET_WEI_PER_*: gas for work that earns no fee, per hour
    sweepIntervalMs: number;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

function isLoopbackUrl(value: string): boolean {
  try {
    // All of 127.0.0.0/8 is this machine (the tests' nodes each have an address of their own there).
    const host = new URL(value).hostname;
    return ["localhost", "[::1]"].includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/** Parses the environment (process.env by default). Throws {@link ConfigError} listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.PAYMENT_MIN_AMOUNT <= 0n || e.PAYMENT_MIN_AMOUNT > e.PAYMENT_MAX_AMOUNT) {
    problems.push("PAYMENT_MIN_AMOUNT: must be above 0 and at most PAYMENT_MAX_AMOUNT");
  }
  const rpcUrls = e.RPC_URLS ?? (e.RPC_URL !== undefined ? [e.RPC_URL] : []);
  // A majority of the independent nodes: URLs of one host count once (RPC_QUORUM_UNSAFE: each URL).
  const rpcQuorum = e.RPC_QUORUM ?? Math.floor(independentNodes(rpcUrls, e.RPC_QUORUM_UNSAFE) / 2) + 1;
  if (e.RPC_QUORUM !== undefined && e.RPC_QUORUM > Math.max(rpcUrls.length, 1)) problems.push(`RPC_QUORUM: from 1 to the number of nodes (${rpcUrls.length})`);
  problems.push(...nodeProblems(rpcUrls, rpcQuorum, e.RPC_QUORUM_UNSAFE));
  const external = rpcUrls.length > 0;
  if (external && !e.TOKEN_KEYS) problems.push("TOKEN_KEYS: required with RPC_URL or RPC_URLS (a real chain never uses the local secret)");
  if (e.CHAIN_ID === 8453 && e.TOKEN_KEYS?.includes(LOCAL_TOKEN_SECRET)) problems.push("TOKEN_KEYS: the local secret is refused in production");
  if (e.CHAIN_ID === 8453 && e.SUBSCRIPTION_MIN_PERIOD_SECONDS !== undefined && e.SUBSCRIPTION_MIN_PERIOD_SECONDS < 3600) {
    problems.push("SUBSCRIPTION_MIN_PERIOD_SECONDS: production's minimum is 3600");
  }
  if (e.CHAIN_ID === 8453 && e.WEBHOOKS_ALLOW_LOOPBACK) problems.push("WEBHOOKS_ALLOW_LOOPBACK: a test-only switch, refused in production");
  if (e.CHAIN_ID === 8453 && (e.WEBHOOKS_RESOLVE || e.WEBHOOKS_PORT_OVERRIDE))
    problems.push("WEBHOOKS_RESOLVE / WEBHOOKS_PORT_OVERRIDE: test-only, refused in production");
  const signingKeys = e.WEBHOOK_SIGNING_KEYS ? parseSigningKeys(e.WEBHOOK_SIGNING_KEYS) : null;
  if (e.CHAIN_ID === 8453 && e.WEBHOOKS_ENABLED && !signingKeys)
    problems.push("WEBHOOK_SIGNING_KEYS: required in production while webhooks are enabled (a generated key changes at every start)");
  if (signingKeys) {
    const kids = new Set(signingKeys.map((k) => k.kid));
    if (kids.size !== signingKeys.length) problems.push("WEBHOOK_SIGNING_KEYS: each kid once");
    if (signingKeys.some((k, i) => i > 0 && k.notBefore <= signingKeys[i - 1]!.notBefore))
      problems.push("WEBHOOK_SIGNING_KEYS: oldest first, each not_before later than the one before");
  }
  if (problems.length) throw new ConfigError(problems);

  // Base makes a block every 200 ms: the local chain's default depth is one second of blocks.
  const finalityText = e.FINALITY ?? (external ? "safe" : "1s");
  const tokenKeys = (e.TOKEN_KEYS ?? `local:${LOCAL_TOKEN_SECRET}`).split(",").map((pair) => {
    const at = pair.indexOf(":");
    return { id: pair.slice(0, at), secret: pair.slice(at + 1) };
  });
  return {
    host: e.HOST,
    port: e.PORT,
    opsPort: e.OPS_PORT,
    chainId: e.CHAIN_ID,
    rpcUrl: rpcUrls[0] ?? null,
    rpcUrls,
    rpcQuorum,
    rpcQuorumUnsafe: e.RPC_QUORUM_UNSAFE,
    localChain: e.CHAIN_ID !== 8453 && (!external || rpcUrls.every(isLoopbackUrl)),
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    follow: {
      wsUrl: e.RPC_WS_URL ?? null,
      intervalMs: e.FOLLOW_INTERVAL_MS,
      logRangeSeconds: e.LOG_RANGE_SECONDS,
      transferRangeSeconds: e.TRANSFER_RANGE_SECONDS,
      backfillSeconds: e.WATCHER_BACKFILL_SECONDS,
    },
    finality: finalityOf(finalityText, e.CHAIN_ID),
    tokenKeys,
    payments: { minUnits: e.PAYMENT_MIN_AMOUNT, maxUnits: e.PAYMENT_MAX_AMOUNT, intentTtlSeconds: e.INTENT_TTL_SECONDS },
    rateLimits: {
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      recoverPerMinute: e.RECOVER_LIMIT_PER_MINUTE,
      recoverPerIntentPerMinute: e.RECOVER_INTENT_LIMIT_PER_MINUTE,
      recoverConcurrency: e.RECOVER_CONCURRENCY,
      eventsPerMinute: e.EVENTS_LIMIT_PER_MINUTE,
    },
    checkoutUrl: e.CHECKOUT_URL ?? `http://${e.HOST}:${e.PORT}/checkout/`,
    webhooksEnabled: e.WEBHOOKS_ENABLED,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    dataDir: e.DATA_DIR === "memory" ? null : e.DATA_DIR,
    databaseUrl: e.DATABASE_URL ?? null,
    webhooks: {
      enabled: e.WEBHOOKS_ENABLED,
      allowLoopback: e.WEBHOOKS_ALLOW_LOOPBACK,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      capPerCaller: e.WEBHOOK_WATCH_CAP_PER_CALLER,
      capTotal: e.WEBHOOK_WATCH_CAP_TOTAL,
      deliveryIntervalMs: e.DELIVERY_INTERVAL_MS,
      deliveryConcurrency: e.WEBHOOK_DELIVERY_CONCURRENCY,
      targetConcurrency: e.WEBHOOK_TARGET_CONCURRENCY,
      retentionSeconds: e.WEBHOOK_RETENTION_SECONDS,
      pruneIntervalMs: e.PRUNE_INTERVAL_MS,
      signingKeys: signingKeys ?? [generatedSigningKey()],
      keyOverlapSeconds: e.WEBHOOK_KEY_OVERLAP_SECONDS,
      resolve: e.WEBHOOKS_RESOLVE ? Object.fromEntries(e.WEBHOOKS_RESOLVE.split(",").map((pair) => pair.split("=") as [string, string])) : null,
      portOverride: e.WEBHOOKS_PORT_OVERRIDE ?? null,
    },
    links: { ttlSeconds: e.LINK_TTL_SECONDS, maxTtlSeconds: 365 * 24 * 3600 },
    x402: { receiverIdleSeconds: e.X402_RECEIVER_IDLE_SECONDS, unfundedReceiversPerCaller: e.X402_UNFUNDED_RECEIVERS_PER_CALLER },
    recurring: {
      // 3600 s on real chains; the embedded local chain allows a minute, so periods can be tried out.
      minPeriodSeconds: e.SUBSCRIPTION_MIN_PERIOD_SECONDS ?? (external ? 3600 : 60),
      setupTtlSeconds: e.SETUP_TTL_SECONDS,
      cancelTtlSeconds: e.CANCEL_TTL_SECONDS,
      approveTtlSeconds: e.APPROVE_TTL_SECONDS,
      maxGasReimbursementUnits: e.MAX_GAS_REIMBURSEMENT,
      signatureGasCap: BigInt(e.SIGNATURE_GAS_CAP),
      unitsPerEth: e.GAS_PRICE_USDC_PER_ETH,
      tipWei: e.RELAYER_TIP_WEI,
    },
    relayer: {
      privateKey: (e.RELAYER_PRIVATE_KEY as `0x${string}` | undefined) ?? null,
      retiredKeys: e.RELAYER_RETIRED_KEYS as `0x${string}`[],
      paused: e.RELAYER_PAUSED,
      concurrency: e.CHARGE_CONCURRENCY,
      queue: e.CHARGE_QUEUE,
      batch: { maxItems: e.CHARGE_BATCH_MAX, waitMs: e.CHARGE_BATCH_WAIT_MS },
      replaceAfterSeconds: e.RELAYER_REPLACE_AFTER_SECONDS,
      maxFeePerGas: e.RELAYER_MAX_FEE_PER_GAS ?? null,
      budget: budgetOf(e),
      sweepIntervalMs: e.RELAYER_SWEEP_INTERVAL_MS,
    },
  };
}
