import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { x402Client } from "@x402/fetch";
import { getAddress, type Address, type Hex, type PublicClient } from "viem";
import type { HDAccount } from "viem/accounts";
import { feeAmountOf } from "../../src/holds/fee.js";
import { paymentInfoHash, type PaymentInfo } from "../../src/holds/payment-info.js";
import { captureTypedData, chargeTypedData, voidTypedData } from "../../src/x402/auth-capture-authorizer.js";
import { eoaSigner, X402_NETWORK } from "./x402-parties.js";

/**
 * Hand-made `auth-capture` payloads of the EVM binding (v1.1), as a conformant resource server writes
 * them: the client's collect payload from @x402/evm's own client, and the server's completions and
 * lifecycle payloads signed by its receiver authorizer (`sign`: an EOA's or a Safe's signature of
 * the typed data).
 */
export type SignTyped = (typed: Parameters<HDAccount["signTypedData"]>[0]) => Promise<Hex>;

export interface SpecParty {
  chainId: number;
  escrow: Address;
  collector: Address;
  feeBps: number;
}

/** What @x402/evm's `AuthCaptureEvmScheme` signs for `r`. */
export function clientPayload(agent: HDAccount, client: PublicClient, r: PaymentRequirements): Promise<PaymentPayload> {
  return new x402Client()
    .register(X402_NETWORK, new AuthCaptureEvmScheme(eoaSigner(agent, client)))
    .createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [r] } as never);
}

/** The payment's terms as the escrow reads them, rebuilt from the requirements and what the client signed. */
export function termsOf(r: PaymentRequirements, p: PaymentPayload): PaymentInfo {
  const extra = r.extra as Record<string, number | string>;
  const payload = p.payload as { authorization: { from: Address; validBefore: string }; salt: Hex };
  return {
    operator: getAddress(String(extra.captureAuthorizer)),
    payer: getAddress(payload.authorization.from),
    receiver: getAddress(r.payTo),
    token: getAddress(r.asset),
    maxAmount: BigInt(r.amount),
    preApprovalExpiry: Number(payload.authorization.validBefore),
    authorizationExpiry: Number(extra.captureDeadline),
    refundExpiry: Number(extra.refundDeadline),
    minFeeBps: Number(extra.minFeeBps),
    maxFeeBps: Number(extra.maxFeeBps),
    feeReceiver: getAddress(String(extra.feeRecipient)),
    salt: BigInt(payload.salt),
  };
}

/** `PaymentInfo` on the wire: amounts as strings, the salt as 32 bytes. */
export function wireInfo(info: PaymentInfo) {
  return { ...info, maxAmount: info.maxAmount.toString(), salt: `0x${info.salt.toString(16).padStart(64, "0")}` };
}

/** The four fields a server adds to complete a `charge` of `amount`, signed by `sign`. */
export async function chargeCompletion(party: SpecParty, r: PaymentRequirements, p: PaymentPayload, amount: bigint, sign: SignTyped) {
  const info = termsOf(r, p);
  const feeAmount = feeAmountOf(amount, party.feeBps);
  const feeReceiver = info.feeReceiver;
  const signature = (p.payload as { signature: Hex }).signature;
  const typed = chargeTypedData(party.chainId, info.operator, {
    paymentInfoHash: paymentInfoHash(info, party.chainId, party.escrow),
    amount,
    tokenCollector: party.collector,
    collectorData: signature,
    feeAmount,
    feeReceiver,
  });
  return { amount: amount.toString(), feeAmount: feeAmount.toString(), feeReceiver, authorizerSignature: await sign(typed as never) };
}

/** A `capture` lifecycle payload of `amount` against the balances `expected`, a sync close-out's void signature with `voidRemainder`. */
export async function capturePayload(
  party: SpecParty,
  r: PaymentRequirements,
  p: PaymentPayload,
  o: { amount: bigint; expected: [bigint, bigint]; sign: SignTyped; voidRemainder?: boolean },
) {
  const info = termsOf(r, p);
  const hash = paymentInfoHash(info, party.chainId, party.escrow);
  const feeAmount = feeAmountOf(o.amount, party.feeBps);
  const typed = captureTypedData(party.chainId, info.operator, {
    paymentInfoHash: hash,
    amount: o.amount,
    feeAmount,
    feeReceiver: info.feeReceiver,
    expectedCapturableAmount: o.expected[0],
    expectedRefundableAmount: o.expected[1],
  });
  return {
    type: "capture",
    paymentInfo: wireInfo(info),
    saltNonce: (p.payload as { saltNonce: Hex }).saltNonce,
    amount: o.amount.toString(),
    feeAmount: feeAmount.toString(),
    feeReceiver: info.feeReceiver,
    expectedCapturableAmount: o.expected[0].toString(),
    expectedRefundableAmount: o.expected[1].toString(),
    authorizerSignature: await o.sign(typed as never),
    ...(o.voidRemainder ? { voidAuthorizerSignature: await o.sign(voidTypedData(party.chainId, info.operator, hash) as never) } : {}),
  };
}

/** A `void` lifecycle payload signed by `sign`. */
export async function voidPayload(party: SpecParty, r: PaymentRequirements, p: PaymentPayload, sign: SignTyped) {
  const info = termsOf(r, p);
  const hash = paymentInfoHash(info, party.chainId, party.escrow);
  return {
    type: "void",
    paymentInfo: wireInfo(info),
    saltNonce: (p.payload as { saltNonce: Hex }).saltNonce,
    authorizerSignature: await sign(voidTypedData(party.chainId, info.operator, hash) as never),
  };
}
