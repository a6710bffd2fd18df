import { erc20Abi, type Address } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import type { Intent } from "./intent.js";
import { recoverPayment } from "./recover.js";
import { PAID_EVENT } from "../chain/contracts/splitter.js";
import { isPreconfirmed } from "../chain/preconfirmations.js";
import { readReceipt } from "../chain/transactions.js";
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
  const settlement = await recoverPayment(chain, intent, depositAddress);
  if (settlement.found && settlement.valid) {
    const { as_of_block: _asOf, found: _found, ...valid } = settlement;
    return valid;
  }
  if (settlement.found) return { valid: false, code: settlement.code };
  // Where preconfirmations are read: a settlement preconfirmed in the block being built, and a
  // deposit preconfirmed there (its transfer's receipt is served before its block is sealed, so the
  // balance is read on that state too, or a deposit on its way would read as short).
  const pending = chain.preconfirmations ? ({ blockTag: "pending" } as const) : {};
  if (chain.preconfirmations && (await settlementPreconfirmed(chain, intent))) return PRECONFIRMED;
  const balance = await rpc(() =>
    chain.client.readContract({ address: chain.deployment.token.address, abi: erc20Abi, functionName: "balanceOf", args: [depositAddress], ...pending }),
  );
  return { valid: false, code: balance >= intent.amountUnits ? "PAYMENT_CONFIRMING" : "PAYMENT_MISMATCH" };
}

/**
 * Whether the intent's settlement is preconfirmed: a `Paid` of its key in the pending block (one
 * `eth_getLogs` from `pending` to `pending`) whose transaction's receipt the node serves, for a block
 * above the latest sealed one. A node without Flashblocks may answer `pending` with its pool run on
 * top of the latest block: a settlement merely waiting there has no receipt, and is not preconfirmed.
 */
async function settlementPreconfirmed(chain: PaymentChain, intent: Intent): Promise<boolean> {
  const key = paymentKeyOf(chain.deployment.token.address, intent);
  const [paid] = await rpc(() =>
    chain.client.getLogs({
      address: chain.deployment.contracts.Splitter.address,
      event: PAID_EVENT,
      args: { paymentKey: key },
      fromBlock: "pending",
      toBlock: "pending",
      strict: true,
    }),
  );
  if (!paid?.transactionHash) return false;
  const receipt = await readReceipt(chain.client, paid.transactionHash);
  return receipt !== null && receipt.status === "success" && (await isPreconfirmed(chain.client, receipt));
}
