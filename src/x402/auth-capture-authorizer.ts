import { encodeAbiParameters, keccak256, toHex, zeroAddress, type Address, type Hex } from "viem";

/**
 * The receiver authorizer's consent, as x402's `auth-capture` EVM binding (v1.1) defines it: the salt
 * that binds a payment to its authorizer and policy, and the EIP-712 types it signs for each operation
 * the client did not authorize. Shared by the facilitator (which checks them) and nothing else here:
 * the client package writes its own copy, as it depends on nothing of the service's.
 */

/** `SALT_BINDING_TYPEHASH`: the domain tag of the salt commitment (four words, never packed). */
export const SALT_BINDING_TYPEHASH = keccak256(toHex("x402AuthCaptureSaltBinding(address receiverAuthorizer,address policy,uint256 saltNonce)"));

/** `PaymentInfo.salt` of a bound payment: `uint256(keccak256(abi.encode(TYPEHASH, receiverAuthorizer, policy, saltNonce)))`. */
export function boundSalt(receiverAuthorizer: Address, policy: Address, saltNonce: bigint): bigint {
  return BigInt(
    keccak256(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "address" }, { type: "address" }, { type: "uint256" }],
        [SALT_BINDING_TYPEHASH, receiverAuthorizer, policy, saltNonce],
      ),
    ),
  );
}

/** A bound payment names a non-zero receiver authorizer or policy (absent reads as zero). */
export function isBound(receiverAuthorizer: Address, policy: Address): boolean {
  return receiverAuthorizer !== zeroAddress || policy !== zeroAddress;
}

/** The one domain every authorizer signature is over: the capture authorizer (the operator) as `verifyingContract`. */
export function authorizerDomain(chainId: number, captureAuthorizer: Address) {
  return { name: "x402 Auth Capture Operator", version: "1", chainId, verifyingContract: captureAuthorizer } as const;
}

/** The v1.1 signed types (the submitted fee is the escrow's `feeAmount`). */
export const AUTHORIZER_TYPES = {
  Charge: [
    { name: "paymentInfoHash", type: "bytes32" },
    { name: "amount", type: "uint256" },
    { name: "tokenCollector", type: "address" },
    { name: "collectorDataHash", type: "bytes32" },
    { name: "feeAmount", type: "uint256" },
    { name: "feeReceiver", type: "address" },
  ],
  Capture: [
    { name: "paymentInfoHash", type: "bytes32" },
    { name: "amount", type: "uint256" },
    { name: "feeAmount", type: "uint256" },
    { name: "feeReceiver", type: "address" },
    { name: "expectedCapturableAmount", type: "uint256" },
    { name: "expectedRefundableAmount", type: "uint256" },
  ],
  Void: [{ name: "paymentInfoHash", type: "bytes32" }],
} as const;

export interface ChargeConsent {
  paymentInfoHash: Hex;
  amount: bigint;
  tokenCollector: Address;
  collectorData: Hex;
  feeAmount: bigint;
  feeReceiver: Address;
}

export interface CaptureConsent {
  paymentInfoHash: Hex;
  amount: bigint;
  feeAmount: bigint;
  feeReceiver: Address;
  expectedCapturableAmount: bigint;
  expectedRefundableAmount: bigint;
}

/** The typed data of a `Charge` consent (`collectorDataHash` is keccak256 of the collector data the escrow call passes). */
export function chargeTypedData(chainId: number, captureAuthorizer: Address, consent: ChargeConsent) {
  const { collectorData, ...rest } = consent;
  return {
    domain: authorizerDomain(chainId, captureAuthorizer),
    types: { Charge: AUTHORIZER_TYPES.Charge },
    primaryType: "Charge" as const,
    message: { ...rest, collectorDataHash: keccak256(collectorData) },
  };
}

export function captureTypedData(chainId: number, captureAuthorizer: Address, consent: CaptureConsent) {
  return {
    domain: authorizerDomain(chainId, captureAuthorizer),
    types: { Capture: AUTHORIZER_TYPES.Capture },
    primaryType: "Capture" as const,
    message: consent,
  };
}

export function voidTypedData(chainId: number, captureAuthorizer: Address, paymentInfoHash: Hex) {
  return {
    domain: authorizerDomain(chainId, captureAuthorizer),
    types: { Void: AUTHORIZER_TYPES.Void },
    primaryType: "Void" as const,
    message: { paymentInfoHash },
  };
}
