import { BaseError, ContractFunctionRevertedError, ExecutionRevertedError, isAddressEqual, recoverAddress, size, type Address, type Hex, type PublicClient } from "viem";
import { ierc1271Abi } from "../generated/contracts.js";
import { ServiceError } from "../errors.js";
import { rpc, toRpcError } from "../chain/rpc-errors.js";

const ERC6492_SUFFIX = "6492649264926492649264926492649264926492649264926492649264926492";
const ERC1271_MAGIC = "0x1626ba7e";

/** Whether a signature is an ERC-6492 wrapper (a counterfactual account's signature). */
export function isErc6492(signature: Hex): boolean {
  return signature.toLowerCase().endsWith(ERC6492_SUFFIX);
}

/**
 * Checks the payer's signature over `digest` as the contract will on the first charge: ECDSA for an
 * account without code, ERC-1271 `isValidSignature` (by eth_call, with a gas cap) for a contract
 * account. ERC-6492 wrappers are refused: the account must be deployed first.
 * Throws UNSUPPORTED_SIGNATURE_FORMAT, INVALID_SIGNATURE, SIGNATURE_VALIDATION_TOO_EXPENSIVE
 * (the cap was too low: not a verdict), or an RPC error.
 */
export async function checkPayerSignature(client: PublicClient, payer: Address, digest: Hex, signature: Hex, gasCap: bigint): Promise<void> {
  if (isErc6492(signature)) throw new ServiceError("UNSUPPORTED_SIGNATURE_FORMAT");
  const code = await rpc(() => client.getCode({ address: payer }));
  if (!code || code === "0x") {
    if (size(signature) !== 65) throw new ServiceError("INVALID_SIGNATURE");
    let signer: Address;
    try {
      signer = await recoverAddress({ hash: digest, signature });
    } catch {
      throw new ServiceError("INVALID_SIGNATURE");
    }
    if (!isAddressEqual(signer, payer)) throw new ServiceError("INVALID_SIGNATURE");
    return;
  }
  const ask = (gas?: bigint) => client.readContract({ address: payer, abi: ierc1271Abi, functionName: "isValidSignature", args: [digest, signature], ...(gas ? { gas } : {}) } as never) as Promise<Hex>;
  try {
    if ((await ask(gasCap)) !== ERC1271_MAGIC) throw new ServiceError("INVALID_SIGNATURE");
    return;
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (!isExecutionFailure(error)) throw toRpcError(error);
  }
  // The capped call failed in execution. Without the cap: if it answers, the cap was the problem.
  try {
    await ask();
  } catch (error) {
    if (!isExecutionFailure(error)) throw toRpcError(error);
    throw new ServiceError("INVALID_SIGNATURE");
  }
  throw new ServiceError("SIGNATURE_VALIDATION_TOO_EXPENSIVE");
}

/**
 * Whether an eth_call failed in the EVM (revert, out of gas: JSON-RPC codes 3 and -32000) rather than
 * in transport or in the node (which are RPC errors, never a verdict on the signature).
 */
function isExecutionFailure(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError || [3, -32000].includes((e as { code?: number }).code ?? 0)) !== null
  );
}
