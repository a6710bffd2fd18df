import { toHex, type Hex, type TransactionReceipt } from "viem";
import type { Agreed } from "../chain/agreement.js";
import { payerAgnosticHash } from "../holds/payment-info.js";
import { mintHold } from "../holds/terms.js";
import { holdsEscrowSet, type LiveDeployment } from "../deployments.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { X402SettledHold } from "../wire/index.js";
import type { AuthCaptureTerms } from "./auth-capture-terms.js";

/**
 * The hold an `auth-capture` settle authorized, as the holds API knows it: the merchant's `ho`
 * capability minted for the terms the agent signed (its recipient, amount, deadlines and salt; the
 * block of the authorization as a majority of the nodes hold its receipt, from which its events are
 * read: the type takes nothing else), so /v1/holds/capture, /void, /refund
 * and /state take it like any hold's. Nothing is stored: the capability carries the terms. The
 * buyer's `hc` is not handed out: the agent paid through x402, and a reclaim past the capture
 * deadline is its own transaction.
 */
export function x402Hold(tokens: CapabilityTokens, deployment: LiveDeployment) {
  return (terms: AuthCaptureTerms, authorized: Agreed<Pick<TransactionReceipt, "blockNumber">>): X402SettledHold => {
    const { info } = terms;
    const { hold } = mintHold(tokens, {
      recipient: info.receiver,
      amountUnits: info.maxAmount,
      authorizeBefore: info.preApprovalExpiry,
      captureBefore: info.authorizationExpiry,
      refundBefore: info.refundExpiry,
      salt: toHex(info.salt, { size: 32 }),
      fromBlock: authorized.blockNumber,
      operator: info.operator,
      feeBps: info.maxFeeBps,
      feeReceiver: info.feeReceiver,
    });
    return {
      payment_hash: terms.paymentHash,
      hold_id: payerAgnosticHash(info, deployment.chainId, holdsEscrowSet(deployment)!.escrow) as Hex,
      hold,
      capture_before: info.authorizationExpiry,
      refund_before: info.refundExpiry,
    };
  };
}
