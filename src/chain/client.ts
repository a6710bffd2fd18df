import { defineChain, http, type Chain, type HttpTransport } from "viem";
import { base, baseSepolia } from "viem/chains";

/** Told the method of every JSON-RPC request the service makes (each request of a batch counts). */
export type OnRpcRequest = (method: string) => void;

/** The viem chain definition for a chain id we serve, pointed at `rpcUrl`. */
export function chainFor(chainId: number, rpcUrl: string): Chain {
  const known = chainId === base.id ? base : chainId === baseSepolia.id ? baseSepolia : null;
  if (!known) throw new Error(`unsupported chain id ${chainId}`);
  return defineChain({ ...known, rpcUrls: { default: { http: [rpcUrl] } } });
}

/**
 * The transport to one node: JSON-RPC over HTTP with a per-request timeout and no hidden retries
 * (the caller owns retry policy, Retry-After, so one API request makes a countable number of RPC
 * calls). Reads started together (`Promise.all`) leave as one JSON-RPC batch: one round trip.
 * `ChainNodes` (nodes.ts) counts every request it sends through it (`rpc_requests_total`).
 */
export function createNodeTransport(rpcUrl: string, timeoutMs: number): HttpTransport {
  return http(rpcUrl, { timeout: timeoutMs, retryCount: 0, batch: { batchSize: 100, wait: 0 } });
}
