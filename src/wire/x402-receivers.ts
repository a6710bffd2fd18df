import { z } from "zod";
import { Address, Amount, AmountUnits, BlockNumber, Bytes32, ChainId, Hash } from "./primitives.js";
import { VerifyCode } from "./payments.js";

/** POST /v1/x402/receivers: the merchant's receiver, its static x402 `payTo`. */
export const X402ReceiverRequest = z.strictObject({ recipient: Address.describe("the merchant account that receives amount - fee") });
export type X402ReceiverRequest = z.infer<typeof X402ReceiverRequest>;

export const X402ReceiverResponse = z.strictObject({
  pay_to: Address.describe(
    "the recipient's receiver on this deployment's chain: write it as the static payTo of every x402 route. CREATE2 of X402Receivers, the same for every call (the client package derives it offline); whatever it holds leaves only split, the fee to the fee collector and the rest to the recipient",
  ),
  recipient: Address,
  token: Address.describe("the token x402 routes ask for (the route's asset): USDC"),
  network: z.string().describe("the x402 network of the receiver, eip155:<chain id>"),
  fee_bps: z.number().int().describe("the fee in basis points taken from every payment to the receiver"),
});
export type X402ReceiverResponse = z.infer<typeof X402ReceiverResponse>;

/** POST /v1/x402/verify-settlement: the final verdict of an x402 settlement to a receiver. */
export const X402SettlementVerdictRequest = z.strictObject({
  tx_hash: Bytes32.describe("the transaction x402's settle answered (PAYMENT-RESPONSE's transaction)"),
  nonce: Bytes32.describe("the EIP-3009 nonce the agent signed (the payment payload's authorization.nonce)"),
  recipient: Address.describe("the merchant's recipient: the receiver is derived from it"),
});
export type X402SettlementVerdictRequest = z.infer<typeof X402SettlementVerdictRequest>;

export const X402SettlementVerdictResponse = z.union([
  z.strictObject({
    valid: z.literal(true),
    tx_hash: Hash,
    nonce: Hash,
    payer: Address.describe("the authorization's signer (the agent)"),
    pay_to: Address,
    amount: Amount,
    amount_units: AmountUnits,
    chain_id: ChainId,
    block_number: BlockNumber,
    block_hash: Hash,
  }),
  z.strictObject({ valid: z.literal(false), code: VerifyCode }),
]);
export type X402SettlementVerdictResponse = z.infer<typeof X402SettlementVerdictResponse>;
