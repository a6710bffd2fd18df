import { erc20Abi, type Address } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import type { Intent } from "./intent.js";
import { recoverPayment } from "./recover.js";
import type { PaymentChain, PaymentVerdict } from "./verify.js";

/**
 * The verdict on a buyer's transfer into the intent's payment address: the settlement's (found through
 * the Splitter's guard, as recover finds it), so PAYMENT_CONFIRMING until the settlement is mined and
 * final, then `valid: true` naming the settlement's transaction. Before any settlement, confirming
 * while the address holds the amount (the service settles it), PAYMENT_MISMATCH while it holds less
 * (a short deposit pays nothing until a top-up makes it whole).
 */
export async function depositVerdict(chain: PaymentChain, intent: Intent, depositAddress: Address): Promise<PaymentVerdict> {
  const settlement = await recoverPayment(chain, intent, depositAddress);
  if (settlement.found && settlement.valid) {
    const { as_of_block: _asOf, found: _found, ...valid } = settlement;
    return valid;
  }
  if (settlement.found) return { valid: false, code: settlement.code };
  const balance = await rpc(() =>
    chain.client.readContract({ address: chain.deployment.token.address, abi: erc20Abi, functionName: "balanceOf", args: [depositAddress] }),
  );
  return { valid: false, code: balance >= intent.amountUnits ? "PAYMENT_CONFIRMING" : "PAYMENT_MISMATCH" };
}
