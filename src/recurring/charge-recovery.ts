import { isAddressEqual, type PublicClient } from "viem";
import { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import { finalityHead, isSettled } from "../chain/finality.js";
import { rpc } from "../chain/rpc-errors.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import type { ChargeRecoverResponse } from "../wire/index.js";
import type { SubscriptionCapabilities } from "./capabilities.js";

export interface ChargeRecoveryDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
  capabilities: SubscriptionCapabilities;
}

/** Recovers a lost charge: what the chain says of one period, read-only, in a fixed number of calls. */
export class ChargeRecovery {
  readonly #reader: RecurringChargesReader;

  constructor(private readonly deps: ChargeRecoveryDeps) {
    this.#reader = RecurringChargesReader.of(deps);
  }

  /**
   * Finds the charge of one period: the contract's `chargedBlock` slot, then the `Charged` log of
   * that one block, which must match the signed terms.
   */
  async recover(token: string, periodIndex: number): Promise<ChargeRecoverResponse> {
    const { terms } = this.deps.capabilities.read(token);
    const id = this.deps.capabilities.subscriptionId(terms);
    const period = BigInt(periodIndex);
    const { client } = this.deps;
    for (let attempt = 0; attempt < 2; attempt++) {
      const latest = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
      const chargedIn = await this.#reader.chargedBlock(id, period, latest);
      if (chargedIn === 0n) return { found: false as const, code: "PAYMENT_NOT_FOUND" as const, as_of_block: latest.toString() };
      const log = (await this.#reader.chargedLogs(id, period, chargedIn))[0];
      if (!log) continue; // the chain moved between the two reads: read again
      const fee = (terms.amount * BigInt(terms.feeBps)) / 10_000n;
      const a = log.args;
      const matches =
        isAddressEqual(a.payer, terms.payer) &&
        isAddressEqual(a.recipient, terms.recipient) &&
        isAddressEqual(a.token, terms.token) &&
        a.amount === terms.amount &&
        a.fee === fee &&
        a.networkFee === terms.networkFee &&
        a.net === terms.amount - fee - terms.networkFee;
      if (!matches) throw new DomainError("PAYMENT_RECOVERY_INCONSISTENT", { detail: "the Charged log contradicts the signed terms" });
      const head = await finalityHead(client, this.deps.finality, latest);
      if (!isSettled(log.blockNumber, head)) throw new DomainError("PAYMENT_CONFIRMING", { txHash: log.transactionHash });
      return {
        found: true as const,
        subscription_id: id,
        period_index: periodIndex,
        tx_hash: log.transactionHash,
        block_number: log.blockNumber.toString(),
        payer: a.payer,
        recipient: a.recipient,
        net_units: a.net.toString(),
        fee_units: a.fee.toString(),
        network_fee_units: a.networkFee.toString(),
        amount_units: a.amount.toString(),
      };
    }
    throw new DomainError("PAYMENT_RECOVERY_INCONSISTENT", { detail: "chargedBlock set but no Charged log" });
  }
}
