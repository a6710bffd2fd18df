import type { Address, Hex, PublicClient } from "viem";
import { majorityRead, pinnedBlock } from "../chain/majority-read.js";
import { rpc } from "../chain/rpc-errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";

/** A payment's entry in the escrow's ledger (`paymentState`). */
export interface PaymentLedger {
  hasCollectedPayment: boolean;
  capturable: bigint;
  refundable: bigint;
}

/**
 * The escrow's ledger for each payment hash, as a majority of the nodes answer it, all read at one
 * block a majority of them reached (majority-read.ts): one node's forged or stale ledger, or its
 * error, changes no figure and stops no read. One node: its answers at its latest block.
 */
export async function paymentStates(client: PublicClient, escrow: Address, hashes: readonly Hex[]): Promise<PaymentLedger[]> {
  if (hashes.length === 0) return [];
  const blockNumber = (await rpc(() => pinnedBlock(client))) ?? undefined;
  return Promise.all(
    hashes.map(async (hash) => {
      const [hasCollectedPayment, capturable, refundable] = await rpc(() =>
        majorityRead(client, (c) => c.readContract({ address: escrow, abi: authCaptureEscrowAbi, functionName: "paymentState", args: [hash], blockNumber })),
      );
      return { hasCollectedPayment, capturable, refundable };
    }),
  );
}
