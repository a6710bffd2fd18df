import type { Hex } from "viem";

/**
 * Base since its Denim upgrade (Base Sepolia 2026-10-21, Base 2026-11-05, 18:00 UTC; docs.base.org
 * "Denim" overview and "200ms native blocks"; Chainstack "Base Denim: 200 ms blocks"): a canonical
 * block every 200 ms, whole-second `timestamp`s shared by about five blocks, the milliseconds in RPC
 * answers (`timestampMs`, `blockTimestampMs`) and at the BaseTime predeploy, no Flashblocks.
 */
export const DENIM_BLOCK_MS = 200;

/**
 * Base's gas per 2 s block before Denim: about 400M (issue 43; Base raised its limit step by step
 * through base/contract-deployments' `increase-gas-limit` tasks in 2025–2026).
 */
export const BASE_GAS_PER_2S_BLOCK_BEFORE_DENIM = 400_000_000n;
/** EIP-7825 (Fusaka, on Base since its Fusaka upgrade): no transaction may set a gas limit above 2^24. */
export const TRANSACTION_GAS_CAP = 16_777_216n;

/** Denim divided the gas limit per block by ten: the same gas per second in blocks ten times as frequent. */
export const DENIM_BLOCK_GAS_LIMIT = BASE_GAS_PER_2S_BLOCK_BEFORE_DENIM / 10n;

/**
 * Base's EIP-1559 elasticity: 6 (docs.base.org "Network Fees", EIP-1559 fee parameters; the
 * `increase-gas-and-elasticity-limit` tasks of base/contract-deployments).
 */
export const BASE_EIP1559_ELASTICITY = 6n;
/** Base's EIP-1559 denominator before Denim: 125 (base/contract-deployments `mainnet/2026-02-03-eip1559-denominator-increase`). */
export const BASE_EIP1559_DENOMINATOR_BEFORE_DENIM = 125n;
/** Denim multiplied the denominator by ten: per second the base fee moves as much as before, a little each block. */
export const DENIM_EIP1559_DENOMINATOR = BASE_EIP1559_DENOMINATOR_BEFORE_DENIM * 10n;

/**
 * Base's minimum base fee: 2,000,000 wei (0.002 gwei; docs.base.org "Network Fees", since Jovian). An
 * idle chain's fee falls to it and stays there.
 */
export const BASE_MIN_BASE_FEE = 2_000_000n;

/** BaseTime, the predeploy whose `timestampMs()` answers the current block's full millisecond timestamp. */
export const BASE_TIME_ADDRESS: Hex = "0x4200000000000000000000000000000000000030";
/**
 * What the local chain places at BaseTime: storage slot 0 returned as one word to any call (PUSH1 0
 * SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN), so `timestampMs()` answers it. The node writes each
 * block's milliseconds into slot 0 just before mining the block (Base's BaseTime deposit does it as
 * the block's second transaction).
 */
export const BASE_TIME_RUNTIME: Hex = "0x60005460005260206000f3";

/**
 * The next block's base fee by EIP-1559 with Denim's parameters (OP Stack's rule: the target is the
 * gas limit divided by the elasticity; a block above it raises the fee by at least 1 wei; never below
 * Base's minimum).
 */
export function nextBaseFee(
  parent: { baseFeePerGas: bigint; gasUsed: bigint; gasLimit: bigint },
  parameters: { denominator: bigint; elasticity: bigint; minimum: bigint } = {
    denominator: DENIM_EIP1559_DENOMINATOR,
    elasticity: BASE_EIP1559_ELASTICITY,
    minimum: BASE_MIN_BASE_FEE,
  },
): bigint {
  const target = parent.gasLimit / parameters.elasticity;
  let next = parent.baseFeePerGas;
  if (target > 0n && parent.gasUsed > target) {
    const delta = (parent.baseFeePerGas * (parent.gasUsed - target)) / target / parameters.denominator;
    next = parent.baseFeePerGas + (delta > 0n ? delta : 1n);
  } else if (target > 0n && parent.gasUsed < target) {
    next = parent.baseFeePerGas - (parent.baseFeePerGas * (target - parent.gasUsed)) / target / parameters.denominator;
  }
  return next > parameters.minimum ? next : parameters.minimum;
}
