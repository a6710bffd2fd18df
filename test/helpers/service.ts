import supertest from "supertest";
import type { Hex } from "viem";
import { loadConfig, type Config } from "../../src/config.js";
import { createService, type Service, type ServiceDeps } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { LOCAL_ROLES, localAccount, type LocalChain } from "../../dev/localchain/harness.js";

/** The local relayer's key (Hardhat test mnemonic): the one the harness allows on the contract. */
export const LOCAL_RELAYER_KEY = `0x${Buffer.from(localAccount(LOCAL_ROLES.relayer).getHdKey().privateKey!).toString("hex")}`;
import { useLocalChain } from "./local-chain.js";
import type { LocalChainOptions } from "../../dev/localchain/harness.js";
import { RpcProxy } from "./rpc-proxy.js";
import { connectPostgres, openDatabase, type Database } from "../../src/store/database.js";
import { startTestPostgres } from "./postgres.js";
import { migrate } from "../../src/store/migrate.js";

/** Empties every table but the migration log. */
export async function resetStore(database: Database): Promise<void> {
  const tables = await database.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'",
  );
  if (tables.length) await database.query(`TRUNCATE ${tables.map((t) => `"${t.tablename}"`).join(", ")}`);
}

/** A controllable clock (milliseconds), starting at the local chain's time. */
export class FakeClock {
  constructor(public ms: number) {}
  now = (): number => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface ServiceHarness {
  readonly chain: LocalChain;
  readonly service: Service;
  readonly proxy: RpcProxy;
  /** Every node the service reads through (RPC_URLS), each a proxy in front of the one chain; `proxy` is the first. */
  readonly nodes: RpcProxy[];
  readonly clock: FakeClock;
  readonly api: supertest.Agent;
  /** Builds another service on the same chain with other settings (e.g. another secret). */
  another(env?: Record<string, string>): Promise<Service>;
  readonly database: Database;
}

/**
 * Mocha hooks: one local chain per suite served over HTTP behind a fault-injecting proxy, and a
 * fresh service (fake clock, quiet logs) before every test, the chain reverted to its fresh state.
 */
export interface ServiceHarnessOptions {
  /** The store under test: PGlite in memory (default) or a throwaway real PostgreSQL. */
  store?: "pglite" | "postgres";
  /** Extra dependencies for every service built (e.g. the webhook transport's test seams). */
  deps?: () => Partial<ServiceDeps>;
  /** How many nodes the service reads through (RPC_URLS), each a proxy in front of the one chain: 1 by default (RPC_URL). */
  nodes?: number;
  /** How the local chain is built (e.g. a pool ordered by tip). */
  chain?: Pick<LocalChainOptions, "mempoolOrder" | "sameSecondBlocks">;
}

export function useService(env: Record<string, string> = {}, options: ServiceHarnessOptions = {}): ServiceHarness {
  const local = useLocalChain({ port: 0, ...options.chain });
  let proxy: RpcProxy | undefined;
  let nodes: RpcProxy[] = [];
  let service: Service | undefined;
  let clock: FakeClock | undefined;
  const built: Service[] = [];
  // Every answer of every service built here is checked against its wire schema; any mismatch fails the test.
  const mismatches: string[] = [];
  let database: Database | undefined;
  let postgres: { url: string; stop(): void } | undefined;
  const build = async (extra: Record<string, string> = {}) => {
    const several: Record<string, string> = nodes.length > 1 ? { RPC_URLS: nodes.map((n) => n.url).join(",") } : {};
    const s = await createService(configFor(proxy!.url, { ...several, ...env, ...extra }), {
      now: clock!.now,
      logger: createLogger("silent"),
      database,
      checkResponses: (problem) => mismatches.push(problem),
      ...(options.deps?.() ?? {}),
    });
    built.push(s);
    return s;
  };

  before(async function () {
    this.timeout(60_000);
    // Each node on its own loopback address (127.0.0.2, 127.0.0.3, …): one host counts once in a majority.
    nodes = await Promise.all(
      Array.from({ length: options.nodes ?? 1 }, (_, i) => new RpcProxy(local.chain.rpcUrl!).start(0, (options.nodes ?? 1) > 1 ? loopback(i) : "127.0.0.1")),
    );
    proxy = nodes[0]!;
    // One store per suite (PGlite starts in seconds), emptied before every test.
    if (options.store === "postgres") {
      postgres = await startTestPostgres();
      database = await connectPostgres(postgres.url);
    } else {
      database = await openDatabase(null);
    }
    await migrate(database);
  });
  beforeEach(async () => {
    for (const node of nodes) node.reset();
    await resetStore(database!);
    const block = await local.chain.publicClient.getBlock();
    clock = new FakeClock(Number(block.timestamp) * 1000);
    service = await build();
  });
  afterEach(async () => {
    for (const s of built.splice(0)) await s.close();
    const found = mismatches.splice(0);
    if (found.length) throw new Error(`answers that do not match their wire schema:\n${found.join("\n")}`);
  });
  after(async () => {
    for (const node of nodes) await node.close();
    await database?.close();
    postgres?.stop();
  });
  return {
    get chain() {
      return local.chain;
    },
    get service() {
      return service!;
    },
    get proxy() {
      return proxy!;
    },
    get nodes() {
      return nodes;
    },
    get clock() {
      return clock!;
    },
    get api() {
      return supertest.agent(service!.app);
    },
    another: (extra = {}) => build(extra),
    get database() {
      return database!;
    },
  };
}

export function configFor(rpcUrl: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    RPC_TIMEOUT_MS: "1000",
    DATA_DIR: "memory",
    RELAYER_PRIVATE_KEY: LOCAL_RELAYER_KEY,
    SUBSCRIPTION_MIN_PERIOD_SECONDS: "60",
    ...env,
    TOKEN_KEYS: env.TOKEN_KEYS ?? `k1:${"a".repeat(40)}`,
    RPC_URL: rpcUrl,
    FINALITY: env.FINALITY ?? "2",
  });
}

export type { Hex };

/** The `i`-th node's own loopback address: Linux routes all of 127.0.0.0/8 to this machine. */
export function loopback(i: number): string {
  return `127.0.0.${2 + i}`;
}
