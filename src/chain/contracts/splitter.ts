import { isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { splitterAbi } from "../../generated/contracts.js";
import { rpc } from "../rpc-errors.js";

/**
 * Reads of the Splitter, one module for every domain that reads it (payment resolve, verify,
 * recovery, refunds, the webhook watcher): the settled-once guard and `Paid` logs.
 */
export const PAID_EVENT = splitterAbi.find((i) => i.type === "event" && i.name === "Paid")!;

export type PaidLog = ReturnType<typeof parseEventLogs<typeof splitterAbi, true, "Paid">>[number];

/** What locates the Splitter: the client and the deployment. */
export interface SplitterChain {
  client: PublicClient;
  deployment: { contracts: { Splitter: { address: Address } } };
}

export class SplitterReader {
  static of(chain: SplitterChain): SplitterReader {
    return new SplitterReader(chain.client, chain.deployment.contracts.Splitter.address);
  }

  constructor(
    private readonly client: PublicClient,
    readonly address: Address,
  ) {}

  /** The block a payment key settled in (0 when it has not), at `blockNumber` (latest if omitted). */
  settledBlock(paymentKey: Hex, blockNumber?: bigint): Promise<bigint> {
    return rpc(() =>
      this.client.readContract({
        address: this.address,
        abi: splitterAbi,
        functionName: "settledBlock",
        args: [paymentKey],
        ...(blockNumber !== undefined ? { blockNumber } : {}),
      }),
    );
  }

  /** keccak256 of the payment-address forwarder's creation code: with a payment key, its payment address. */
  forwarderCodeHash(): Promise<Hex> {
    return rpc(() => this.client.readContract({ address: this.address, abi: splitterAbi, functionName: "FORWARDER_CODE_HASH" }));
  }

  /** The `Paid` logs of one payment key in one block (what `settledBlock` points at). */
  paidLogs(paymentKey: Hex, block: bigint) {
    return rpc(() => this.client.getLogs({ address: this.address, event: PAID_EVENT, args: { paymentKey }, fromBlock: block, toBlock: block, strict: true }));
  }

  /** The `Paid` events this Splitter emitted in a receipt. */
  paidIn(receipt: TransactionReceipt): PaidLog[] {
    return parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs, strict: true }).filter((log) => isAddressEqual(log.address, this.address));
  }
}
