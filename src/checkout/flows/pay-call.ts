import { encodeFunctionData, isHex, parseSignature, size, type Address, type Hex } from "viem";
import { splitterAbi } from "../../generated/contracts.js";

/** What a one-transaction payment needs: the resolved intent's fields and the buyer's EIP-3009 signature. */
export interface AuthorizedPayment {
  token: Address;
  payer: Address;
  recipient: Address;
  amount: bigint;
  reference: Hex;
  validBefore: bigint;
  signature: Hex;
}

/**
 * The Splitter call that carries a buyer's EIP-3009 authorization. A smart wallet (its address has
 * code: a Safe, a smart account that answers ERC-1271) or any signature that is not 65 bytes goes
 * through `payWithAuthorizationSignature` with the signature as bytes (USDC v2.2 checks it by
 * ERC-1271); an EOA's 65-byte signature through `payWithAuthorization(v, r, s)`.
 */
export function authorizationCall(p: AuthorizedPayment, payerHasCode: boolean): Hex {
  if (!isHex(p.signature)) throw new Error("the wallet returned a signature that is not hex");
  const common = [p.token, p.payer, p.recipient, p.amount, p.reference, 0n, p.validBefore] as const;
  if (payerHasCode || size(p.signature) !== 65) {
    return encodeFunctionData({ abi: splitterAbi, functionName: "payWithAuthorizationSignature", args: [...common, p.signature] });
  }
  const { v, r, s } = parseSignature(p.signature);
  return encodeFunctionData({ abi: splitterAbi, functionName: "payWithAuthorization", args: [...common, Number(v), r, s] });
}
