import supertest from "supertest";
import type { Hex } from "viem";
import { loadConfig, type Config } from "../../src/config.js";
import { createService, type Service } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import type { LocalChain } from "../../src/localchain/harness.js";
import { useLocalChain } from "./local-chain.js";
import { RpcProxy } from "./rpc-proxy.js";

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
  readonly clock: FakeClock;
  readonly api: supertest.Agent;
  /** Builds another service on the same chain with other settings (e.g. another secret). */
  another(env?: Record<string, string>): Service;
}

/**
 * Mocha hooks: one local chain per suite served over HTTP behind a fault-injecting proxy, and a
 * fresh service (fake clock, quiet logs) before every test, the chain reverted to its fresh state.
 */
export function useService(env: Record<string, string> = {}): ServiceHarness {
  const local = useLocalChain({ port: 0 });
  let proxy: RpcProxy | undefined;
  let service: Service | undefined;
  let clock: FakeClock | undefined;
  const build = (extra: Record<string, string> = {}) =>
    createService(configFor(proxy!.url, { ...env, ...extra }), { now: clock!.now, logger: createLogger("silent") });

  before(async () => {
    proxy = await new RpcProxy(local.chain.rpcUrl!).start();
  });
  beforeEach(async () => {
    proxy!.reset();
    const block = await local.chain.publicClient.getBlock();
    clock = new FakeClock(Number(block.timestamp) * 1000);
    service = build();
  });
  after(async () => {
    await proxy?.close();
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
    get clock() {
      return clock!;
    },
    get api() {
      return supertest.agent(service!.app);
    },
    another: (extra = {}) => build(extra),
  };
}

export function configFor(rpcUrl: string, env: Record<string, string> = {}): Config {
  const config = loadConfig({ RPC_TIMEOUT_MS: "1000", ...env, TOKEN_KEYS: env.TOKEN_KEYS ?? `k1:${"a".repeat(40)}` , RPC_URL: rpcUrl, FINALITY: env.FINALITY ?? "2" });
  return config;
}

export type { Hex };
