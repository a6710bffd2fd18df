import type { FacilitatorEvmSigner } from "@x402/evm";
import type { Address, PublicClient } from "viem";
import { majorityRead } from "../chain/majority-read.js";

/**
 * The chain as @x402/evm's `exact` facilitator reads it: its verify (signature, ERC-1271 and
 * ERC-6492 classification, time window, amount, the asset's code, a simulated
 * `transferWithAuthorization`, and on a failed simulation its diagnosis: nonce used, balance short)
 * runs on these reads. Settling is ours (the Splitter's `settleDepositFromAuthorization`, sent by the
 * relayer), so the signer's write methods refuse: nothing of x402's may send a bare transfer to `payTo`.
 */
export function readOnlyEvmSigner(client: PublicClient, submitter: () => Address | null): FacilitatorEvmSigner {
  const refuse = (what: string) => () => Promise.reject(new Error(`${what}: this facilitator settles through the Splitter, never with x402's own transfer`));
  return {
    getAddresses: () => {
      const address = submitter();
      return address ? [address] : [];
    },
    // Each read decides a refusal (a simulated transfer, a signature, the asset's code): a majority's, never one node's.
    readContract: (args) => majorityRead(client, (c) => c.readContract(args as Parameters<PublicClient["readContract"]>[0])),
    verifyTypedData: (args) => majorityRead(client, (c) => c.verifyTypedData(args as Parameters<PublicClient["verifyTypedData"]>[0])),
    getCode: (args) => majorityRead(client, (c) => c.getCode(args)),
    writeContract: refuse("writeContract"),
    sendTransaction: refuse("sendTransaction"),
    waitForTransactionReceipt: refuse("waitForTransactionReceipt"),
  };
}
