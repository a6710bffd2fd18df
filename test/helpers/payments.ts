import type { Address, Hex, TransactionReceipt } from "viem";
import type { HDAccount } from "viem/accounts";
import { splitterAbi } from "../../src/generated/contracts.js";
import type { LocalChain } from "../../dev/localchain/harness.js";
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
