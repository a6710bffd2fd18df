import { zeroAddress, type Hex } from "viem";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { receiveAuthorizationTypedData, tokenDomain } from "../../src/chain/token-authorizations.js";
import { LOCAL_ROLES, type LocalChain } from "../../dev/localchain/harness.js";
import type { PaymentInfo } from "../helpers/holds.js";
import { signWithViem } from "../helpers/signers.js";
import { send } from "../helpers/tx.js";

/**
 * A hold on the project's stand-in escrow (not Commerce Payments' canonical code, whose gas differs):
 * 50.00 authorized with the buyer's ERC-3009 signature, 30.00 captured at 2%, the rest voided.
 * Steady state: the operator's token store exists (a warm-up hold creates it), the receiver and the
 * fee receiver already hold USDC. Fixed terms and salt, so the signature and the gas are the same every run.
 */
export async function measureHoldGas(chain: LocalChain, figures: Record<string, number>, deadline: bigint): Promise<void> {
  if (!chain.authCapture) return;
  const { escrow, eip3009Collector } = chain.authCapture;
  const usdc = chain.deployment.token.address;
  const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const operator = chain.accounts[LOCAL_ROLES.firstUser + 3]!;
  const terms = (salt: bigint): PaymentInfo => ({
    operator: operator.address,
    payer: buyer.address,
    receiver: merchant.address,
    token: usdc,
    maxAmount: 50_000_000n,
    preApprovalExpiry: Number(deadline),
    authorizationExpiry: Number(deadline) + 3600,
    refundExpiry: Number(deadline) + 86_400,
    minFeeBps: 200,
    maxFeeBps: 200,
    feeReceiver: chain.deployment.parameters.feeCollector,
    salt,
  });
  const signed = async (info: PaymentInfo) => {
    const nonce: Hex = await chain.publicClient.readContract({
      address: escrow,
      abi: authCaptureEscrowAbi,
      functionName: "getHash",
      args: [{ ...info, payer: zeroAddress }],
    });
    const signature = await signWithViem(
      buyer,
      receiveAuthorizationTypedData(tokenDomain(chain.deployment.chainId, usdc, chain.deployment.token.eip712), {
        from: buyer.address,
        to: eip3009Collector,
        value: info.maxAmount,
        validAfter: 0n,
        validBefore: BigInt(info.preApprovalExpiry),
        nonce,
      }),
    );
    return signature;
  };
  const authorize = async (info: PaymentInfo) =>
    send(chain, operator, {
      address: escrow,
      abi: authCaptureEscrowAbi,
      functionName: "authorize",
      args: [info, info.maxAmount, eip3009Collector, await signed(info)],
    });
  // x402 auth-capture without a hold: authorize and capture the whole amount in one call, the fee split in it.
  const charge = async (info: PaymentInfo) =>
    send(chain, operator, {
      address: escrow,
      abi: authCaptureEscrowAbi,
      functionName: "charge",
      args: [info, info.maxAmount, eip3009Collector, await signed(info), (info.maxAmount * 200n) / 10_000n, info.feeReceiver],
    });
  const capture = (info: PaymentInfo, amount: bigint) =>
    send(chain, operator, {
      address: escrow,
      abi: authCaptureEscrowAbi,
      functionName: "capture",
      args: [info, amount, (amount * 200n) / 10_000n, info.feeReceiver],
    });

  const warmUp = terms(1n);
  await authorize(warmUp);
  await capture(warmUp, 1_000_000n);

  const hold = terms(2n);
  figures["hold: authorize (v1.1 stand-in escrow)"] = Number((await authorize(hold)).gasUsed);
  figures["hold: capture (v1.1 stand-in escrow)"] = Number((await capture(hold, 30_000_000n)).gasUsed);
  figures["hold: void (v1.1 stand-in escrow)"] = Number(
    (await send(chain, operator, { address: escrow, abi: authCaptureEscrowAbi, functionName: "void", args: [hold] })).gasUsed,
  );
  figures["x402 auth-capture charge (v1.1 stand-in escrow)"] = Number((await charge(terms(3n))).gasUsed);
}
