import { isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { ServiceError } from "../errors.js";
import { isReceiptSettled } from "../chain/finality.js";
import { readReceipt } from "../chain/transactions.js";
import { intentPaidFact, type PaymentChain } from "../payments/verify.js";
import type { Intent } from "../payments/intent.js";
import type { Terms } from "../recurring/terms.js";

/** A settled original payment, as the chain says it happened: what a refund is derived from. */
export interface Settlement {
  token: Address;
  /** Who received the payment and refunds it. */
  merchant: Address;
  /** Who paid and receives the refund. */
  payer: Address;
  /** The refund ceiling: the commercial amount paid (never a gas reimbursement), token units. */
  amountUnits: bigint;
}

export interface SettlementChain {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
}

/** Throws PAYMENT_CONFIRMING unless the receipt's block is canonical and at or below the finality head. */
async function requireSettled(chain: SettlementChain, receipt: TransactionReceipt): Promise<void> {
  if (!(await isReceiptSettled(chain.client, chain.finality, receipt))) throw new ServiceError("PAYMENT_CONFIRMING");
}

/** The one-time payment `txHash` made for `intent`, from the Splitter's `Paid` event. */
export async function paymentSettlement(chain: PaymentChain, intent: Intent, txHash: Hex): Promise<Settlement> {
  const receipt = await readReceipt(chain.client, txHash);
  if (receipt?.status !== "success") throw new ServiceError("PAYMENT_NOT_FOUND");
  const paid = intentPaidFact(chain, receipt, intent);
  if (!paid || !isAddressEqual(paid.recipient, intent.recipient) || paid.amount !== intent.amountUnits || !isAddressEqual(paid.token, chain.deployment.token.address)) {
    throw new ServiceError("PAYMENT_MISMATCH");
  }
  await requireSettled(chain, receipt);
  return { token: paid.token, merchant: paid.recipient, payer: paid.payer, amountUnits: paid.amount };
}

/** The recurring charge of `periodIndex` that `txHash` made for the signed terms, from the `Charged` event. */
export async function chargeSettlement(chain: SettlementChain, subscriptionId: Hex, terms: Terms, periodIndex: bigint, txHash: Hex): Promise<Settlement> {
  const receipt = await readReceipt(chain.client, txHash);
  if (receipt?.status !== "success") throw new ServiceError("PAYMENT_NOT_FOUND");
  const charged = parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs, strict: true }).find(
    (l) => isAddressEqual(l.address, chain.deployment.contracts.RecurringCharges.address) && l.args.subscriptionId === subscriptionId && l.args.periodIndex === periodIndex,
  );
  if (!charged || !isAddressEqual(charged.args.recipient, terms.recipient) || !isAddressEqual(charged.args.payer, terms.payer) || !isAddressEqual(charged.args.token, terms.token) || charged.args.amount !== terms.amount) {
    throw new ServiceError("PAYMENT_MISMATCH");
  }
  await requireSettled(chain, receipt);
  return { token: charged.args.token, merchant: charged.args.recipient, payer: charged.args.payer, amountUnits: charged.args.amount };
}
