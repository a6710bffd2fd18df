import type { Address } from "viem";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import { checkRecipient } from "../rules/recipient.js";
import type { ReceiverAdded, UnfundedPlaces, X402ReceiverRecord } from "../store/x402-receivers.js";
import type { X402ReceiverResponse } from "../wire/index.js";
import type { PaymentChain } from "../payments/verify.js";

export interface ReceiverDirectoryDeps {
  chain: PaymentChain & { deployment: LiveDeployment };
  store: { add(r: X402ReceiverRecord, nowMs: number, places: UnfundedPlaces): Promise<ReceiverAdded> };
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Receivers nobody funded yet one caller may hold at once (X402_UNFUNDED_RECEIVERS_PER_CALLER). */
  unfundedPerCaller: number;
  /** How long a receiver nobody funded is kept after it was last asked for (X402_RECEIVER_IDLE_SECONDS, in ms). */
  idleMs: number;
}

/**
 * POST /v1/x402/receivers: a merchant's receiver, derived (CREATE2 of X402Receivers for the recipient
 * and USDC), deterministic, no capability (an address is not a secret). The service keeps one row per
 * receiver (written once, whatever the number of calls) so its facilitator knows the receiver's
 * recipient and its splitter looks at it once funds arrive; nothing is written per x402 request. A
 * receiver never funded is forgotten after X402_RECEIVER_IDLE_SECONDS (asking again restores it), and
 * a caller holds at most X402_UNFUNDED_RECEIVERS_PER_CALLER of them: what a stranger's random
 * recipients cost is bounded per caller.
 */
export class ReceiverDirectory {
  constructor(private readonly deps: ReceiverDirectoryDeps) {}

  /** The receiver of `recipient`, recorded for `caller` (as the rate limits tell callers apart). */
  async describe(recipient: Address, caller: string): Promise<X402ReceiverResponse> {
    const { deployment } = this.deps.chain;
    const checked = checkRecipient(deployment, recipient);
    const token = deployment.token.address;
    const receiver = await X402ReceiversReader.of(this.deps.chain).receiverOf(checked, token);
    const now = this.deps.now();
    const added = await this.deps.store.add({ receiver, recipient: checked, token }, now, {
      caller,
      max: this.deps.unfundedPerCaller,
      idleMs: this.deps.idleMs,
    });
    if (!added.added) {
      throw new DomainError("RATE_LIMITED", {
        retryAfter: Math.max(1, Math.ceil((added.freeAtMs - now) / 1000)),
        detail: `caller holds ${this.deps.unfundedPerCaller} receivers nobody funded yet`,
      });
    }
    return {
      pay_to: receiver,
      recipient: checked,
      token,
      network: `eip155:${deployment.chainId}`,
      fee_bps: deployment.parameters.feeBps,
    };
  }
}
