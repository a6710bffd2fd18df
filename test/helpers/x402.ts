import type { Address, Hex } from "viem";
import { EIP712_DOMAIN_TYPE, type TokenDomain } from "../../src/chain/token-authorizations.js";

/**
 * EIP-3009 `TransferWithAuthorization` typed data, as an x402 `exact` client signs it (to `payTo`,
 * any submitter): for tests that need a fixed nonce or a hand-made authorization. The e2e tests sign
 * with @x402/evm's own client instead.
 */
export function transferAuthorizationTypedData(
  domain: TokenDomain,
  message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
) {
  return {
    domain,
    types: {
      EIP712Domain: EIP712_DOMAIN_TYPE,
      TransferWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "TransferWithAuthorization",
    message,
  } as const;
}
