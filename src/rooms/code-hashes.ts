import type { Hex } from "viem";
import { NoMajorityError } from "../chain/agreement.js";
import type { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import type { DepositAddresses } from "../payments/deposit-address.js";
import { type BaseRoom, firstLine } from "./base.js";

/**
 * The creation-code hashes every payment address and receiver address is derived from, read at start
 * from every node: the majority's is the one used. Nodes that answer and hold no majority alike
 * (a node lying, or nodes of different deployments) stop the start; nodes that cannot be asked now
 * leave the read to the first use, as any read.
 */
export async function readCodeHashes(
  { logger }: Pick<BaseRoom, "logger">,
  sources: { depositAddresses: Pick<DepositAddresses, "codeHash">; receivers: Pick<X402ReceiversReader, "codeHash"> },
): Promise<void> {
  const reads: Array<[string, () => Promise<Hex>]> = [
    ["the payment forwarder's (Splitter.FORWARDER_CODE_HASH)", () => sources.depositAddresses.codeHash()],
    ["the x402 receiver's (X402Receivers.RECEIVER_CODE_HASH)", () => sources.receivers.codeHash()],
  ];
  for (const [name, read] of reads) {
    try {
      await read();
    } catch (error) {
      if (error instanceof NoMajorityError) throw new Error(`the chain's nodes disagree on ${name} code hash (${error.detail}): check RPC_URLS`);
      logger.warn({ error: firstLine(error) }, `could not read ${name} code hash at start: read on first use`);
    }
  }
}
