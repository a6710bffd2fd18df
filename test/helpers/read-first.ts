import { assert } from "chai";
import { nodesOf } from "../../src/chain/nodes.js";
import type { Service } from "../../src/service.js";
import type { RpcProxy } from "./rpc-proxy.js";
import type { ServiceHarness } from "./service.js";
import { until } from "./until.js";

/** How much slower the other nodes answer: far more than a loaded machine's jitter in the latencies the service measures. */
export const SLOWER_MS = 200;

/** Waits until the start's head reads (one `eth_blockNumber` per node, which the start does not wait for) are answered. */
export async function headsRead(service: Service, timeoutMs = 20_000): Promise<void> {
  const nodes = nodesOf(service.client)!.nodes;
  await until(() => nodes.every((node) => node.head !== 0n), "every node's head read at start", { timeoutMs });
}

/**
 * A service built with every node but `first` {@link SLOWER_MS} slower, its start's head reads
 * answered, and its ranking asserted: its reads go to `first` until it is set aside. A liar test
 * builds on this, then asserts the lie was served ({@link RpcProxy.lied}) before the outcome.
 */
export async function serviceReadingFirst(h: Pick<ServiceHarness, "nodes" | "another">, first: RpcProxy): Promise<Service> {
  for (const node of h.nodes) node.latencyMs = node === first ? 0 : SLOWER_MS;
  const built = await h.another();
  await headsRead(built);
  assert.equal(nodesOf(built.client)!.ranked()[0]!.position, h.nodes.indexOf(first), `reads go to node ${h.nodes.indexOf(first)} first`);
  return built;
}
