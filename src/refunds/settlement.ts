import { isAddressEqual, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import { isSettled } from "../chain/finality.js";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import { intentPaidFact, paidFacts, type PaymentChain } from "../payments/verify.js";
import type { Intent } from "../payments/intent.js";
import type { Terms } from "../recurring/terms.js";

/** A settled original payment, as the chain says it happened: what a refund is derived from. */
export interface Settlement {
  token: Address;
  /** Who received the payment and refunds it. */
  merchant: Address;
  /** Who paid and receives the refund. */
  payer: Address;
  /** The payment came to its payment address: `payer` is who sent that transfer (an exchange's wallet, maybe). */
  fromDeposit?: boolean;
  /** The refund ceiling: the commercial amount paid (never a gas reimbursement), token units. */
  amountUnits: bigint;
  /** Where the settlement's `Paid` or `Charged` event is on chain: a refund's transfer must come after it. */
  position: ChainPosition;
}

/** A log's place in the chain's order: its block, then its index in that block. */
export interface ChainPosition {
  blockNumber: bigint;
  logIndex: number;
}

/** Whether the log at `a` comes strictly after the log at `b` in the chain's order. */
export function isAfter(a: ChainPosition, b: ChainPosition): boolean {
  return a.blockNumber > b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex > b.logIndex);
}

export interface SettlementChain {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
}

/** Throws PAYMENT_CONFIRMING unless the receipt (read after the head `head`) is at or below it. */
function requireSettled(receipt: TransactionReceipt, head: bigint): void {
  if (!isSettled(receipt.blockNumber, head)) throw new DomainError("PAYMENT_CONFIRMING");
}

/** The one-time payment a receipt (read after the finality head `head`) made for `intent`, from the Splitter's `Paid` event. */
export function paymentSettlement(chain: PaymentChain, intent: Intent, receipt: TransactionReceipt | null, head: bigint): Settlement {
  if (receipt?.status !== "success") throw new DomainError("PAYMENT_NOT_FOUND");
  const paid = intentPaidFact(chain, receipt, intent);
  if (
    !paid ||
    !isAddressEqual(paid.recipient, intent.recipient) ||
    paid.amount !== intent.amountUnits ||
    !isAddressEqual(paid.token, chain.deployment.token.address)
  ) {
    throw new DomainError("PAYMENT_MISMATCH");
  }
  requireSettled(receipt, head);
  return {
    token: paid.token,
    merchant: paid.recipient,
    payer: paid.payer,
    amountUnits: paid.amount,
    position: { blockNumber: paid.blockNumber, logIndex: paid.logIndex },
  };
}

/**
 * The one-time payment of `reference` a receipt (read after the finality head `head`) made, with no
 * capability to compare it with: the one `Paid` of our Splitter naming that reference, or the one
 * `ReceiverPaid` of X402Receivers naming it as nonce, in the deployment's token. Who was paid, who
 * paid and how much are the event's own; the refund goes from the recipient it names to its payer.
 */
export function referenceSettlement(chain: PaymentChain, reference: Hex, receipt: TransactionReceipt | null, head: bigint): Settlement & { key?: Hex } {
  if (receipt?.status !== "success") throw new DomainError("PAYMENT_NOT_FOUND");
  const token = chain.deployment.token.address;
  const paid = paidFacts(chain, receipt).filter((p) => p.reference === reference && isAddressEqual(p.token, token));
  const viaReceiver = X402ReceiversReader.of(chain)
    .paidIn(receipt)
    .filter((l) => l.args.nonce === reference && isAddressEqual(l.args.token, token));
  if (paid.length + viaReceiver.length !== 1) throw new DomainError("PAYMENT_MISMATCH");
  requireSettled(receipt, head);
  if (paid[0]) {
    const p = paid[0];
    return {
      token: p.token,
      merchant: p.recipient,
      payer: p.payer,
      amountUnits: p.amount,
      position: { blockNumber: p.blockNumber, logIndex: p.logIndex },
      key: p.key,
    };
  }
  const r = viaReceiver[0]!;
  return {
    token: r.args.token,
    merchant: r.args.recipient,
    payer: r.args.payer,
    amountUnits: r.args.amount,
    position: { blockNumber: r.blockNumber, logIndex: r.logIndex },
  };
}

/** The recurring charge of `periodIndex` a receipt (read after the finality head `head`) made for the signed terms, from the `Charged` event. */
export function chargeSettlement(
  chain: SettlementChain,
  subscriptionId: Hex,
  terms: Terms,
  periodIndex: bigint,
  receipt: TransactionReceipt | null,
  head: bigint,
): Settlement {
  if (receipt?.status !== "success") throw new DomainError("PAYMENT_NOT_FOUND");
  const charged = RecurringChargesReader.of(chain).chargedIn(receipt, subscriptionId, periodIndex);
  if (
    !charged ||
    !isAddressEqual(charged.args.recipient, terms.recipient) ||
    !isAddressEqual(charged.args.payer, terms.payer) ||
    !isAddressEqual(charged.args.token, terms.token) ||
    charged.args.amount !== terms.amount
  ) {
    throw new DomainError("PAYMENT_MISMATCH");
  }
  requireSettled(receipt, head);
  return {
    token: charged.args.token,
    merchant: charged.args.recipient,
    payer: charged.args.payer,
    amountUnits: charged.args.amount,
    position: { blockNumber: charged.blockNumber, logIndex: charged.logIndex },
  };
}
