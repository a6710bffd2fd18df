import { erc20Abi, type Address } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import type { Intent } from "./intent.js";
import { recoverPayment } from "./recover.js";
import { SplitterReader } from "../chain/contracts/splitter.js";
import { paymentKeyOf, PRECONFIRMED, type PaymentChain, type PaymentVerdict } from "./verify.js";

/**
 * The verdict on a buyer's transfer into the intent's payment address: the settlement's (found through
 * the Splitter's guard, as recover finds it), so PAYMENT_CONFIRMING until the settlement is mined and
 * final, then `valid: true` naming the settlement's transaction. Before any settlement, confirming
 * while the address holds the amount (the service settles it), PAYMENT_MISMATCH while it holds less
 * (a short deposit pays nothing until a top-up makes it whole). Where preconfirmations are read, a
 * settlement preconfirmed and not yet sealed answers PAYMENT_CONFIRMING marked `preconfirmed`.
 */
export async function depositVerdict(chain: PaymentChain, intent: Intent, depositAddress: Address): Promise<PaymentVerdict> {
  const settlement = await recoverPayment(chain, intent);
  if (settlement.found && settlement.valid) {
    const { as_of_block: _asOf, found: _found, ...valid } = settlement;
    return valid;
  }
  if (settlement.found) return { valid: false, code: settlement.code };
  // Where preconfirmations are read: a settlement preconfirmed in the block being built, and a
  // deposit preconfirmed there (its transfer's receipt is served before its block is sealed, so the
  // balance is read on that state too, or a deposit on its way would read as short).
  const pending = chain.preconfirmations ? ({ blockTag: "pending" } as const) : {};
  if (chain.preconfirmations) {
    const settledIn = await SplitterReader.of(chain).settledBlock(paymentKeyOf(chain.deployment.token.address, intent), "pending");
    if (settledIn !== 0n) return PRECONFIRMED;
  }
  const balance = await rpc(() =>
    chain.client.readContract({ address: chain.deployment.token.address, abi: erc20Abi, functionName: "balanceOf", args: [depositAddress], ...pending }),
  );
  return { valid: false, code: balance >= intent.amountUnits ? "PAYMENT_CONFIRMING" : "PAYMENT_MISMATCH" };
}
