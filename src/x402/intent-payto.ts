import { encodeFunctionData, type Address, type Hex, type TransactionReceipt } from "viem";
import { splitterAbi } from "../generated/contracts.js";
import { SplitterReader } from "../chain/contracts/splitter.js";
import { paymentKeyOf, type PaymentChain } from "../payments/verify.js";
import type { DepositSettler } from "../payments/deposit-settler.js";
import type { DepositWatch } from "../store/deposit-watches.js";
import { AUTHORIZATION_LOOKBACK, authorizationPaidIn, findAuthorizationPayment, type AuthorizationPayment } from "./proof.js";
import type { Authorized, PayToTarget } from "./target.js";

export interface IntentPayToDeps {
  chain: PaymentChain;
  watches: { find(depositAddress: Address): Promise<DepositWatch | null> };
  settlements: Pick<DepositSettler, "priceSettlement" | "sendSettlement">;
}

/**
 * A per-intent `payTo`: a payment address (one per payment, CREATE2 of the Splitter). Its settlement
 * is `Splitter.settleDepositFromAuthorization`, sent as the address's recorded settlement by the
 * deposit settler; the Splitter's guard (`settledBlock`) settles it once.
 */
export async function intentPayTo(deps: IntentPayToDeps, watch: DepositWatch, a: Authorized): Promise<PayToTarget> {
  const { chain } = deps;
  const splitter = SplitterReader.of(chain);
  const key = paymentKeyOf(chain.deployment.token.address, watch);
  const settledBlock = await splitter.settledBlock(key);
  const payment: AuthorizationPayment = {
    token: chain.deployment.token.address,
    payer: a.payer,
    nonce: a.authorization.nonce as Hex,
    to: watch.depositAddress,
    amount: watch.amountUnits,
  };
  const call = encodeFunctionData({
    abi: splitterAbi,
    functionName: "settleDepositFromAuthorization",
    args: [
      chain.deployment.token.address,
      watch.recipient,
      watch.amountUnits,
      watch.reference,
      a.payer,
      BigInt(a.authorization.validAfter),
      BigInt(a.authorization.validBefore),
      a.authorization.nonce as Hex,
      a.signature,
    ],
  });
  return {
    kind: "intent",
    subject: watch.depositAddress.toLowerCase(),
    payTo: watch.depositAddress,
    amount: watch.amountUnits,
    extraGas: 0n,
    settledAlready: settledBlock !== 0n,
    price: () => deps.settlements.priceSettlement(call),
    send: (maxGas) => deps.settlements.sendSettlement(watch.depositAddress, call, maxGas),
    takenHash: async () => (await deps.watches.find(watch.depositAddress))?.txHash ?? undefined,
    // A copy of this very call from the mempool settles the payment first and ours reverts: not the payer's doing.
    revertedOnItsOwn: async () => (await splitter.settledBlock(key)) === 0n,
    settledIn: (receipt: TransactionReceipt) => receipt.status === "success" && splitter.paidIn(receipt).some((p) => p.args.paymentKey === key),
    paidByOwn: (receipt: TransactionReceipt) => splitter.paidIn(receipt).some((p) => p.args.paymentKey === key) && authorizationPaidIn(receipt, payment),
    paidBy: async () => {
      const settled = await splitter.settledBlock(key);
      if (settled === 0n) return "unsettled";
      // This authorization moved the amount to the address at or before the settlement (x402 settles seconds after signing).
      const from = settled > AUTHORIZATION_LOOKBACK ? settled - AUTHORIZATION_LOOKBACK : 0n;
      if (!(await findAuthorizationPayment(chain.client, payment, from, settled))) return "not by this authorization";
      const [paid] = await splitter.paidLogs(key, settled);
      return paid ? paid.transactionHash : "unsettled";
    },
  };
}
