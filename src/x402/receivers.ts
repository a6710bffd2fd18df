import type { Address } from "viem";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import type { LiveDeployment } from "../deployments.js";
import { checkRecipient } from "../rules/recipient.js";
import type { X402ReceiverRecord } from "../store/x402-receivers.js";
import type { X402ReceiverResponse } from "../wire/index.js";
import type { PaymentChain } from "../payments/verify.js";

export interface ReceiverDirectoryDeps {
  chain: PaymentChain & { deployment: LiveDeployment };
  store: { add(r: X402ReceiverRecord, nowMs: number): Promise<void> };
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * POST /v1/x402/receivers: a merchant's receiver, derived (CREATE2 of X402Receivers for the recipient
 * and USDC), deterministic, no capability (an address is not a secret). The service keeps one row per
 * receiver (written once, whatever the number of calls) so its facilitator knows the receiver's
 * recipient and its splitter looks at it once funds arrive; nothing is written per x402 request. A
 * receiver never funded is forgotten after X402_RECEIVER_IDLE_SECONDS: asking again restores it.
 */
export class ReceiverDirectory {
  constructor(private readonly deps: ReceiverDirectoryDeps) {}

  async describe(recipient: Address): Promise<X402ReceiverResponse> {
    const { deployment } = this.deps.chain;
    const checked = checkRecipient(deployment, recipient);
    const token = deployment.token.address;
    const receiver = await X402ReceiversReader.of(this.deps.chain).receiverOf(checked, token);
    await this.deps.store.add({ receiver, recipient: checked, token }, this.deps.now());
    return {
      pay_to: receiver,
      recipient: checked,
      token,
      network: `eip155:${deployment.chainId}`,
      fee_bps: deployment.parameters.feeBps,
    };
  }
}
