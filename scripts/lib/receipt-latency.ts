// How soon a node serves a transaction's receipt after its broadcast, and whether it does so before
// the block it names is the latest (a node serving receipts early): the figure `npm run bench --
// --base` and `npm run bench -- --denim` report, as a ratio to the block time.
import { createPublicClient, encodeFunctionData, erc20Abi, http, type Address, type Hex, type PublicClient } from "viem";
import type { HDAccount } from "viem/accounts";
import type { LocalChain } from "../../dev/localchain/harness.js";

export interface ReceiptLatency {
  /** Broadcast → first receipt served, ms, one per transfer, sorted. */
  samples: number[];
  /** How many receipts were served while the latest sealed block was below the block they name. */
  ahead: number;
}

/** The `q` quantile of sorted samples (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Sends `count` plain USDC transfers from `sender` through `rpcUrl`, one after the other, each at a
 * random point of the block (a uniform wait up to one block), and polls eth_getTransactionReceipt
 * every `pollMs` from the broadcast (eth_blockNumber in the same round trip, a JSON-RPC batch) until
 * it answers. Deterministic in what it sends; the timings are the node's.
 */
export async function measureReceiptLatency(
  chain: LocalChain,
  rpcUrl: string,
  options: { sender: HDAccount; to: Address; count: number; blockMs: number; pollMs?: number },
): Promise<ReceiptLatency> {
  const pollMs = options.pollMs ?? 20;
  const client = createPublicClient({ chain: chain.chain, transport: http(rpcUrl, { retryCount: 0, batch: true }), cacheTime: 0 }) as PublicClient;
  const fees = await client.estimateFeesPerGas();
  let nonce = await client.getTransactionCount({ address: options.sender.address, blockTag: "pending" });
  const samples: number[] = [];
  let ahead = 0;
  // A fixed sequence of offsets into the block (golden-ratio steps): every phase of the block, the same each run.
  let phase = 0;
  for (let i = 0; i < options.count; i++) {
    phase = (phase + 0.618034) % 1;
    await new Promise((resolve) => setTimeout(resolve, Math.round(phase * options.blockMs)));
    const raw = await options.sender.signTransaction({
      chainId: chain.chain.id,
      type: "eip1559",
      nonce: nonce++,
      to: chain.deployment.token.address,
      gas: 100_000n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [options.to, 1n] }),
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const started = performance.now();
    const hash: Hex = await client.sendRawTransaction({ serializedTransaction: raw });
    for (;;) {
      const [receipt, head] = await Promise.all([
        client.request({ method: "eth_getTransactionReceipt", params: [hash] }) as Promise<{ blockNumber: Hex } | null>,
        client.getBlockNumber({ cacheTime: 0 }),
      ]);
      if (receipt) {
        samples.push(performance.now() - started);
        if (BigInt(receipt.blockNumber) > head) ahead++;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
  samples.sort((a, b) => a - b);
  return { samples, ahead };
}

/** One table row: p50 and p95 in ms and as a ratio to the block time, and how many were served ahead of their block. */
export function latencyRow(label: string, result: ReceiptLatency, blockMs: number): string {
  const p50 = quantile(result.samples, 0.5);
  const p95 = quantile(result.samples, 0.95);
  const r = (ms: number) => (ms / blockMs).toFixed(2);
  return `| ${label} | ${result.samples.length} | ${p50.toFixed(0)} ms (${r(p50)}×) | ${p95.toFixed(0)} ms (${r(p95)}×) | ${result.ahead} of ${result.samples.length} |`;
}

export const LATENCY_HEADER = [
  "| Broadcast → receipt served (plain USDC transfers, one at a time, each at a different point of the block) | Transfers | p50 (÷ block time) | p95 (÷ block time) | Served before the block they name was sealed |",
  "|---|---:|---:|---:|---:|",
].join("\n");
