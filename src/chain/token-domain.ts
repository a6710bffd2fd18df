import {
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  domainSeparator,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { getEip712Domain } from "viem/actions";
import { fiatTokenAbi } from "../generated/contracts.js";
import { tokenDomain, type TokenEip712 } from "./token-authorizations.js";

/** The token's EIP-712 domain on chain differs from the one `deployments/<chain id>.json` records. */
export class TokenDomainMismatchError extends Error {}

export type TokenDomainCheck =
  /** The token answered (EIP-5267 `eip712Domain()` or `DOMAIN_SEPARATOR()`) and matches. */
  | { checked: true; by: "eip712Domain" | "DOMAIN_SEPARATOR" }
  /** No code at the address, or it answers neither: nothing to compare. */
  | { checked: false };

/**
 * Checks the token's EIP-712 domain recorded in the deployment against the token on chain, where the
 * token answers: EIP-5267 `eip712Domain()` when it has it, else `DOMAIN_SEPARATOR()` (USDC's
 * FiatToken) compared with the separator the recorded name and version give. A mismatch throws
 * {@link TokenDomainMismatchError}: every permit and authorization signed over the recorded domain
 * would fail. RPC failures propagate (the caller decides whether a start-up check may be skipped).
 */
export async function checkTokenDomain(client: PublicClient, chainId: number, token: Address, recorded: TokenEip712): Promise<TokenDomainCheck> {
  const code = await client.getCode({ address: token });
  if (!code || code === "0x") return { checked: false };
  const expected = tokenDomain(chainId, token, recorded);
  const mismatch = (found: string) =>
    new TokenDomainMismatchError(
      `the token at ${token} on chain ${chainId} has EIP-712 domain ${found}, but deployments/${chainId}.json records name "${recorded.name}" version "${recorded.version}": fix token.eip712 there`,
    );
  const named = await answer(() => getEip712Domain(client, { address: token }));
  if (named) {
    const d = named.domain;
    if (
      d.name !== recorded.name ||
      d.version !== recorded.version ||
      (d.chainId !== undefined && Number(d.chainId) !== chainId) ||
      (d.verifyingContract && d.verifyingContract.toLowerCase() !== token.toLowerCase())
    ) {
      throw mismatch(`name "${d.name}" version "${d.version}"`);
    }
    return { checked: true, by: "eip712Domain" };
  }
  const separator = await answer(() => client.readContract({ address: token, abi: fiatTokenAbi, functionName: "DOMAIN_SEPARATOR" }) as Promise<Hex>);
  if (!separator) return { checked: false };
  if (separator.toLowerCase() !== domainSeparator({ domain: expected }).toLowerCase()) {
    const [name, version] = await Promise.all([
      answer(() => client.readContract({ address: token, abi: fiatTokenAbi, functionName: "name" })),
      answer(() => client.readContract({ address: token, abi: fiatTokenAbi, functionName: "version" })),
    ]);
    throw mismatch(`separator ${separator}${name !== null ? ` (name() "${name}", version() "${version}")` : ""}`);
  }
  return { checked: true, by: "DOMAIN_SEPARATOR" };
}

/** The call's result, or null when the contract does not answer it (reverts, no such function). */
async function answer<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    const unanswered =
      error instanceof BaseError &&
      error.walk(
        (e) =>
          e instanceof ContractFunctionRevertedError ||
          e instanceof ContractFunctionZeroDataError ||
          (e as Error).name === "Eip712DomainNotFoundError" ||
          e instanceof ExecutionRevertedError,
      ) !== null;
    if (unanswered) return null;
    throw error;
  }
}
