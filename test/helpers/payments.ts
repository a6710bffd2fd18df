import { erc20Abi, parseEther, type Address, type Hex, type TransactionReceipt } from "viem";
import type { HDAccount } from "viem/accounts";
import { splitterAbi } from "../../src/generated/contracts.js";
import { localAccount, type LocalChain } from "../../dev/localchain/harness.js";
import { approve, send } from "./tx.js";

export interface PayBlock {
  chain_id: number;
  splitter: Address;
  token: Address;
  recipient: Address;
  amount_units: string;
  reference: Hex;
  deposit_address?: Address;
}

/** Pays a create-payment `pay` block through the Splitter (approve + pay), with optional changes. */
export async function payIntent(
  chain: LocalChain,
  buyer: HDAccount,
  pay: PayBlock,
  changes: Partial<{ recipient: Address; amount: bigint; token: Address; reference: Hex }> = {},
): Promise<TransactionReceipt> {
  const amount = changes.amount ?? BigInt(pay.amount_units);
  const token = changes.token ?? pay.token;
  await approve(chain, buyer, token, pay.splitter, amount);
  return send(chain, buyer, {
    address: pay.splitter,
    abi: splitterAbi,
    functionName: "pay",
    args: [token, changes.recipient ?? pay.recipient, amount, changes.reference ?? pay.reference],
  });
}

/**
 * Plain transfers from fresh EOAs (an exchange's hot wallets): each call takes the next local account
 * from `firstIndex`, gives it gas money and `units` of `token` from `funder`, and sends them to `to`.
 */
export function exchangeWithdrawals(chain: () => LocalChain, funder: () => HDAccount, token: () => Address, firstIndex: number) {
  let index = firstIndex;
  return async (to: Address, units: bigint): Promise<{ exchange: HDAccount; receipt: TransactionReceipt }> => {
    const exchange = localAccount(index++);
    await chain().testClient.setBalance({ address: exchange.address, value: parseEther("1") });
    await send(chain(), funder(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [exchange.address, units] });
    return { exchange, receipt: await send(chain(), exchange, { address: token(), abi: erc20Abi, functionName: "transfer", args: [to, units] }) };
  };
}
