import { encodeAbiParameters, keccak256, toHex, zeroAddress, type Address, type Hex } from "viem";
import { receiveAuthorizationTypedData, tokenDomain, type TokenEip712 } from "../chain/token-authorizations.js";

/** A Commerce Payments `PaymentInfo`: the terms of one hold, as the escrow's ABI reads and writes them. */
export interface PaymentInfo {
  operator: Address;
  payer: Address;
  receiver: Address;
  token: Address;
  maxAmount: bigint;
  preApprovalExpiry: number;
  authorizationExpiry: number;
  refundExpiry: number;
  minFeeBps: number;
  maxFeeBps: number;
  feeReceiver: Address;
  salt: bigint;
}

/** The escrow's `PAYMENT_INFO_TYPEHASH`: keccak256 of this type string (IAuthCaptureEscrow.sol). */
const PAYMENT_INFO_TYPE =
  "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)";
export const PAYMENT_INFO_TYPEHASH = keccak256(toHex(PAYMENT_INFO_TYPE));

const PAYMENT_INFO_ABI = [
  { type: "bytes32" },
  {
    type: "tuple",
    components: [
      { name: "operator", type: "address" },
      { name: "payer", type: "address" },
      { name: "receiver", type: "address" },
      { name: "token", type: "address" },
      { name: "maxAmount", type: "uint120" },
      { name: "preApprovalExpiry", type: "uint48" },
      { name: "authorizationExpiry", type: "uint48" },
      { name: "refundExpiry", type: "uint48" },
      { name: "minFeeBps", type: "uint16" },
      { name: "maxFeeBps", type: "uint16" },
      { name: "feeReceiver", type: "address" },
      { name: "salt", type: "uint256" },
    ],
  },
] as const;

/**
 * The escrow's name for a payment, as its `getHash` forms it: the chain id and the escrow's address
 * are in it, so the same terms on another chain or escrow are another payment. Computed here (no
 * chain call): a stranger asking for a hold's typed data costs the service no read.
 */
export function paymentInfoHash(info: PaymentInfo, chainId: number, escrow: Address): Hex {
  const terms = keccak256(encodeAbiParameters(PAYMENT_INFO_ABI, [PAYMENT_INFO_TYPEHASH, info]));
  return keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "address" }, { type: "bytes32" }], [BigInt(chainId), escrow, terms]));
}

/**
 * The hash with the payer left out (the zero address): the ERC-3009 nonce the EIP-3009 collector
 * expects, so a buyer not known when the hold was made signs the hold's own terms.
 */
export function payerAgnosticHash(info: PaymentInfo, chainId: number, escrow: Address): Hex {
  return paymentInfoHash({ ...info, payer: zeroAddress }, chainId, escrow);
}

/** Where the typed data the buyer signs points: the chain, the escrow and its collector, the token's EIP-712 name. */
export interface HoldChain {
  chainId: number;
  escrow: Address;
  collector: Address;
  tokenEip712: TokenEip712;
}

/**
 * What the buyer signs to authorize a hold: USDC's ERC-3009 `ReceiveWithAuthorization` of the most
 * that may be captured, to the collector (USDC requires its caller to be the `to` signed), valid until
 * the hold's authorize deadline, its nonce the payer-agnostic hash (with `EIP712Domain` in `types`,
 * as every typed data this service hands a wallet).
 */
export function holdAuthorizationTypedData(info: PaymentInfo, payer: Address, chain: HoldChain) {
  return receiveAuthorizationTypedData(tokenDomain(chain.chainId, info.token, chain.tokenEip712), {
    from: payer,
    to: chain.collector,
    value: info.maxAmount,
    validAfter: 0n,
    validBefore: BigInt(info.preApprovalExpiry),
    nonce: payerAgnosticHash(info, chain.chainId, chain.escrow),
  });
}
