import { isAddressEqual, type Address, type Hex } from "viem";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import { readReceiptsAfterHead } from "../chain/finality.js";
import { agreed, receiptClaim } from "../chain/agreement.js";
import { isKnownTransaction } from "../chain/transactions.js";
import { formatAmount } from "../money.js";
import type { PaymentChain } from "../payments/verify.js";
import type { X402SettlementVerdictResponse } from "../wire/index.js";
import { authorizationTransfer } from "./proof.js";

/**
 * POST /v1/x402/verify-settlement: the final verdict of an x402 payment to a merchant's receiver, by
 * the transaction x402's settle named and the authorization's nonce, with the rules and codes of
 * POST /v1/payments/verify. Valid only when the transaction, at or below the finality head, holds the
 * authorization's use (`AuthorizationUsed(payer, nonce)`) and its transfer into the recipient's
 * receiver, and the receiver's funds left split: in the same transaction (`ReceiverPaid` with that
 * nonce, a settlement through X402Receivers) or by a final `ReceiverSplit` of that receiver at or
 * after it (a front-runner submitted the authorization straight to USDC). PAYMENT_CONFIRMING before
 * finality (or while the split is not final), PAYMENT_NOT_FOUND for a transaction the node does not
 * know, TRANSACTION_REVERTED, PAYMENT_MISMATCH when the transaction is not that payment.
 */
export async function settlementVerdict(chain: PaymentChain, q: { txHash: Hex; nonce: Hex; recipient: Address }): Promise<X402SettlementVerdictResponse> {
  const reader = X402ReceiversReader.of(chain);
  const token = chain.deployment.token.address;
  const receiver = await reader.receiverOf(q.recipient, token);
  const { head, receipts } = await readReceiptsAfterHead(chain.client, chain.finality, [q.txHash]);
  const receipt = receipts[0];
  if (!receipt) return { valid: false, code: (await isKnownTransaction(chain.client, q.txHash)) ? "PAYMENT_CONFIRMING" : "PAYMENT_NOT_FOUND" };
  if (receipt.status !== "success") return { valid: false, code: "TRANSACTION_REVERTED" };
  // The transfer this authorization made (the log right after its AuthorizationUsed), into this receiver.
  const made = authorizationTransfer(receipt, token, q.nonce);
  const moved = made && isAddressEqual(made.to, receiver) ? made : null;
  const payer = moved?.from;
  if (!payer || !moved) return { valid: false, code: "PAYMENT_MISMATCH" };
  if (receipt.blockNumber > head) return { valid: false, code: "PAYMENT_CONFIRMING" };
  // Split in this transaction by X402Receivers for this nonce, payer, recipient and USDC (anyone may
  // call settle with another token, and so emit a ReceiverPaid naming this nonce).
  const splitHere = reader
    .paidIn(receipt)
    .some(
      (p) =>
        p.args.nonce.toLowerCase() === q.nonce.toLowerCase() &&
        isAddressEqual(p.args.recipient, q.recipient) &&
        isAddressEqual(p.args.token, token) &&
        isAddressEqual(p.args.payer, payer),
    );
  if (!splitHere && (await reader.splitLogs(receiver, token, receipt.blockNumber, head)).length === 0) return { valid: false, code: "PAYMENT_CONFIRMING" };
  // Valid on a majority of the nodes' word: the settlement's receipt, its block, final on each.
  if (!(await agreed(chain.client, chain.finality, receiptClaim(receipt)))) return { valid: false, code: "PAYMENT_CONFIRMING" };
  return {
    valid: true,
    tx_hash: receipt.transactionHash.toLowerCase() as Hex,
    nonce: q.nonce.toLowerCase() as Hex,
    payer,
    pay_to: receiver,
    amount: formatAmount(moved.value),
    amount_units: moved.value.toString(),
    chain_id: chain.deployment.chainId,
    block_number: receipt.blockNumber.toString(),
    block_hash: receipt.blockHash,
  };
}
