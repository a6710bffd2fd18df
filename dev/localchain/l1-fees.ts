import { toHex, type Hex, type PublicClient, type TestClient } from "viem";
import { chainConfig } from "viem/op-stack";
import type { RequestProvider } from "./rpc-server.js";

/**
 * The L1 fee parameters an OP-stack chain (Base) prices a transaction's L1 data fee with (Ecotone
 * and later): the L1 base fee, the L1 blob base fee and the two scalars. On a real chain the
 * sequencer's first transaction of every block writes them into the L1Block predeploy; the
 * GasPriceOracle and the node's receipts (`l1Fee`) read them from there.
 */
export interface L1FeeParameters {
  /** L1 base fee, in wei. */
  l1BaseFee: bigint;
  /** L1 blob base fee, in wei. */
  blobBaseFee: bigint;
  /** Scalar on the L1 base fee part (Ecotone: ×16 per compressed byte), 1e6 = 1. */
  baseFeeScalar: number;
  /** Scalar on the blob base fee part, 1e6 = 1. */
  blobBaseFeeScalar: number;
}

/** Base mainnet's fee scalars (SystemConfig, since Ecotone); the local chain uses them. */
export const BASE_FEE_SCALARS = { baseFeeScalar: 2269, blobBaseFeeScalar: 1_055_762 } as const;

/**
 * Three L1 markets the tests and the bench run at, with Base's scalars: a quiet L1 (blobs at the
 * 1 wei floor), an ordinary one, and a spike (a busy L1 with congested blobs).
 */
export const L1_FEE_LEVELS = {
  low: { l1BaseFee: 500_000_000n, blobBaseFee: 1n, ...BASE_FEE_SCALARS },
  normal: { l1BaseFee: 5_000_000_000n, blobBaseFee: 1_000_000_000n, ...BASE_FEE_SCALARS },
  spiking: { l1BaseFee: 200_000_000_000n, blobBaseFee: 60_000_000_000n, ...BASE_FEE_SCALARS },
} as const satisfies Record<string, L1FeeParameters>;

/** The L1Block predeploy, where the L1 fee parameters live. */
export const L1_BLOCK_ADDRESS = chainConfig.contracts.l1Block.address;

/**
 * L1Block's storage layout since Ecotone (contracts-bedrock `src/L2/L1Block.sol`):
 *   slot 0: number (uint64) | timestamp (uint64)
 *   slot 1: basefee (uint256)                       ← the L1 base fee
 *   slot 2: hash (bytes32)
 *   slot 3: sequenceNumber (uint64, bits 0–63) | blobBaseFeeScalar (uint32, bits 64–95)
 *           | baseFeeScalar (uint32, bits 96–127)    ← packed, low-order first
 *   slot 4: batcherHash; slot 5: l1FeeOverhead; slot 6: l1FeeScalar (pre-Ecotone, unused)
 *   slot 7: blobBaseFee (uint256)                   ← the L1 blob base fee
 * EDR's op chain starts with the two scalars in bits 128–191 and 192–255 of slot 3, where neither
 * the GasPriceOracle nor the receipt reads them: every L1 fee was 0.
 */
export const L1_BLOCK_SLOTS = { basefee: 1n, scalars: 3n, blobBaseFee: 7n } as const;

const slot = (n: bigint): Hex => toHex(n, { size: 32 });
const word = (n: bigint): Hex => toHex(n, { size: 32 });

/** Slot 3 with `parameters`' scalars at their offsets, keeping the sequence number. */
export function packScalars(current: bigint, parameters: Pick<L1FeeParameters, "baseFeeScalar" | "blobBaseFeeScalar">): bigint {
  const sequenceNumber = current & ((1n << 64n) - 1n);
  return sequenceNumber | (BigInt(parameters.blobBaseFeeScalar) << 64n) | (BigInt(parameters.baseFeeScalar) << 96n);
}

/** Writes the L1 fee parameters into L1Block; transactions from the next block on pay them. */
export async function setL1Fees(clients: { publicClient: PublicClient; testClient: TestClient }, parameters: L1FeeParameters): Promise<void> {
  const { publicClient, testClient } = clients;
  const current = BigInt((await publicClient.getStorageAt({ address: L1_BLOCK_ADDRESS, slot: slot(L1_BLOCK_SLOTS.scalars) })) ?? "0x0");
  await testClient.setStorageAt({ address: L1_BLOCK_ADDRESS, index: slot(L1_BLOCK_SLOTS.basefee), value: word(parameters.l1BaseFee) });
  await testClient.setStorageAt({ address: L1_BLOCK_ADDRESS, index: slot(L1_BLOCK_SLOTS.blobBaseFee), value: word(parameters.blobBaseFee) });
  await testClient.setStorageAt({ address: L1_BLOCK_ADDRESS, index: slot(L1_BLOCK_SLOTS.scalars), value: word(packScalars(current, parameters)) });
}

/** EDR's refusal of a call whose sender cannot pay the upfront cost (for an eth_call: the L1 data fee). */
const UPFRONT_REFUSAL = /max upfront cost is: (\d+) and the sender's balance is: (\d+)/;

/**
 * `eth_call` as an OP-stack node (op-geth, reth) answers it: without charging the L1 data fee.
 * EDR's OP mode takes the L1 fee from the sender's balance in an `eth_call` too, so a call from an
 * account without ETH (a Safe simulating what it would send, a payer holding only USDC) is refused
 * locally where Base answers it. Such a refused call (no fee fields, no state override) is asked
 * again with the sender's balance raised by exactly the upfront cost EDR names, which it takes back
 * before running the call: the call runs against the sender's real balance, as on Base. Every other
 * request, and every other refusal, passes through unchanged. (`eth_estimateGas` takes no state
 * override in EDR and keeps charging the L1 fee; the service estimates only as its funded relayer.)
 */
export function callsWithoutL1Fee(provider: RequestProvider): RequestProvider {
  return {
    async request(args) {
      if (args.method !== "eth_call") return provider.request(args);
      try {
        return await provider.request(args);
      } catch (error) {
        const params = Array.isArray(args.params) ? args.params : [];
        const call = params[0] as { from?: string; gasPrice?: string; maxFeePerGas?: string } | undefined;
        const refused = UPFRONT_REFUSAL.exec(String((error as Error)?.message ?? ""));
        if (!refused || !call?.from || call.gasPrice || call.maxFeePerGas || params.length > 2) throw error;
        const balance = BigInt(refused[1]!) + BigInt(refused[2]!);
        return provider.request({ method: "eth_call", params: [call, params[1] ?? "latest", { [call.from]: { balance: toHex(balance) } }] });
      }
    },
  };
}
