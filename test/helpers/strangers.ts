import { encodeFunctionData, erc20Abi, maxUint256, type Address, type Hex } from "viem";
import { MULTICALL3_ADDRESS } from "../../dev/localchain/multicall3.js";
import type { LocalChain } from "../../dev/localchain/harness.js";

const AGGREGATE3_ABI = [
  {
    type: "function",
    name: "aggregate3",
    stateMutability: "payable",
    inputs: [
      {
        name: "calls",
        type: "tuple[]",
        components: [
          { name: "target", type: "address" },
          { name: "allowFailure", type: "bool" },
          { name: "callData", type: "bytes" },
        ],
      },
    ],
    outputs: [
      {
        name: "returnData",
        type: "tuple[]",
        components: [
          { name: "success", type: "bool" },
          { name: "returnData", type: "bytes" },
        ],
      },
    ],
  },
] as const;

/** A fresh address (a stranger's), from a counter: deterministic. */
export function strangerAddress(n: number): Address {
  return `0x${(0x5700000000n * 2n ** 120n + BigInt(n)).toString(16).padStart(40, "0")}` as Address;
}

/**
 * Strangers' USDC transfers, many in one transaction (one log each): account `index` approves
 * Multicall3 once, then each call of {@link send} sends `count` transfers of 1 unit to fresh
 * addresses through one `aggregate3` of `transferFrom`s, so a block can carry hundreds of them.
 */
export async function strangers(chain: LocalChain, index: number) {
  const account = chain.accounts[index]!;
  const wallet = chain.wallet(account);
  const token = chain.deployment.token.address;
  let next = index * 1_000_000;
  let nonce = await chain.publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
  const approve = await wallet.sendTransaction({
    account,
    chain: chain.chain,
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [MULTICALL3_ADDRESS, maxUint256] }),
    nonce: nonce++,
    gas: 100_000n,
  });
  return {
    approve,
    /** Sends `count` transfers in one transaction (into the pool: the caller mines); resolves with its hash. */
    async send(count: number): Promise<Hex> {
      const calls = Array.from({ length: count }, () => ({
        target: token,
        allowFailure: false,
        callData: encodeFunctionData({ abi: erc20Abi, functionName: "transferFrom", args: [account.address, strangerAddress(next++), 1n] }),
      }));
      return wallet.sendTransaction({
        account,
        chain: chain.chain,
        to: MULTICALL3_ADDRESS,
        data: encodeFunctionData({ abi: AGGREGATE3_ABI, functionName: "aggregate3", args: [calls] }),
        nonce: nonce++,
        gas: 60_000n + 40_000n * BigInt(count),
      });
    },
  };
}
