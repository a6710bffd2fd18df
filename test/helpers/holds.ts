import { zeroAddress, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { receiveAuthorizationTypedData, tokenDomain } from "../../src/chain/token-authorizations.js";
import { LOCAL_ROLES, type LocalChain } from "../../dev/localchain/harness.js";
import { signWithViem } from "./signers.js";
import type { PaymentInfo } from "../../src/holds/payment-info.js";

export type { PaymentInfo };

/** The accounts of a hold on the local chain: the escrow and collector at their canonical addresses. */
export function holdParties(chain: LocalChain) {
  if (!chain.authCapture) throw new Error("the local chain has no auth-capture escrow (deployments/84532.json names none)");
  return {
    escrow: chain.authCapture.escrow,
    collector: chain.authCapture.eip3009Collector,
    usdc: chain.deployment.token.address,
    payer: chain.accounts[LOCAL_ROLES.firstUser]!,
    receiver: chain.accounts[LOCAL_ROLES.firstUser + 1]!,
    stranger: chain.accounts[LOCAL_ROLES.firstUser + 2]!,
    operator: chain.accounts[LOCAL_ROLES.firstUser + 3]!,
    feeReceiver: chain.deployment.parameters.feeCollector,
  };
}

/**
 * Terms of a 50.00 USDC hold at 2% (the deployment's fee, fixed: min = max), relative to the chain's
 * head: authorizable for 10 minutes, capturable for an hour, refundable for a day.
 */
export async function holdTerms(chain: LocalChain, overrides: Partial<PaymentInfo> = {}): Promise<PaymentInfo> {
  const p = holdParties(chain);
  const now = Number((await chain.publicClient.getBlock()).timestamp);
  return {
    operator: p.operator.address,
    payer: p.payer.address,
    receiver: p.receiver.address,
    token: p.usdc,
    maxAmount: 50_000_000n,
    preApprovalExpiry: now + 600,
    authorizationExpiry: now + 3600,
    refundExpiry: now + 86_400,
    minFeeBps: 200,
    maxFeeBps: 200,
    feeReceiver: p.feeReceiver,
    salt: 1n,
    ...overrides,
  };
}

/** The escrow's name for a payment (its `getHash`, which covers chain id and escrow address). */
export function hashOf(chain: LocalChain, info: PaymentInfo, escrow = holdParties(chain).escrow): Promise<Hex> {
  return chain.publicClient.readContract({ address: escrow, abi: authCaptureEscrowAbi, functionName: "getHash", args: [info] });
}

/**
 * The payer's ERC-3009 `ReceiveWithAuthorization` for a payment, as the collector redeems it: to the
 * collector, for `maxAmount`, valid before `preApprovalExpiry`, the payer-agnostic hash as nonce.
 */
export async function signHold(chain: LocalChain, payer: HDAccount, info: PaymentInfo, overrides: { to?: Address; nonce?: Hex } = {}): Promise<Hex> {
  const p = holdParties(chain);
  const nonce = overrides.nonce ?? (await hashOf(chain, { ...info, payer: zeroAddress }));
  return signWithViem(
    payer,
    receiveAuthorizationTypedData(tokenDomain(chain.deployment.chainId, info.token, chain.deployment.token.eip712), {
      from: info.payer,
      to: overrides.to ?? p.collector,
      value: info.maxAmount,
      validAfter: 0n,
      validBefore: BigInt(info.preApprovalExpiry),
      nonce,
    }),
  );
}

/** What a payment holds now, as the escrow records it. */
export async function stateOf(chain: LocalChain, info: PaymentInfo) {
  const [collected, capturable, refundable] = await chain.publicClient.readContract({
    address: holdParties(chain).escrow,
    abi: authCaptureEscrowAbi,
    functionName: "paymentState",
    args: [await hashOf(chain, info)],
  });
  return { collected, capturable, refundable };
}

/** An escrow call sent from `from` (simulated first, on the pending block so a timestamp set for the next block applies, so that a revert surfaces as the escrow's custom error). */
export async function escrowCall(chain: LocalChain, from: HDAccount, call: EscrowCall) {
  const escrow = holdParties(chain).escrow;
  const { request } = await chain.publicClient.simulateContract({
    address: escrow,
    abi: authCaptureEscrowAbi,
    account: from,
    blockTag: "pending",
    ...call,
  } as never);
  const hash = await chain.wallet(from).writeContract({ ...(request as object), account: from, chain: chain.chain } as never);
  return chain.publicClient.waitForTransactionReceipt({ hash });
}

export type EscrowCall =
  | { functionName: "authorize"; args: readonly [PaymentInfo, bigint, Address, Hex] }
  | { functionName: "charge"; args: readonly [PaymentInfo, bigint, Address, Hex, bigint, Address] }
  | { functionName: "capture"; args: readonly [PaymentInfo, bigint, bigint, Address] }
  | { functionName: "void"; args: readonly [PaymentInfo] }
  | { functionName: "reclaim"; args: readonly [PaymentInfo] }
  | { functionName: "refund"; args: readonly [PaymentInfo, bigint, Address, Hex] };
