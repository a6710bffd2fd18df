import { concat, encodeFunctionData, keccak256, slice, type Address, type Hex } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import type { Offer } from "./tokens.js";

/**
 * A charge transaction's call for terms not signed yet (resolve's `network_fee_estimate`): the
 * offer's terms, stand-ins for the payer and the EOA signature (65 bytes, as incompressible as a real
 * one: the L1 data fee prices compressed bytes), and the largest reimbursement the terms allow. Its
 * L1 data fee is what a first charge's will be, within a few bytes.
 */
export function typicalChargeCall(contract: Address, token: Address, offer: Offer): { to: Address; data: Hex } {
  const noise = keccak256(offer.salt);
  const payer = slice(keccak256(noise), 12) as Address;
  const signature = concat([noise, keccak256(concat([noise, offer.salt])), "0x1b"]);
  return {
    to: contract,
    data: encodeFunctionData({
      abi: recurringChargesAbi,
      functionName: "charge",
      args: [{ ...offer, payer, token }, signature, offer.maxGasReimbursement, 0n],
    }),
  };
}
