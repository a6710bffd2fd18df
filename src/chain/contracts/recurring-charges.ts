import { isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { recurringChargesAbi } from "../../generated/contracts.js";
import { rpc } from "../rpc-errors.js";

/**
 * Reads of RecurringCharges, one module for every domain that reads it (charges, recovery,
 * subscription state, refunds, the webhook watcher): the subscription record, a period's charge
 * slot, and `Charged` logs. Every call goes through {@link rpc} (RPC faults become RPC_ERROR/RPC_BUSY).
 */
export const CHARGED_EVENT = recurringChargesAbi.find((i) => i.type === "event" && i.name === "Charged")!;
export const REVOKED_EVENT = recurringChargesAbi.find((i) => i.type === "event" && i.name === "Revoked")!;

/**
 * RecurringCharges' own `SIGNATURE_GAS_CAP`: the gas a contract payer's `isValidSignature` may use on
 * chain in a first charge, whatever the service's SIGNATURE_GAS_CAP setting (finalize's eth_call cap)
 * says. A constant of the contract, so no call reads it; `RecurringCharges.test.ts` checks it
 * against the deployed contract.
 */
export const CONTRACT_SIGNATURE_GAS_CAP = 200_000n;

/** What the contract records of a subscription. */
export interface SubscriptionRecord {
  lastPeriod: bigint;
  paidCount: number;
  revoked: boolean;
}

export type ChargedLog = ReturnType<typeof parseEventLogs<typeof recurringChargesAbi, true, "Charged">>[number];

/** What locates RecurringCharges: the client and the deployment. */
export interface RecurringChargesChain {
  client: PublicClient;
  deployment: { contracts: { RecurringCharges: { address: Address } } };
}

export class RecurringChargesReader {
  static of(chain: RecurringChargesChain): RecurringChargesReader {
    return new RecurringChargesReader(chain.client, chain.deployment.contracts.RecurringCharges.address);
  }

  constructor(
    private readonly client: PublicClient,
    readonly address: Address,
  ) {}

  /** The subscription's record, at `blockNumber` (latest if omitted). */
  async subscription(id: Hex, blockNumber?: bigint): Promise<SubscriptionRecord> {
    const [lastPeriod, paidCount, revoked] = await rpc(() =>
      this.client.readContract({
        address: this.address,
        abi: recurringChargesAbi,
        functionName: "subscriptions",
        args: [id],
        ...(blockNumber !== undefined ? { blockNumber } : {}),
      }),
    );
    return { lastPeriod, paidCount, revoked };
  }

  /** The block a period was charged in (0 when it was not), at `blockNumber` (latest if omitted). */
  chargedBlock(id: Hex, period: bigint, blockNumber?: bigint): Promise<bigint> {
    return rpc(() =>
      this.client.readContract({
        address: this.address,
        abi: recurringChargesAbi,
        functionName: "chargedBlock",
        args: [id, period],
        ...(blockNumber !== undefined ? { blockNumber } : {}),
      }),
    );
  }

  /** The `Charged` logs of one subscription period in one block (what `chargedBlock` points at). */
  chargedLogs(id: Hex, period: bigint, block: bigint) {
    return rpc(() =>
      this.client.getLogs({
        address: this.address,
        event: CHARGED_EVENT,
        args: { subscriptionId: id, periodIndex: period },
        fromBlock: block,
        toBlock: block,
        strict: true,
      }),
    );
  }

  /** The `Charged` event of one subscription period in a receipt, emitted by this contract. */
  chargedIn(receipt: TransactionReceipt, id: Hex, period: bigint): ChargedLog | undefined {
    return parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs, strict: true }).find(
      (l) => isAddressEqual(l.address, this.address) && l.args.subscriptionId === id && l.args.periodIndex === period,
    );
  }

  /**
   * The revert data of a `chargeBatch` item for `id` that charged nothing (its `ChargeSkipped` event in
   * the receipt, emitted by this contract), or undefined.
   */
  skippedIn(receipt: TransactionReceipt, id: Hex, period: bigint): Hex | undefined {
    return parseEventLogs({ abi: recurringChargesAbi, eventName: "ChargeSkipped", logs: receipt.logs, strict: true }).find(
      (l) => isAddressEqual(l.address, this.address) && l.args.subscriptionId === id && l.args.expectedPeriod === period,
    )?.args.reason;
  }
}
