import { SplitterReader } from "../chain/contracts/splitter.js";
import { DomainError } from "../errors.js";
import { finalityHead } from "../chain/finality.js";
import { agreeOnClaim } from "../chain/agreement.js";
import { numberToHex } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import type { Address } from "viem";
import type { Intent } from "./intent.js";
import { judgePaid, paidFact, paymentKeyOf, type PaymentChain } from "./verify.js";
import type { RecoverPaymentResponse } from "../wire/index.js";

export type RecoverResult = RecoverPaymentResponse;

/**
 * Finds the payment of an intent without a transaction hash: the Splitter's replay guard, keyed by
 * the whole payment (token, recipient, amount, reference), says in which block exactly this payment
 * settled (one read), then one log query of that single block, filtered by the same key, gives the
 * transaction. A look-alike payment of the same reference has another key and is never found here.
 * The number of calls does not grow with the chain's length. When the payment address (`depositAddress`)
 * settled more than the amount, its `PaidInExcess` in that block says what moved (a second log query
 * of the same block, sent with the first).
 */
export async function recoverPayment(chain: PaymentChain, intent: Intent, depositAddress: Address): Promise<RecoverResult> {
  const { client, deployment } = chain;
  const splitter = SplitterReader.of(chain);
  const key = paymentKeyOf(deployment.token.address, intent);
  for (let attempt = 0; attempt < 2; attempt++) {
    const latest = await rpc(() => client.getBlockNumber({ cacheTime: 0 }));
    const settledBlock = await splitter.settledBlock(key, latest);
    const asOf = latest.toString();
    if (settledBlock === 0n) return { found: false, code: "PAYMENT_NOT_FOUND", as_of_block: asOf };
    // The payment's Paid (by key) and its address's PaidInExcess (a settlement of more than the
    // amount), both in the one settled block: two small log queries at once.
    const [paidLogs, excess] = await Promise.all([splitter.paidLogs(key, settledBlock), splitter.excessAt(depositAddress, settledBlock)]);
    const log = paidLogs[0];
    if (!log) continue; // the chain moved between the two reads (a reorg): read both again
    const head = await finalityHead(client, chain.finality, latest);
    const excessOf = excess.find((e) => e.transactionHash === log.transactionHash);
    const judge = (paid: typeof log, moved: bigint | undefined) =>
      judgePaid(chain, intent, { ...paidFact(paid, { txHash: paid.transactionHash, blockNumber: paid.blockNumber, blockHash: paid.blockHash }), moved }, head);
    // Every verdict, a refusal as well as valid, only on what a majority of the nodes hold: the same
    // Paid log (and excess), in the same final block, with the guard's settledBlock read there saying
    // that block; the verdict is formed on the claim they agreed on (one node's altered log refuses nothing).
    const held = await agreeOnClaim("recover", client, chain.finality, {
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      status: "success" as const,
      logs: excessOf ? [log, excessOf.log] : [log],
      calls: [{ ...splitter.settledBlockCall(key), result: numberToHex(settledBlock, { size: 32 }) }],
    });
    if (!held) return { found: true, tx_hash: log.transactionHash, valid: false, code: "PAYMENT_CONFIRMING", as_of_block: asOf };
    // Formed again on the logs as the majority holds them (the excess log, when there is one, second).
    const [paid, moved] = held.logs as [typeof log, { args: { moved: bigint } }?];
    const agreedVerdict = judge(paid, moved?.args.moved);
    if (agreedVerdict.valid) return { found: true, ...agreedVerdict, as_of_block: asOf };
    return { found: true, tx_hash: paid.transactionHash, valid: false, code: agreedVerdict.code, as_of_block: asOf };
  }
  throw new DomainError("PAYMENT_RECOVERY_INCONSISTENT", { detail: `settledBlock set but no Paid log for ${intent.reference}` });
}
