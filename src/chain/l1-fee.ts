import {
  BaseError,
  ContractFunctionZeroDataError,
  hexToBytes,
  parseAbi,
  parseGwei,
  serializeTransaction,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { estimateL1Fee } from "viem/op-stack";
import { flzCompressedLength } from "./fastlz.js";

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

/** The GasPriceOracle predeploy's reads an L1 data fee is computed from (contracts-bedrock `GasPriceOracle.sol`). */
const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F" as const;
const oracleAbi = parseAbi([
  "function isFjord() view returns (bool)",
  "function l1BaseFee() view returns (uint256)",
  "function blobBaseFee() view returns (uint256)",
  "function baseFeeScalar() view returns (uint32)",
  "function blobBaseFeeScalar() view returns (uint32)",
]);

/** What a Fjord GasPriceOracle prices the L1 data fee with, as it holds them now. */
export interface L1FeePrices {
  l1BaseFee: bigint;
  blobBaseFee: bigint;
  baseFeeScalar: bigint;
  blobBaseFeeScalar: bigint;
}

/**
 * The GasPriceOracle's prices, read in one round trip (five views in one JSON-RPC batch), or null
 * when the chain has no Fjord oracle (not an OP-stack chain, or an older one): then quote with
 * `quoteL1Fee`, the oracle's own answer.
 */
export async function readL1FeePrices(client: PublicClient): Promise<L1FeePrices | null> {
  const read = <F extends "isFjord" | "l1BaseFee" | "blobBaseFee" | "baseFeeScalar" | "blobBaseFeeScalar">(functionName: F) =>
    client.readContract({ address: GAS_PRICE_ORACLE, abi: oracleAbi, functionName });
  const [fjord, l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar] = await Promise.allSettled([
    read("isFjord"),
    read("l1BaseFee"),
    read("blobBaseFee"),
    read("baseFeeScalar"),
    read("blobBaseFeeScalar"),
  ]);
  if (fjord.status === "rejected" || fjord.value !== true) return null;
  for (const r of [l1BaseFee, blobBaseFee, baseFeeScalar, blobBaseFeeScalar]) if (r.status === "rejected") throw r.reason;
  const value = (r: PromiseSettledResult<bigint | number>) => BigInt((r as PromiseFulfilledResult<bigint | number>).value);
  return { l1BaseFee: value(l1BaseFee), blobBaseFee: value(blobBaseFee), baseFeeScalar: value(baseFeeScalar), blobBaseFeeScalar: value(blobBaseFeeScalar) };
}

/**
 * The Fjord GasPriceOracle's `getL1Fee(data)`, computed here: the FastLZ size of the data plus 68,
 * through the oracle's linear estimate of its Brotli size (at least 100 bytes), at the L1 prices.
 */
export function fjordL1Fee(prices: L1FeePrices, data: Uint8Array): bigint {
  const fastLzSize = BigInt(flzCompressedLength(data) + 68);
  const regression = -42_585_600n + 836_500n * fastLzSize;
  const estimatedSize = regression < 100_000_000n ? 100_000_000n : regression;
  const feeScaled = prices.baseFeeScalar * 16n * prices.l1BaseFee + prices.blobBaseFeeScalar * prices.blobBaseFee;
  return (estimatedSize * feeScaled) / 1_000_000_000_000n;
}

/**
 * `quoteL1Fee` without the round trip: the same unsigned transaction viem's `estimateL1Fee` hands the
 * oracle (its stub gas, fees and nonce), priced by `fjordL1Fee` at `prices`. The oracle compresses
 * the transaction in the EVM for each quote, which for a batch of renewals costs the node more than
 * simulating every renewal in it.
 */
export function quoteL1FeeAt(prices: L1FeePrices, chainId: number, call: { to: Address; data: Hex }): bigint {
  const transaction = serializeTransaction({
    chainId,
    type: "eip1559",
    to: call.to,
    data: call.data,
    gas: 300_000n,
    maxFeePerGas: parseGwei("5"),
    maxPriorityFeePerGas: parseGwei("1"),
    nonce: 1,
  });
  return fjordL1Fee(prices, hexToBytes(transaction));
}
