/**
 * What a receiver authorizer signs in x402's `auth-capture` EVM binding (v1.1), computed offline
 * (no dependency): the escrow's name for a payment (`paymentInfoHash`, as `AuthCaptureEscrow.getHash`
 * forms it) and the EIP-712 `Charge`, `Capture` and `Void` it consents with, in the one domain the
 * binding names ("x402 Auth Capture Operator", version 1, the capture authorizer as `verifyingContract`).
 */
import { keccak256 } from "./x402-receiver.js";
import { concat, type Hex, toHex } from "./bytes.js";

/** `PaymentInfo` as the wire carries it (x402's lifecycle payloads): amounts as strings, the salt as 32 bytes. */
export interface WirePaymentInfo {
  operator: string;
  payer: string;
  receiver: string;
  token: string;
  maxAmount: string;
  preApprovalExpiry: number;
  authorizationExpiry: number;
  refundExpiry: number;
  minFeeBps: number;
  maxFeeBps: number;
  feeReceiver: string;
  salt: string;
}

/** EIP-712 typed data, as viem's, ethers' and MetaMask's `signTypedData` take it. */
export interface AuthorizerTypedData {
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
}

const PAYMENT_INFO_TYPE =
  "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)";

/** The escrow's `getHash(paymentInfo)`: keccak256(abi.encode(chainId, escrow, keccak256(abi.encode(TYPEHASH, paymentInfo)))). */
export function paymentInfoHash(info: WirePaymentInfo, chainId: number, escrow: string): Hex {
  const typehash = keccak256(new TextEncoder().encode(PAYMENT_INFO_TYPE));
  const fields = [
    info.operator,
    info.payer,
    info.receiver,
    info.token,
    BigInt(info.maxAmount),
    BigInt(info.preApprovalExpiry),
    BigInt(info.authorizationExpiry),
    BigInt(info.refundExpiry),
    BigInt(info.minFeeBps),
    BigInt(info.maxFeeBps),
    info.feeReceiver,
    BigInt(info.salt),
  ].map(wordOf);
  const terms = keccak256(concat(typehash, ...fields));
  return toHex(keccak256(concat(wordOf(BigInt(chainId)), wordOf(escrow), terms)));
}

/** keccak256 of bytes written as hex (a `Charge`'s `collectorDataHash`). */
export function keccakHex(hex: string): Hex {
  const body = hex.slice(2);
  const bytes = new Uint8Array(body.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(body.slice(2 * i, 2 * i + 2), 16);
  return toHex(keccak256(bytes));
}

function domain(chainId: number, captureAuthorizer: string) {
  return { name: "x402 Auth Capture Operator", version: "1", chainId, verifyingContract: captureAuthorizer };
}

export function chargeTypedData(
  chainId: number,
  captureAuthorizer: string,
  m: { paymentInfoHash: Hex; amount: string; tokenCollector: string; collectorDataHash: Hex; feeAmount: string; feeReceiver: string },
): AuthorizerTypedData {
  return {
    domain: domain(chainId, captureAuthorizer),
    types: {
      Charge: [
        { name: "paymentInfoHash", type: "bytes32" },
        { name: "amount", type: "uint256" },
        { name: "tokenCollector", type: "address" },
        { name: "collectorDataHash", type: "bytes32" },
        { name: "feeAmount", type: "uint256" },
        { name: "feeReceiver", type: "address" },
      ],
    },
    primaryType: "Charge",
    message: { ...m, amount: BigInt(m.amount), feeAmount: BigInt(m.feeAmount) },
  };
}

export function captureTypedData(
  chainId: number,
  captureAuthorizer: string,
  m: { paymentInfoHash: Hex; amount: string; feeAmount: string; feeReceiver: string; expectedCapturableAmount: string; expectedRefundableAmount: string },
): AuthorizerTypedData {
  return {
    domain: domain(chainId, captureAuthorizer),
    types: {
      Capture: [
        { name: "paymentInfoHash", type: "bytes32" },
        { name: "amount", type: "uint256" },
        { name: "feeAmount", type: "uint256" },
        { name: "feeReceiver", type: "address" },
        { name: "expectedCapturableAmount", type: "uint256" },
        { name: "expectedRefundableAmount", type: "uint256" },
      ],
    },
    primaryType: "Capture",
    message: {
      ...m,
      amount: BigInt(m.amount),
      feeAmount: BigInt(m.feeAmount),
      expectedCapturableAmount: BigInt(m.expectedCapturableAmount),
      expectedRefundableAmount: BigInt(m.expectedRefundableAmount),
    },
  };
}

export function voidTypedData(chainId: number, captureAuthorizer: string, hash: Hex): AuthorizerTypedData {
  return {
    domain: domain(chainId, captureAuthorizer),
    types: { Void: [{ name: "paymentInfoHash", type: "bytes32" }] },
    primaryType: "Void",
    message: { paymentInfoHash: hash },
  };
}

/** A 32-byte ABI word: an address left-padded, or an unsigned integer. */
function wordOf(value: string | bigint): Uint8Array {
  const n = typeof value === "bigint" ? value : BigInt(value);
  const out = new Uint8Array(32);
  let rest = n;
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}
