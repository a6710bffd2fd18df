import { erc20Abi, isAddressEqual, parseEventLogs, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { excessIn, SplitterReader, type PaidLog } from "../chain/contracts/splitter.js";
import { keccakAbiWords } from "../chain/keccak.js";
import type { Finality } from "../config.js";
import type { LiveDeployment } from "../deployments.js";
import { formatAmount } from "../money.js";
import { isSettled, readReceiptsAfterHead } from "../chain/finality.js";
import { agreeOnReceipt, type Agreed } from "../chain/agreement.js";
import { isKnownTransaction } from "../chain/transactions.js";
import type { Intent } from "./intent.js";
import type { VerifyCode, VerifyPaymentResponse } from "../wire/index.js";

export type { VerifyCode };
/** A verdict on one transaction: the wire's VerifyPaymentResponse. */
export type PaymentVerdict = VerifyPaymentResponse;

export interface PaymentChain {
  client: PublicClient;
  deployment: LiveDeployment;
  finality: Finality;
}

/**
 * The Splitter's replay-guard key of a payment: `keccak256(abi.encode(token, recipient, amount,
 * reference))`, as `Splitter.paymentKey` computes it. A look-alike (another token, recipient or amount
 * under the same reference) has another key, so it neither blocks nor counts as this payment.
 */
export function paymentKeyOf(token: Address, intent: Pick<Intent, "recipient" | "amountUnits" | "reference">): Hex {
  return keccakAbiWords([{ address: token }, { address: intent.recipient }, { uint256: intent.amountUnits }, { bytes32: intent.reference }]);
}

/** What a `Paid` event says, as far as the verdict needs it. */
export interface PaidFact {
  splitter: Hex;
  key: Hex;
  reference: Hex;
  payer: Hex;
  recipient: Hex;
  token: Hex;
  amount: bigint;
  txHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  /** The log's position in its block. */
  logIndex: number;
  /** Everything that left the payment address, when its settlement moved more than the amount (`PaidInExcess`). */
  moved?: bigint;
}

/**
 * The verdict on a `Paid` fact for an intent: it must come from our Splitter, for the intent's
 * reference, recipient, token and exact amount, and be at or below the finality head.
 */
export function judgePaid(chain: PaymentChain, intent: Intent, paid: PaidFact, head: bigint): PaymentVerdict {
  const { deployment } = chain;
  const matches =
    isAddressEqual(paid.splitter, deployment.contracts.Splitter.address) &&
    paid.reference === intent.reference &&
    isAddressEqual(paid.recipient, intent.recipient) &&
    isAddressEqual(paid.token, deployment.token.address) &&
    paid.amount === intent.amountUnits;
  if (!matches) return { valid: false, code: "PAYMENT_MISMATCH" };
  if (!isSettled(paid.blockNumber, head)) return { valid: false, code: "PAYMENT_CONFIRMING" };
  return {
    valid: true,
    tx_hash: paid.txHash,
    reference: paid.reference,
    amount: formatAmount(paid.amount),
    block_number: paid.blockNumber.toString(),
    block_hash: paid.blockHash,
    ...(paid.moved !== undefined ? { moved_units: paid.moved.toString() } : {}),
  };
}

/** What a `Paid` log says, with the transaction and block it is in. */
export function paidFact(log: Pick<PaidLog, "address" | "args" | "logIndex">, at: { txHash: Hex; blockNumber: bigint; blockHash: Hex }): PaidFact {
  return {
    splitter: log.address,
    key: log.args.paymentKey,
    reference: log.args.paymentReference,
    payer: log.args.payer,
    recipient: log.args.recipient,
    token: log.args.token,
    amount: log.args.amount,
    logIndex: log.logIndex,
    ...at,
  };
}

/** The `Paid` events our Splitter emitted in a receipt. */
export function paidFacts(chain: PaymentChain, receipt: TransactionReceipt): PaidFact[] {
  return SplitterReader.of(chain)
    .paidIn(receipt)
    .map((log) => paidFact(log, { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash }));
}

/**
 * The `Paid` fact of a receipt that concerns `intent`: the exact payment (same key) when the receipt
 * holds it, else any payment of the intent's reference (a look-alike, which judges as a mismatch),
 * else undefined.
 */
export function intentPaidFact(chain: PaymentChain, receipt: TransactionReceipt, intent: Intent): PaidFact | undefined {
  const key = paymentKeyOf(chain.deployment.token.address, intent);
  const ofReference = paidFacts(chain, receipt).filter((p) => p.reference === intent.reference);
  return ofReference.find((p) => p.key === key) ?? ofReference[0];
}

/**
 * Verifies that transaction `txHash` paid `intent`, by re-reading its receipt from the chain: the
 * finality head, then the receipt (two JSON-RPC calls). The verdict names the block hash it was
 * computed on; the receipt is read after the head, so a receipt at or below the head is canonical
 * and settled, and an unsettled answer is never given as final.
 *
 * The hash may also be the buyer's own transfer to the intent's payment address (`depositAddress`):
 * the only hash an exchange or a plain wallet shows. Such a transfer is not the payment (its
 * settlement is): it is answered `{ deposit: true }`, for the settlement's verdict (deposit-verdict.ts).
 */
export async function verifyPaymentTransaction(
  chain: PaymentChain,
  intent: Intent,
  txHash: Hex,
  depositAddress: Address,
): Promise<PaymentVerdict | { deposit: true }> {
  const { head, receipts } = await readReceiptsAfterHead(chain.client, chain.finality, [txHash]);
  const receipt = receipts[0];
  if (!receipt) {
    const pending = await isKnownTransaction(chain.client, txHash);
    return { valid: false, code: pending ? "PAYMENT_CONFIRMING" : "PAYMENT_NOT_FOUND" };
  }
  // Every verdict, a refusal as well as goods released, on what a majority of the nodes hold, never
  // on the one node that answered (a receipt it forged reverted would refuse a paid payment).
  const held = await agreeOnReceipt("valid", chain.client, chain.finality, receipt);
  return held ? judgeReceipt(chain, intent, held, depositAddress, head) : { valid: false, code: "PAYMENT_CONFIRMING" };
}

/** The verdict a receipt carries for `intent` (a deposit into its payment address is no payment). */
function judgeReceipt(
  chain: PaymentChain,
  intent: Intent,
  receipt: Agreed<TransactionReceipt>,
  depositAddress: Address,
  head: bigint,
): PaymentVerdict | { deposit: true } {
  if (receipt.status !== "success") return { valid: false, code: "TRANSACTION_REVERTED" };
  const paid = intentPaidFact(chain, receipt, intent);
  if (paid) return judgePaid(chain, intent, { ...paid, moved: excessIn(receipt, depositAddress)?.moved }, head);
  return depositsTo(chain, receipt, depositAddress) ? { deposit: true } : { valid: false, code: "PAYMENT_MISMATCH" };
}

/** Whether the receipt moves the deployment's token to `depositAddress` (a deposit into it). */
function depositsTo(chain: PaymentChain, receipt: TransactionReceipt, depositAddress: Address): boolean {
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs, strict: false }).some(
    (log) => isAddressEqual(log.address, chain.deployment.token.address) && log.args.to !== undefined && isAddressEqual(log.args.to, depositAddress),
  );
}
