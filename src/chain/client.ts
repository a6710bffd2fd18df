import { createPublicClient, defineChain, http, type Chain, type HttpTransport, type PublicClient } from "viem";
import { base, baseSepolia } from "viem/chains";

/** The viem chain definition for a chain id we serve, pointed at `rpcUrl`. */
export function chainFor(chainId: number, rpcUrl: string): Chain {
  const known = chainId === base.id ? base : chainId === baseSepolia.id ? baseSepolia : null;
  if (!known) throw new Error(`unsupported chain id ${chainId}`);
  return defineChain({ ...known, rpcUrls: { default: { http: [rpcUrl] } } });
}

/**
 * A public client over JSON-RPC HTTP with a per-request timeout and no hidden retries: the caller
 * owns retry policy (Retry-After), so one API request makes a countable number of RPC calls.
 * Reads started together (`Promise.all`) leave as one JSON-RPC batch: one round trip.
 */
export function createChainClient(chainId: number, rpcUrl: string, timeoutMs: number): PublicClient {
  return createPublicClient({ chain: chainFor(chainId, rpcUrl), transport: createNodeTransport(rpcUrl, timeoutMs), cacheTime: 0 }) as PublicClient;
}

/** The transport to one node: JSON-RPC over HTTP, batched, with a timeout and no retries (see {@link createChainClient}). */
export function createNodeTransport(rpcUrl: string, timeoutMs: number): HttpTransport {
  return http(rpcUrl, { timeout: timeoutMs, retryCount: 0, batch: { batchSize: 100, wait: 0 } });
}
