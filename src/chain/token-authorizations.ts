import type { Address, Hex } from "viem";

/** The token's EIP-712 domain (USDC: name "USDC", version "2"). */
export function tokenDomain(chainId: number, token: Address, name = "USDC", version = "2") {
  return { name, version, chainId, verifyingContract: token } as const;
}

/** EIP-3009 `ReceiveWithAuthorization` typed data: what a buyer signs to pay the Splitter with no ETH. */
export function receiveAuthorizationTypedData(
  domain: ReturnType<typeof tokenDomain>,
  message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
) {
  return {
    domain,
    types: {
      ReceiveWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "ReceiveWithAuthorization" as const,
    message,
  };
}

/** EIP-2612 `Permit` typed data: what a buyer signs to let the Splitter pull in the same transaction. */
export function permitTypedData(
  domain: ReturnType<typeof tokenDomain>,
  message: { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint },
) {
  return {
    domain,
    types: {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit" as const,
    message,
  };
}
