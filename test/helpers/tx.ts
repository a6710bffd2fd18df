import { assert } from "chai";
import { erc20Abi, type Abi, type Address, type ContractFunctionArgs, type ContractFunctionName, type TransactionReceipt } from "viem";
import type { HDAccount } from "viem/accounts";
import type { LocalChain } from "../../dev/localchain/harness.js";

/** Sends a contract write from `from`, waits for the receipt and asserts it succeeded. */
export async function send<const abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
  chain: LocalChain,
  from: HDAccount,
  call: { address: Address; abi: abi; functionName: name; args: ContractFunctionArgs<abi, "nonpayable" | "payable", name> },
): Promise<TransactionReceipt> {
  const hash = await chain.wallet(from).writeContract({ ...call, account: from, chain: chain.chain } as never);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success", `${String(call.functionName)} reverted`);
  return receipt;
}

export function balanceOf(chain: LocalChain, token: Address, account: Address): Promise<bigint> {
  return chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account] });
}

export async function approve(chain: LocalChain, from: HDAccount, token: Address, spender: Address, amount: bigint): Promise<void> {
  await send(chain, from, { address: token, abi: erc20Abi, functionName: "approve", args: [spender, amount] });
}

/** A deterministic pseudo-random generator (mulberry32), for property-style tests that replay exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
