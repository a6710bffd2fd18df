/** How gas (paid in ETH) is priced in the token: micro-units of the token per 1 ETH. */
export interface GasPricing {
  unitsPerEth: bigint;
}

/** The token units `gas` costs at `feePerGas` wei, rounded up. */
export function gasQuoteUnits(gas: bigint, feePerGas: bigint, pricing: GasPricing): bigint {
  const wei = gas * feePerGas * pricing.unitsPerEth;
  const ONE_ETH = 10n ** 18n;
  return wei / ONE_ETH + (wei % ONE_ETH === 0n ? 0n : 1n);
}

/**
 * The gas reimbursement a charge adds: what its gas costs beyond the fixed network fee, which
 * covers ordinary gas. Zero when the network fee covers it.
 */
export function reimbursementFor(quoteUnits: bigint, networkFeeUnits: bigint): bigint {
  return quoteUnits > networkFeeUnits ? quoteUnits - networkFeeUnits : 0n;
}
