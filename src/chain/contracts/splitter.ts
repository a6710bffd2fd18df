import { encodeFunctionData, isAddressEqual, parseEventLogs, type Address, type Hex, type Log, type PublicClient, type TransactionReceipt } from "viem";
import { depositForwarderAbi, splitterAbi } from "../../generated/contracts.js";
import { rpc } from "../rpc-errors.js";

/**
 * Reads of the Splitter, one module for every domain that reads it (payment resolve, verify,
 * recovery, refunds, the webhook watcher): the settled-once guard and `Paid` logs.
 */
export const PAID_EVENT = splitterAbi.find((i) => i.type === "event" && i.name === "Paid")!;

export type PaidLog = ReturnType<typeof parseEventLogs<typeof splitterAbi, true, "Paid">>[number];

/**
 * `PaidInExcess(moved, fee)`: emitted by a payment address itself (the forwarder's code, which only
 * the Splitter can create there) when its settlement moved more than the payment's amount.
 */
export const PAID_IN_EXCESS_EVENT = depositForwarderAbi.find((i) => i.type === "event" && i.name === "PaidInExcess")!;

/** What a settlement moved out of a payment address that held more than the amount. */
export interface PaidExcess {
  moved: bigint;
  fee: bigint;
}

/** The `PaidInExcess` that payment address `deposit` emitted in `receipt`, if any (at most one: it settles once). */
export function excessIn(receipt: Pick<TransactionReceipt, "logs">, deposit: Address): PaidExcess | undefined {
  const log = parseEventLogs({ abi: depositForwarderAbi, eventName: "PaidInExcess", logs: receipt.logs, strict: true }).find((l) =>
    isAddressEqual(l.address, deposit),
  );
  return log ? { moved: log.args.moved, fee: log.args.fee } : undefined;
}

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

  /** The `eth_call` that {@link settledBlock} makes, for the nodes to be asked it again (a verdict's agreement). */
  settledBlockCall(paymentKey: Hex): { to: Address; data: Hex } {
    return { to: this.address, data: encodeFunctionData({ abi: splitterAbi, functionName: "settledBlock", args: [paymentKey] }) };
  }

  /** keccak256 of the payment-address forwarder's creation code: with a payment key, its payment address. */
  forwarderCodeHash(): Promise<Hex> {
    return rpc(() => this.client.readContract({ address: this.address, abi: splitterAbi, functionName: "FORWARDER_CODE_HASH" }));
  }

  /** The `Paid` logs of one payment key in one block (what `settledBlock` points at). */
  paidLogs(paymentKey: Hex, block: bigint) {
    return rpc(() => this.client.getLogs({ address: this.address, event: PAID_EVENT, args: { paymentKey }, fromBlock: block, toBlock: block, strict: true }));
  }

  /** The `PaidInExcess` logs payment address `deposit` emitted in block `block` (one at most: it settles once). */
  async excessAt(
    deposit: Address,
    block: bigint,
  ): Promise<Array<PaidExcess & { transactionHash: Hex; log: Pick<Log, "address" | "topics" | "data" | "logIndex"> }>> {
    const logs = await rpc(() => this.client.getLogs({ address: deposit, event: PAID_IN_EXCESS_EVENT, fromBlock: block, toBlock: block, strict: true }));
    return logs.map((l) => ({ moved: l.args.moved, fee: l.args.fee, transactionHash: l.transactionHash, log: l }));
  }

  /** The `Paid` events this Splitter emitted in a receipt. */
  paidIn(receipt: TransactionReceipt): PaidLog[] {
    return parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs, strict: true }).filter((log) => isAddressEqual(log.address, this.address));
  }
}
