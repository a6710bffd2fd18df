import { getContractAddress, concat, type Address, type Hex, type PublicClient, type WalletClient, type Account, type Chain } from "viem";

/**
 * Predicts the address the canonical CREATE2 deployer (Arachnid's "deterministic deployment proxy")
 * gives `initCode` under `salt`. The deployer takes calldata `salt ++ initCode`.
 */
export function create2Address(deployer: Address, salt: Hex, initCode: Hex): Address {
  return getContractAddress({ opcode: "CREATE2", from: deployer, salt, bytecode: initCode });
}

export interface Create2Result {
  address: Address;
  /** The deploying transaction, or null when code was already there. */
  txHash: Hex | null;
  /** The deploying transaction's block, or null when code was already there. */
  blockNumber: bigint | null;
}

/** Deploys `initCode` through the CREATE2 deployer unless the address already has code. */
export async function deployCreate2(
  clients: { public: PublicClient; wallet: WalletClient },
  account: Account | Address,
  chain: Chain,
  deployer: Address,
  salt: Hex,
  initCode: Hex,
): Promise<Create2Result> {
  const address = create2Address(deployer, salt, initCode);
  const existing = await clients.public.getCode({ address });
  if (existing && existing !== "0x") return { address, txHash: null, blockNumber: null };
  const deployerCode = await clients.public.getCode({ address: deployer });
  if (!deployerCode || deployerCode === "0x") throw new Error(`no CREATE2 deployer at ${deployer} on this chain`);
  const txHash = await clients.wallet.sendTransaction({ account, chain, to: deployer, data: concat([salt, initCode]) });
  const receipt = await clients.public.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== "success") throw new Error(`CREATE2 deployment reverted in ${txHash}`);
  const code = await clients.public.getCode({ address });
  if (!code || code === "0x") throw new Error(`CREATE2 deployment left no code at ${address} (tx ${txHash})`);
  return { address, txHash, blockNumber: receipt.blockNumber };
}
