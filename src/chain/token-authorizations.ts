import type { Address, Hex } from "viem";

/**
 * The `EIP712Domain` type of every domain we sign over (name, version, chainId, verifyingContract).
 * Every typed-data object handed to a wallet carries it in `types`: `eth_signTypedData_v4` wallets
 * (MetaMask's eth-sig-util) hash the domain with exactly the fields `types.EIP712Domain` lists, so
 * without it they sign over an empty domain. viem accepts it as given; ethers v6 derives it from the
 * domain and refuses it in `types`, so ethers callers drop `EIP712Domain` before signing.
 */
export const EIP712_DOMAIN_TYPE = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;

/** The token's EIP-712 name and version: per environment, from `deployments/<chain id>.json` (`token.eip712`). */
export interface TokenEip712 {
  name: string;
  version: string;
}

/** The token's EIP-712 domain (USDC: "USDC"/"2" on Base Sepolia, "USD Coin"/"2" on Base). */
export function tokenDomain(chainId: number, token: Address, eip712: TokenEip712) {
  return { name: eip712.name, version: eip712.version, chainId, verifyingContract: token };
}
export type TokenDomain = ReturnType<typeof tokenDomain>;

/** The fields of both EIP-3009 authorizations (`ReceiveWithAuthorization`, `TransferWithAuthorization`). */
const AUTHORIZATION_FIELDS = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

/** What a buyer authorizes in EIP-3009: `value` from `from` to `to`, within the window, once per `nonce`. */
type AuthorizationMessage = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

/** EIP-3009 `ReceiveWithAuthorization` typed data: what a buyer signs to pay the Splitter with no ETH. */
export function receiveAuthorizationTypedData(domain: TokenDomain, message: AuthorizationMessage) {
  return {
    domain,
    types: { EIP712Domain: EIP712_DOMAIN_TYPE, ReceiveWithAuthorization: AUTHORIZATION_FIELDS },
    primaryType: "ReceiveWithAuthorization",
    message,
  } as const;
}

/**
 * EIP-3009 `TransferWithAuthorization` typed data: what an x402 `exact` client signs to its `payTo`
 * (here a payment address), which anyone may submit. The service never builds one (x402's client
 * does); tests sign it by hand for fixed nonces and expired windows.
 */
export function transferAuthorizationTypedData(domain: TokenDomain, message: AuthorizationMessage) {
  return {
    domain,
    types: { EIP712Domain: EIP712_DOMAIN_TYPE, TransferWithAuthorization: AUTHORIZATION_FIELDS },
    primaryType: "TransferWithAuthorization",
    message,
  } as const;
}

/** EIP-2612 `Permit` typed data: what a buyer signs to let the Splitter pull in the same transaction. */
export function permitTypedData(domain: TokenDomain, message: { owner: Address; spender: Address; value: bigint; nonce: bigint; deadline: bigint }) {
  return {
    domain,
    types: {
      EIP712Domain: EIP712_DOMAIN_TYPE,
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit",
    message,
  } as const;
}
