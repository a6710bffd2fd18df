import {
  BaseError,
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  hexToBigInt,
  isAddressEqual,
  recoverAddress,
  size,
  sliceHex,
  toHex,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { ierc1271Abi } from "../generated/contracts.js";
import { DomainError } from "../errors.js";
import { rpc, toRpcError } from "../chain/rpc-errors.js";

const ERC6492_SUFFIX = "6492649264926492649264926492649264926492649264926492649264926492";
const ERC1271_MAGIC = "0x1626ba7e";

/** Half the secp256k1 order: OpenZeppelin's ECDSA (and so the contract) refuses an `s` above it. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/**
 * The EOA signature the contract will accept, or null: exactly 65 bytes (r, s, v) with a low `s`
 * (OpenZeppelin's ECDSA refuses the malleated high-s twin) and `v` 27 or 28. A `v` of 0 or 1 (some
 * wallets' y-parity form) is rewritten as 27 or 28: the same signature in the form `ecrecover` takes.
 */
export function canonicalEoaSignature(signature: Hex): Hex | null {
  if (size(signature) !== 65) return null;
  if (hexToBigInt(sliceHex(signature, 32, 64)) > HALF_ORDER) return null;
  const v = Number.parseInt(signature.slice(130, 132), 16);
  if (v === 27 || v === 28) return signature;
  if (v === 0 || v === 1) return `${signature.slice(0, 130)}${toHex(v + 27).slice(2)}` as Hex;
  return null;
}

/** Whether a signature is an ERC-6492 wrapper (a counterfactual account's signature). */
export function isErc6492(signature: Hex): boolean {
  return signature.toLowerCase().endsWith(ERC6492_SUFFIX);
}

/**
 * Checks the payer's signature over `digest` by the contract's own rule (OpenZeppelin's
 * `SignatureChecker` on the first charge): for an account without code, a 65-byte ECDSA signature
 * with a low `s` (see {@link canonicalEoaSignature}); for a contract account, whatever bytes its
 * ERC-1271 `isValidSignature` accepts, including none (an account that approved the digest on chain):
 * the chain decides, by one eth_call under the gas cap (never without it). ERC-6492 wrappers are
 * refused: the account must be deployed first. Returns the signature to store (an EOA's `v` in its
 * 27/28 form). Throws UNSUPPORTED_SIGNATURE_FORMAT, INVALID_SIGNATURE,
 * SIGNATURE_VALIDATION_TOO_EXPENSIVE (validation ran out of the cap: not a verdict), or an RPC error.
 */
export async function checkPayerSignature(client: PublicClient, payer: Address, digest: Hex, signature: Hex, gasCap: bigint): Promise<Hex> {
  if (isErc6492(signature)) throw new DomainError("UNSUPPORTED_SIGNATURE_FORMAT");
  const code = await rpc(() => client.getCode({ address: payer }));
  if (!code || code === "0x") {
    const canonical = canonicalEoaSignature(signature);
    if (!canonical) throw new DomainError("INVALID_SIGNATURE");
    let signer: Address;
    try {
      signer = await recoverAddress({ hash: digest, signature: canonical });
    } catch {
      throw new DomainError("INVALID_SIGNATURE");
    }
    if (!isAddressEqual(signer, payer)) throw new DomainError("INVALID_SIGNATURE");
    return canonical;
  }
  // One call, always under the cap: a contract whose isValidSignature loops must not burn the node's
  // own gas cap (or its time). Running out of the cap is SIGNATURE_VALIDATION_TOO_EXPENSIVE, not a
  // verdict; a revert or any answer but the magic value is INVALID_SIGNATURE.
  try {
    const answer = (await client.readContract({
      address: payer,
      abi: ierc1271Abi,
      functionName: "isValidSignature",
      args: [digest, signature],
      gas: gasCap,
    } as never)) as Hex;
    if (answer !== ERC1271_MAGIC) throw new DomainError("INVALID_SIGNATURE");
    return signature;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (!isExecutionFailure(error)) throw toRpcError(error);
    if (!isRevert(error) && isOutOfGas(error)) throw new DomainError("SIGNATURE_VALIDATION_TOO_EXPENSIVE", { cause: error });
    throw new DomainError("INVALID_SIGNATURE", { cause: error });
  }
}

/** Whether an eth_call reverted (JSON-RPC code 3, or viem decoded a revert): the account's own answer. */
function isRevert(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError || (e as { code?: number }).code === 3) !== null
  );
}

/**
 * Whether an eth_call that did not revert ran out of the gas it was given. viem has no error class
 * for it (its node errors cover sending, not an eth_call's execution: `getNodeError` answers
 * UnknownNodeError), so this reads the node's own words, once, here: geth and Base's nodes say
 * "out of gas" (code -32000), Hardhat/EDR "Transaction ran out of gas", anvil "OutOfGas". A revert
 * is told apart first by class (ContractFunctionRevertedError, ExecutionRevertedError).
 */
function isOutOfGas(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((e) => {
      const { details, message } = e as { details?: unknown; message?: unknown };
      return [details, message].some((text) => typeof text === "string" && /out of gas|outofgas/i.test(text));
    }) !== null
  );
}

/**
 * Whether an eth_call failed in the EVM (revert, out of gas: JSON-RPC codes 3 and -32000) rather than
 * in transport or in the node (which are RPC errors, never a verdict on the signature).
 */
function isExecutionFailure(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk(
      (e) => e instanceof ContractFunctionRevertedError || e instanceof ExecutionRevertedError || [3, -32000].includes((e as { code?: number }).code ?? 0),
    ) !== null
  );
}
