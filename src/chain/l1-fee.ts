import { BaseError, ContractFunctionZeroDataError, type Address, type Hex, type PublicClient } from "viem";
import { estimateL1Fee } from "viem/op-stack";

/**
 * The L1 data fee, in wei, an OP-stack chain (Base) charges on top of the L2 gas for a transaction
 * calling `to` with `data`: the GasPriceOracle predeploy's `getL1Fee` of the unsigned transaction
 * (viem's op-stack `estimateL1Fee`, which fills the few stub bytes a signature, gas and fees take),
 * at the L1 prices the chain holds now. A chain without a GasPriceOracle (not an OP-stack chain)
 * charges no L1 fee: 0. Any other failure throws (the caller has no quote).
 */
export async function quoteL1Fee(client: PublicClient, call: { to: Address; data: Hex }): Promise<bigint> {
  try {
    return await estimateL1Fee(client, { chain: client.chain, to: call.to, data: call.data } as Parameters<typeof estimateL1Fee>[1]);
  } catch (error) {
    if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionZeroDataError)) return 0n;
    throw error;
  }
}

/**
 * The L1 fee with the same headroom the L2 part gets (its gas is quoted at 1.2× the estimate): the
 * stub bytes `estimateL1Fee` prices differ from the signed transaction by a byte or two, and the L1
 * base fee can move (at most 12.5% per L1 block) before the transaction is mined.
 */
export function l1FeeWithMargin(l1FeeWei: bigint): bigint {
  return (l1FeeWei * 12n) / 10n;
}
