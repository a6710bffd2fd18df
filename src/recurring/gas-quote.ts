import type { PublicClient } from "viem";

/** How gas (paid in ETH) is priced in the token, and what tip the relayer offers. */
export interface GasPricing {
  /** Token micro-units per 1 ETH. */
  unitsPerEth: bigint;
  /** The relayer's priority fee, in wei per gas. */
  tipWei: bigint;
}

export interface FeeQuote {
  /** What a gas unit is expected to cost: next base fee + tip. */
  expectedPerGas: bigint;
  /** The cap sent with the transaction: twice the next base fee + tip. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The next block's base fee (eth_feeHistory) and the relayer's tip. Throws when the node cannot say. */
export async function quoteFees(client: PublicClient, pricing: GasPricing): Promise<FeeQuote> {
  const history = await client.getFeeHistory({ blockCount: 1, rewardPercentiles: [] });
  const nextBaseFee = history.baseFeePerGas.at(-1);
  if (nextBaseFee === undefined) throw new Error("no base fee in eth_feeHistory");
  return { expectedPerGas: nextBaseFee + pricing.tipWei, maxFeePerGas: 2n * nextBaseFee + pricing.tipWei, maxPriorityFeePerGas: pricing.tipWei };
}

/** The token units `gas` costs at `feePerGas` wei, rounded up. */
export function gasQuoteUnits(gas: bigint, feePerGas: bigint, pricing: GasPricing): bigint {
  return weiToUnits(gas * feePerGas, pricing);
}

/**
 * The token units a transaction costs on an OP-stack chain: its L2 gas at `feePerGas` plus its L1
 * data fee (`l1FeeWei`, see chain/l1-fee.ts), both converted at the same price, rounded up once.
 */
export function transactionCostUnits(gas: bigint, feePerGas: bigint, l1FeeWei: bigint, pricing: GasPricing): bigint {
  return weiToUnits(gas * feePerGas + l1FeeWei, pricing);
}

/** Token units for `wei` at the configured ETH price, rounded up. */
export function weiToUnits(wei: bigint, pricing: GasPricing): bigint {
  const scaled = wei * pricing.unitsPerEth;
  const ONE_ETH = 10n ** 18n;
  return scaled / ONE_ETH + (scaled % ONE_ETH === 0n ? 0n : 1n);
}

/**
 * The gas reimbursement a charge adds: what its gas costs beyond the fixed network fee, which
 * covers ordinary gas. Zero when the network fee covers it.
 */
export function reimbursementFor(quoteUnits: bigint, networkFeeUnits: bigint): bigint {
  return quoteUnits > networkFeeUnits ? quoteUnits - networkFeeUnits : 0n;
}
