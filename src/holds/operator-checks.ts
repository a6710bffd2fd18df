import { isAddressEqual, zeroAddress, type Address } from "viem";
import { DomainError } from "../errors.js";
import type { SettlementSender } from "../payments/relayer-call.js";
import type { HoldOperation } from "../store/hold-transactions.js";
import { opens } from "./hold-rules.js";
import type { PaymentInfo } from "./payment-info.js";

/**
 * The operator's refusals that need no read: which of the relayer's keys may send a call for a hold,
 * whether the hold's signed fee is one this service takes, and how a call over its gas ceiling is
 * answered. Each decides before anything is simulated or signed.
 */

/**
 * The key that sends a call for a hold naming `operator`: this relayer's; for a capture or void, also
 * a retired one (the open holds made before a rotation). New holds and payments are this relayer's only.
 */
export function senderFor(
  operator: Address,
  operation: HoldOperation,
  sender: SettlementSender,
  retired: readonly SettlementSender[] = [],
): SettlementSender | null {
  const keys = opens(operation) ? [sender] : [sender, ...retired];
  return keys.find((s) => s.address !== null && isAddressEqual(s.address, operator)) ?? null;
}

/**
 * A new payment (authorize, charge) is signed at the deployment's fee to its fee collector; a hold's
 * later calls take the fee its buyer signed (min = max, as every hold this service makes), which a
 * change of `fee_bps` since does not touch. Throws INVALID_HOLD otherwise.
 */
export function checkSignedFee(info: PaymentInfo, operation: HoldOperation, feeBps: number, feeReceiver: Address): void {
  const signed = opens(operation)
    ? info.minFeeBps === feeBps && info.maxFeeBps === feeBps && isAddressEqual(info.feeReceiver, feeReceiver)
    : info.minFeeBps === info.maxFeeBps && (info.maxFeeBps === 0 || !isAddressEqual(info.feeReceiver, zeroAddress));
  if (!signed) throw new DomainError("INVALID_HOLD", { detail: "the hold's signed fee is not one this service takes" });
}

/** A call whose simulation needs more than its ceiling: an opening one's excess is the payer's signature check; a closing one's, the escrow's. */
export function overCeiling(operation: HoldOperation, gas: bigint): DomainError {
  return opens(operation)
    ? new DomainError("SIGNATURE_VALIDATION_TOO_EXPENSIVE", { detail: `the ${operation} would use more than ${gas} gas (the payer's signature check)` })
    : new DomainError("ESCROW_REFUSED", { detail: `the ${operation} would use more than ${gas} gas` });
}
