import { createPublicClient, defineChain, http, type Chain, type HttpTransport, type PublicClient, type Transport } from "viem";
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
 * `transport` with every request told to `onRequest` before it leaves: a metered provider bills
 * each request, batched or not, so each is counted where viem hands it to the transport (a batch is
 * assembled after this point).
 */
export function countedTransport<T extends Transport>(transport: T, onRequest: OnRpcRequest): T {
  return ((params: Parameters<T>[0]) => {
    const inner = transport(params);
    const request: typeof inner.request = (args, options) => {
      onRequest(args.method);
      return inner.request(args, options);
    };
    return { ...inner, request };
  }) as T;
}

/**
 * A public client over JSON-RPC HTTP with a per-request timeout and no hidden retries: the caller
 * owns retry policy (Retry-After), so one API request makes a countable number of RPC calls.
 * Reads started together (`Promise.all`) leave as one JSON-RPC batch: one round trip. Every request
 * is told to `onRequest` (the ops port's `rpc_requests_total`).
 */
export function createChainClient(chainId: number, rpcUrl: string, timeoutMs: number, onRequest: OnRpcRequest = () => {}): PublicClient {
  return createPublicClient({
    chain: chainFor(chainId, rpcUrl),
    transport: countedTransport(createNodeTransport(rpcUrl, timeoutMs), onRequest),
    cacheTime: 0,
  }) as PublicClient;
}

/** The transport to one node: JSON-RPC over HTTP, batched, with a timeout and no retries (see {@link createChainClient}). */
export function createNodeTransport(rpcUrl: string, timeoutMs: number): HttpTransport {
  return http(rpcUrl, { timeout: timeoutMs, retryCount: 0, batch: { batchSize: 100, wait: 0 } });
}
