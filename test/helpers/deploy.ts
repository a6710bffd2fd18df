import { getAddress, type Abi, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { creationBytecode } from "../../dev/deploy/artifacts.js";
import type { LocalChain } from "../../dev/localchain/harness.js";

/** Deploys a test-only contract (contracts/test/) from `from` and returns its address. */
export async function deployTestContract(
  chain: LocalChain,
  from: HDAccount,
  abi: Abi,
  name: string,
  source: string,
  args: readonly unknown[] = [],
): Promise<Address> {
  const hash: Hex = await chain.wallet(from).deployContract({
    abi,
    bytecode: creationBytecode(name, `test/${source}`),
    args,
    account: from,
    chain: chain.chain,
  } as never);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error(`${name} deployment failed`);
  return getAddress(receipt.contractAddress);
}
