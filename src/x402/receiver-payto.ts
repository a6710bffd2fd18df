import { encodeFunctionData, erc20Abi, isAddressEqual, type Hex, type TransactionReceipt, type Address } from "viem";
import { x402ReceiversAbi } from "../generated/contracts.js";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import { rpc } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";
import type { PaymentChain } from "../payments/verify.js";
import type { X402ReceiverRecord } from "../store/x402-receivers.js";
import { AUTHORIZATION_LOOKBACK, authorizationPaidIn, authorizationUsed, findAuthorizationPayment, type AuthorizationPayment } from "./proof.js";
import { poll } from "./poll.js";
import type { ReceiverSender } from "./receiver-sender.js";
import type { ReceiverSplitter } from "./receiver-splitter.js";
import type { Authorized, PayToTarget } from "./target.js";

export interface ReceiverPayToDeps {
  chain: PaymentChain;
  sender: Pick<ReceiverSender, "price" | "send">;
  splitter: Pick<ReceiverSplitter, "splitReceivers">;
  /** How long to wait for a split sent after a front-run, and how often to look. */
  waitMs: number;
  pollMs: number;
}

/**
 * A merchant's receiver as `payTo` (one per recipient and token, CREATE2 of X402Receivers). Its
 * settlement is `X402Receivers.settle`: USDC's `transferWithAuthorization` into the receiver and the
 * split out of it, one transaction; USDC's nonce is the only guard, so the answer's subject is the
 * authorization (`payer:nonce`). An authorization used by someone else (straight to USDC) left its
 * funds at the receiver: they are split (`X402Receivers.split`) and the agent is answered success.
 */
/** What a receiver's deployment adds to its first settlement (234,346 against 116,310 measured, docs/gas.md), rounded up. */
export const RECEIVER_DEPLOY_GAS = 150_000n;

export async function receiverPayTo(deps: ReceiverPayToDeps, record: X402ReceiverRecord, amount: bigint, a: Authorized): Promise<PayToTarget> {
  const { chain } = deps;
  const reader = X402ReceiversReader.of(chain);
  const token = chain.deployment.token.address;
  const nonce = a.authorization.nonce as Hex;
  const payment: AuthorizationPayment = { token, payer: a.payer, nonce, to: record.receiver, amount };
  const call = encodeFunctionData({
    abi: x402ReceiversAbi,
    functionName: "settle",
    args: [token, record.recipient, a.payer, amount, BigInt(a.authorization.validAfter), BigInt(a.authorization.validBefore), nonce, a.signature],
  });
  const used = () => authorizationUsed(chain.client, token, a.payer, nonce);
  const code = await rpc(() => chain.client.getCode({ address: record.receiver }));
  return {
    kind: "receiver",
    subject: `${a.payer.toLowerCase()}:${nonce.toLowerCase()}`,
    payTo: record.receiver,
    amount,
    extraGas: code === undefined || code === "0x" ? RECEIVER_DEPLOY_GAS : 0n,
    settledAlready: false,
    price: () => deps.sender.price(call),
    send: (maxGas) => deps.sender.send(call, maxGas),
    takenHash: async () => undefined,
    revertedOnItsOwn: async () => !(await used()),
    settledIn: (receipt: TransactionReceipt) => receipt.status === "success" && authorizationPaidIn(receipt, payment),
    paidByOwn: (receipt: TransactionReceipt) => reader.paidIn(receipt).some((p) => ours(p.args)) && authorizationPaidIn(receipt, payment),
    paidBy: async () => {
      if (!(await used())) return "unsettled";
      const latest = await rpc(() => chain.client.getBlockNumber({ cacheTime: 0 }));
      const paid = await findAuthorizationPayment(chain.client, payment, latest > AUTHORIZATION_LOOKBACK ? latest - AUTHORIZATION_LOOKBACK : 0n, latest);
      if (!paid) return "not by this authorization";
      // Settled through X402Receivers: split in the same transaction.
      if (reader.paidIn(paid).some((p) => ours(p.args))) return paid.transactionHash;
      // Straight to USDC: the funds reached the receiver unsplit; split whatever it holds, then answer.
      if (!(await splitSince(paid.blockNumber))) return "unsettled";
      return paid.transactionHash;
    },
  };

  /**
   * Whether a `ReceiverPaid` is this payment's split: its nonce, payer, recipient and USDC (anyone may
   * call `settle` with another token, and so emit one naming this nonce).
   */
  function ours(p: { payer: Address; nonce: Hex; token: Address; recipient: Address }): boolean {
    return (
      p.nonce.toLowerCase() === nonce.toLowerCase() &&
      isAddressEqual(p.payer, a.payer) &&
      isAddressEqual(p.token, token) &&
      isAddressEqual(p.recipient, record.recipient)
    );
  }

  /** Whether the receiver's funds since `block` left it split: a split after it, or one sent now and mined. */
  async function splitSince(block: bigint): Promise<boolean> {
    const held = await rpc(() => chain.client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [record.receiver] }));
    if (held === 0n) {
      // Empty: whatever arrived left through a split (a receiver's funds leave no other way).
      const latest = await rpc(() => chain.client.getBlockNumber({ cacheTime: 0 }));
      return (await reader.splitLogs(record.receiver, token, block, latest)).length > 0;
    }
    const [hash] = await deps.splitter.splitReceivers([record], { evenIfDust: true });
    if (!hash) {
      // A split of ours is already on its way (the splitter's own round): wait for the balance to leave.
      return (await poll(async () => ((await balanceOf()) === 0n ? true : null), deps.waitMs, deps.pollMs)) ?? false;
    }
    const receipt = await poll(() => readReceipt(chain.client, hash).catch(() => null), deps.waitMs, deps.pollMs);
    return receipt?.status === "success" && reader.splitIn(receipt, token).length > 0;
  }

  function balanceOf(): Promise<bigint> {
    return rpc(() => chain.client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [record.receiver] }));
  }
}
