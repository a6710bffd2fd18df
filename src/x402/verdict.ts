import { isAddressEqual, type Address, type Hex, type TransactionReceipt } from "viem";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import { readReceiptsAfterHead } from "../chain/finality.js";
import { agreeOnLogs, agreeOnReceipt, type Agreed } from "../chain/agreement.js";
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
  // Every verdict, a refusal as well as a valid one, on what a majority of the nodes hold: the
  // settlement's receipt, its block, final on each (and the later split's log, when the split is not in it).
  const held = await agreeOnReceipt("valid", chain.client, chain.finality, receipt);
  if (!held || held.blockNumber > head) return { valid: false, code: "PAYMENT_CONFIRMING" };
  if (held.status !== "success") return { valid: false, code: "TRANSACTION_REVERTED" };
  const agreed = judge(held);
  if ("code" in agreed) return agreed;
  const splits = agreed.splitHere ? [] : (await reader.splitLogs(receiver, token, held.blockNumber, head)).slice(0, 1);
  const split = agreed.splitHere || (await agreeOnLogs("valid", chain.client, chain.finality, splits));
  if (!split || (split !== true && split.length === 0)) return { valid: false, code: "PAYMENT_CONFIRMING" };
  return {
    valid: true,
    tx_hash: held.transactionHash.toLowerCase() as Hex,
    nonce: q.nonce.toLowerCase() as Hex,
    payer: agreed.payer,
    pay_to: receiver,
    amount: formatAmount(agreed.value),
    amount_units: agreed.value.toString(),
    chain_id: chain.deployment.chainId,
    block_number: held.blockNumber.toString(),
    block_hash: held.blockHash,
  };

  /** What a receipt says of this payment: its payer, the amount, and whether it was split in it; or why it is not the payment. */
  function judge(
    r: Agreed<TransactionReceipt>,
  ): { payer: Address; value: bigint; splitHere: boolean } | { valid: false; code: "TRANSACTION_REVERTED" | "PAYMENT_MISMATCH" } {
    if (r.status !== "success") return { valid: false, code: "TRANSACTION_REVERTED" };
    // The transfer this authorization made (the log right after its AuthorizationUsed), into this receiver.
    const made = authorizationTransfer(r, token, q.nonce);
    const moved = made && isAddressEqual(made.to, receiver) ? made : null;
    if (!moved) return { valid: false, code: "PAYMENT_MISMATCH" };
    const payer = moved.from;
    // Split in this transaction by X402Receivers for this nonce, payer, recipient and USDC (anyone may
    // call settle with another token, and so emit a ReceiverPaid naming this nonce).
    const splitHere = reader
      .paidIn(r)
      .some(
        (p) =>
          p.args.nonce.toLowerCase() === q.nonce.toLowerCase() &&
          isAddressEqual(p.args.recipient, q.recipient) &&
          isAddressEqual(p.args.token, token) &&
          isAddressEqual(p.args.payer, payer),
      );
    return { payer, value: moved.value, splitHere };
  }
}
