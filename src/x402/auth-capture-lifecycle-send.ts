import { isAddressEqual, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { agreeOnReceipt } from "../chain/agreement.js";
import { finalityHead } from "../chain/finality.js";
import { majorityRead } from "../chain/majority-read.js";
import { rpc } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import { DomainError } from "../errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import { decodeEscrowEvent } from "../holds/escrow-events.js";
import type { PaymentInfo } from "../holds/payment-info.js";
import type { X402SettleResponse } from "../wire/index.js";
import { lifecyclePreconditions, type EscrowBalances, type LifecycleCall } from "./auth-capture-lifecycle.js";
import { poll } from "./poll.js";
import { AUTH_CAPTURE_REASONS, X402_REASONS } from "./reasons.js";
import type { Refusal } from "./refusals.js";

/** The holds' operator's lifecycle calls (src/holds/operator.ts), under its rules. */
export interface LifecycleOperator {
  capture(info: PaymentInfo, amount: bigint): Promise<{ hash: Hex }>;
  void(info: PaymentInfo): Promise<{ hash: Hex }>;
  /** One round over its recorded calls: a mined one stops counting as in flight. */
  follow?(): Promise<number>;
}

export interface LifecycleDeps {
  client: PublicClient;
  finality: Finality;
  operator: LifecycleOperator;
  waitMs: number;
  pollMs: number;
}

/** Mined: at or below each node's latest block (an x402 success is given at inclusion, as for a collect). */
const MINED: Finality = { kind: "confirmations", confirmations: 0 };

/**
 * The escrow's ledger of the payment as the single-use rule reads it: what a majority of the nodes
 * hold at the final block, and the latest state besides. A consent signed against balances the
 * latest state no longer holds is refused at once (a replay); one whose balances are only not final
 * yet (the authorize of this very request, a moment ago) is waited for, within the settle's wait.
 */
export async function agreedBalances(deps: LifecycleDeps, call: LifecycleCall): Promise<EscrowBalances> {
  const { client, finality } = deps;
  const read = (node: PublicClient, blockNumber?: bigint) =>
    node
      .readContract({
        address: call.escrow.escrow,
        abi: authCaptureEscrowAbi,
        functionName: "paymentState",
        args: [call.paymentHash],
        ...(blockNumber === undefined ? {} : { blockNumber }),
      })
      .then(([, capturable, refundable]) => ({ capturable, refundable }));
  const final = async () => {
    const head = await finalityHead(client, finality);
    return majorityRead(client, (node) => read(node, head));
  };
  const latest = await rpc(() => read(client));
  const expected = call.type === "capture" ? call.expected : null;
  const matches = (s: EscrowBalances) => (expected ? s.capturable === expected.capturable && s.refundable === expected.refundable : s.capturable > 0n);
  if (!matches(latest)) return latest;
  const held = await poll(
    async () => {
      const s = await final();
      return matches(s) ? s : null;
    },
    deps.waitMs,
    deps.pollMs,
  );
  return held ?? (await final());
}

/**
 * Relays a verified lifecycle call through the holds' operator and answers from the receipt a
 * majority of the nodes hold: a capture (then, for a sync close-out, the void of what is left, in
 * this same request), or a void. The settled amount is the captured one; a void moves none of it.
 */
export async function sendLifecycle(deps: LifecycleDeps, call: LifecycleCall, network: string, now: bigint): Promise<X402SettleResponse> {
  const payer = call.info.payer;
  const failed = (refusal: Refusal): X402SettleResponse => ({
    success: false,
    errorReason: refusal.reason,
    ...(refusal.message ? { errorMessage: refusal.message } : {}),
    payer,
    transaction: "",
    network,
  });
  // Judged again after any wait for the hold's previous call: the same consent sent twice at once waits behind its twin, then finds the balances moved.
  const preconditions = async () => lifecyclePreconditions(call, await agreedBalances(deps, call), now);
  const refused = await preconditions();
  if (refused) return failed(refused);
  const first = await sent(
    deps,
    () => (call.type === "capture" ? deps.operator.capture(call.info, call.amount) : deps.operator.void(call.info)),
    preconditions,
  );
  if ("reason" in first) return failed(first);
  const receipt = await mined(deps, first.hash);
  if ("reason" in receipt) return failed(receipt);
  const step = call.type === "capture" ? "PaymentCaptured" : "PaymentVoided";
  if (!receipt.logs.some((log) => isAddressEqual(log.address, call.escrow.escrow) && namesPayment(log, step, call.paymentHash))) {
    return failed({
      reason: X402_REASONS.transactionState,
      message: `the ${call.type} is not held mined, for this payment, by a majority of the chain's nodes: ask again`,
    });
  }
  if (call.type === "capture" && call.voidRemainder) await voidRemainder(deps, call.info);
  return { success: true, payer, transaction: receipt.transactionHash, network, amount: call.type === "capture" ? call.amount.toString() : "0" };
}

/**
 * The sync close-out's void. Best effort, as the binding says: the capture has settled whatever this
 * does, and a remainder left behind stays voidable until the capture deadline, then the payer's to reclaim.
 */
async function voidRemainder(deps: LifecycleDeps, info: PaymentInfo): Promise<void> {
  const voided = await sent(deps, () => deps.operator.void(info));
  if (!("reason" in voided)) await mined(deps, voided.hash);
}

/**
 * Sends one operator call, once the hold's previous call stops counting as in flight (the operator
 * sends one call per hold at a time, and marks one done on its follow round): the authorize of this
 * very request, or the capture a close-out's void follows.
 */
async function sent(
  deps: LifecycleDeps,
  send: () => Promise<{ hash: Hex }>,
  ready: () => Promise<Refusal | null> = async () => null,
): Promise<{ hash: Hex } | Refusal> {
  let busy: DomainError | null = null;
  let refused: Refusal | null = null;
  const done = await poll(
    async () => {
      if (busy) refused = await ready();
      if (refused) return refused;
      try {
        return await send();
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== "HOLD_BUSY") throw error;
        busy = error;
        await deps.operator.follow?.();
        return null;
      }
    },
    deps.waitMs,
    deps.pollMs,
  ).catch((error: unknown) => {
    if (!(error instanceof DomainError)) throw error;
    return error;
  });
  if (refused) return refused;
  const error = done instanceof DomainError ? done : done ? null : busy;
  if (!error) return done as { hash: Hex };
  const message = `the escrow call cannot be sent now (${error.code}${error.detail ? `: ${error.detail}` : ""})`;
  return { reason: error.code === "ESCROW_REFUSED" ? AUTH_CAPTURE_REASONS.simulationFailed : X402_REASONS.transactionState, message };
}

async function mined(deps: LifecycleDeps, hash: Hex): Promise<TransactionReceipt | Refusal> {
  const receipt = await poll(() => readReceipt(deps.client, hash), deps.waitMs, deps.pollMs);
  if (!receipt) return { reason: X402_REASONS.transactionState, message: `the escrow call ${hash} is not mined yet: it is followed; ask again` };
  if (receipt.status !== "success") return { reason: AUTH_CAPTURE_REASONS.transactionReverted, message: `the escrow call ${hash} reverted on chain` };
  const held = await agreeOnReceipt("x402_auth_capture_success", deps.client, MINED, receipt);
  return held ?? { reason: X402_REASONS.transactionState, message: "the escrow call is not held mined by a majority of the chain's nodes: ask again" };
}

function namesPayment(log: { data: Hex; topics: [Hex, ...Hex[]] | [] }, eventName: string, paymentHash: Hex): boolean {
  const event = decodeEscrowEvent(log as never);
  return event?.eventName === eventName && (event.args as { paymentInfoHash: Hex }).paymentInfoHash === paymentHash;
}
