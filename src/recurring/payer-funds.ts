import { erc20Abi, type Address, type PublicClient } from "viem";
import { rpc } from "../chain/rpc-errors.js";
import { DomainError } from "../errors.js";

/**
 * INSUFFICIENT_ALLOWANCE unless the payer's allowance to `spender` (RecurringCharges) covers
 * `required`, then INSUFFICIENT_BALANCE unless its balance does: the two reads in one round trip,
 * at the node's latest block. The allowance is asked about first, as the contract checks it first.
 */
export async function checkPayerFunds(client: PublicClient, funds: { token: Address; spender: Address; payer: Address; required: bigint }): Promise<void> {
  const [allowance, balance] = await Promise.allSettled([
    rpc(() => client.readContract({ address: funds.token, abi: erc20Abi, functionName: "allowance", args: [funds.payer, funds.spender] })),
    rpc(() => client.readContract({ address: funds.token, abi: erc20Abi, functionName: "balanceOf", args: [funds.payer] })),
  ]);
  if (settled(allowance) < funds.required) throw new DomainError("INSUFFICIENT_ALLOWANCE");
  if (settled(balance) < funds.required) throw new DomainError("INSUFFICIENT_BALANCE");
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
