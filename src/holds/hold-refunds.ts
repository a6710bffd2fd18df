import { encodeFunctionData, erc20Abi, getAddress, parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import { agreeOnReceipt } from "../chain/agreement.js";
import { isReceiptSettled } from "../chain/finality.js";
import { nodesOf } from "../chain/nodes.js";
import { readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import { TOKEN_KINDS, type CapabilityTokens } from "../tokens/capability.js";
import type { RefundHoldResponse } from "../wire/holds.js";
import { holdFigures } from "./hold-state.js";
import type { Holds } from "./holds.js";

export interface HoldRefundsDeps {
  holds: Pick<Holds, "terms" | "payer" | "log">;
  client: PublicClient;
  finality: Finality;
  chainId: number;
  token: Address;
  escrow: Address;
  tokens: CapabilityTokens;
  now: () => number;
  /** How long a refund token lives (the refunds' own). */
  ttlSeconds: number;
  /** Announces a verified refund (webhooks implement it: hold.refunded, once per transaction). */
  events: { refunded(holdId: Hex, refund: { txHash: Hex; amountUnits: bigint; blockNumber: bigint; payer: Address }): Promise<void> };
}

/**
 * POST /v1/holds/refund. A refund after capture is the existing refund, from the merchant's wallet:
 * the service never holds funds, so it uses no operator refund collector. Without `refund_tx_hash`:
 * prepared (the refund page's token and the transfer the recipient's wallet sends to the payer the
 * final authorization names, at most what was captured, before `refund_before`). With it: verified on
 * the receipt a majority of the nodes hold final (the token's transfer from the recipient to that payer,
 * of exactly `amount`, after the authorization), and announced as hold.refunded.
 */
export async function refundHold(deps: HoldRefundsDeps, holdToken: string, amountUnits: bigint, refundTxHash?: Hex): Promise<RefundHoldResponse> {
  const { terms, holdId, info } = deps.holds.terms(holdToken, true);
  const nowSeconds = Math.floor(deps.now() / 1000);
  if (amountUnits <= 0n) throw new DomainError("REFUND_AMOUNT_INVALID");
  const payer = await deps.holds.payer(terms);
  if (!payer) throw new DomainError("HOLD_NOT_AUTHORIZED");
  const log = await deps.holds.log(info(payer));
  // The payer a refund goes to is the one the majority's final authorization names, never one node's word.
  const opened = log.final.find((e) => e.step === "authorized" || e.step === "charged");
  if (!opened?.payer || getAddress(opened.payer) !== payer) throw new DomainError("HOLD_NOT_AUTHORIZED");
  const figures = holdFigures(log.final, terms, nowSeconds);
  if (amountUnits > figures.captured) throw new DomainError("REFUND_AMOUNT_INVALID", { detail: "more than was captured" });
  if (!refundTxHash) {
    if (nowSeconds >= terms.refundBefore) throw new DomainError("HOLD_EXPIRED", { detail: "refund_before passed" });
    const expiresAt = Math.min(nowSeconds + deps.ttlSeconds, terms.refundBefore);
    const refundToken = deps.tokens.mint(TOKEN_KINDS.refund, {
      token: deps.token,
      merchant: terms.recipient,
      payer,
      amount_units: amountUnits.toString(),
      expires_at: expiresAt,
    });
    return {
      status: "PREPARED",
      hold_id: holdId,
      refund_token: refundToken,
      merchant: terms.recipient,
      payer,
      token: deps.token,
      refund_amount: formatAmount(amountUnits),
      refund_amount_units: amountUnits.toString(),
      call: { to: deps.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [payer, amountUnits] }) },
      expires_at: expiresAt,
    };
  }
  const receipt = await readReceipt(deps.client, refundTxHash);
  // Final (at or below the finality head, its block still canonical) on a majority's word: with
  // several nodes each judges it in the door, so the one node read first (its copy shifted, say) holds nothing up.
  const several = (nodesOf(deps.client)?.quorum ?? 1) > 1;
  if (!receipt || (!several && !(await isReceiptSettled(deps.client, deps.finality, receipt)))) {
    throw new DomainError("REFUND_CONFIRMING", { txHash: refundTxHash });
  }
  const agreed = await agreeOnReceipt("hold_refunded", deps.client, deps.finality, receipt);
  if (!agreed) throw new DomainError("REFUND_CONFIRMING", { txHash: refundTxHash });
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: agreed.logs }).filter(
    (l) =>
      getAddress(l.address) === getAddress(deps.token) &&
      getAddress(l.args.from) === getAddress(terms.recipient) &&
      getAddress(l.args.to) === payer &&
      l.args.value === amountUnits,
  );
  const after =
    agreed.status === "success" &&
    (agreed.blockNumber > opened.blockNumber || (agreed.blockNumber === opened.blockNumber && transfers.some((t) => t.logIndex > opened.logIndex)));
  if (transfers.length !== 1 || !after) throw new DomainError("REFUND_TRANSACTION_MISMATCH");
  await deps.events.refunded(holdId, { txHash: agreed.transactionHash, amountUnits, blockNumber: agreed.blockNumber, payer });
  return {
    status: "REFUNDED",
    hold_id: holdId,
    refund_tx_hash: agreed.transactionHash,
    refund_amount_units: amountUnits.toString(),
    block_number: agreed.blockNumber.toString(),
  };
}
