import { getAddress, isAddressEqual, toHex, zeroAddress, type Address, type Hex } from "viem";
import { splitterAbi } from "../generated/contracts.js";
import { ServiceError } from "../errors.js";
import { formatAmount } from "../money.js";
import { rpc } from "../chain/rpc-errors.js";
import type { CapabilityTokens } from "../tokens/capability.js";
import type { ConcurrencyGate, FixedWindowLimiter } from "../limits/rate-limiter.js";
import { notifyUrlProblem } from "../webhooks/notify-url.js";
import { mintIntent, readIntent, type Intent } from "./intent.js";
import { recoverPayment, type RecoverResult } from "./recover.js";
import { verifyPaymentTransaction, type PaymentChain, type PaymentVerdict } from "./verify.js";

export interface PaymentsDeps {
  chain: PaymentChain;
  tokens: CapabilityTokens;
  limits: { minUnits: bigint; maxUnits: bigint; intentTtlSeconds: number };
  /** Milliseconds since the epoch. */
  now: () => number;
  randomBytes: (size: number) => Uint8Array;
  /** Recovery: per-intent limit and low-priority gate. */
  recoverPerIntent: FixedWindowLimiter;
  recoverGate: ConcurrencyGate;
  /** Webhooks: whether the deployment has them, and the watch registrar (returns false past the caps). */
  webhooks: { enabled: boolean; watchPayment?: (intent: Intent, notifyUrl: string) => Promise<boolean> };
}

export interface CreatedPayment {
  intent: string;
  reference: Hex;
  amount: string;
  expires_at: number;
  pay: { chain_id: number; splitter: Address; token: Address; recipient: Address; amount_units: string; reference: Hex };
  notify_url?: string;
}

export interface ResolvedPayment {
  recipient: Address;
  amount: string;
  amount_units: string;
  token: Address;
  splitter: Address;
  chain_id: number;
  reference: Hex;
  expires_at: number;
}

/** One-time payments: create an intent, resolve it for the checkout, verify and recover its payment. */
export class Payments {
  constructor(private readonly deps: PaymentsDeps) {}

  /** Mints an intent for one payment of `amountUnits` to `recipient`, with a fresh 32-byte reference. */
  async create(input: { recipient: Address; amountUnits: bigint; notifyUrl?: string; linkId?: Hex; reference?: Hex }): Promise<CreatedPayment> {
    this.#checkBounds(input.amountUnits);
    const recipient = getAddress(input.recipient);
    if (isAddressEqual(recipient, zeroAddress)) throw new ServiceError("INVALID_REQUEST", { detail: "recipient is the zero address" });
    const intent: Intent = {
      recipient,
      amountUnits: input.amountUnits,
      reference: input.reference ?? toHex(this.deps.randomBytes(32)),
      expiresAt: Math.floor(this.deps.now() / 1000) + this.deps.limits.intentTtlSeconds,
      ...(input.linkId ? { linkId: input.linkId } : {}),
    };
    const accepted = input.notifyUrl === undefined ? false : await this.#watch(intent, input.notifyUrl);
    const { deployment } = this.deps.chain;
    return {
      intent: mintIntent(this.deps.tokens, intent),
      reference: intent.reference,
      amount: formatAmount(intent.amountUnits),
      expires_at: intent.expiresAt,
      pay: {
        chain_id: deployment.chainId,
        splitter: deployment.contracts.Splitter.address,
        token: deployment.token.address,
        recipient: intent.recipient,
        amount_units: intent.amountUnits.toString(),
        reference: intent.reference,
      },
      ...(accepted ? { notify_url: input.notifyUrl! } : {}),
    };
  }

  /**
   * What the checkout needs to pay an intent. The only place expiry is enforced; a reference that
   * already settled answers PAYMENT_ALREADY_PROCESSED (nothing is owed), even after expiry.
   */
  async resolve(token: string): Promise<ResolvedPayment> {
    const intent = this.#intent(token);
    const { client, deployment } = this.deps.chain;
    const settledBlock = await rpc(() =>
      client.readContract({ address: deployment.contracts.Splitter.address, abi: splitterAbi, functionName: "settledBlock", args: [intent.reference] }),
    );
    if (settledBlock !== 0n) throw new ServiceError("PAYMENT_ALREADY_PROCESSED");
    if (Math.floor(this.deps.now() / 1000) >= intent.expiresAt) throw new ServiceError("INTENT_EXPIRED");
    this.#checkBounds(intent.amountUnits);
    return {
      recipient: intent.recipient,
      amount: formatAmount(intent.amountUnits),
      amount_units: intent.amountUnits.toString(),
      token: deployment.token.address,
      splitter: deployment.contracts.Splitter.address,
      chain_id: deployment.chainId,
      reference: intent.reference,
      expires_at: intent.expiresAt,
    };
  }

  /** Verifies a transaction against the intent (expiry ignored). */
  verify(token: string, txHash: Hex): Promise<PaymentVerdict> {
    return verifyPaymentTransaction(this.deps.chain, this.#intent(token), txHash);
  }

  /** Finds the intent's payment without a hash; limited per intent and run at low priority. */
  async recover(token: string): Promise<RecoverResult> {
    const intent = this.#intent(token);
    const limited = this.deps.recoverPerIntent.hit(intent.reference);
    if (!limited.allowed) throw new ServiceError("RATE_LIMITED", { retryAfter: limited.retryAfterSeconds });
    const result = await this.deps.recoverGate.run(() => recoverPayment(this.deps.chain, intent));
    if (!result) throw new ServiceError("RECOVERY_UNAVAILABLE", { detail: "recovery queue full" });
    return result.value;
  }

  /** Refuses a notify_url the deployment or the rules do not allow; false when past the watch caps. */
  async #watch(intent: Intent, notifyUrl: string): Promise<boolean> {
    const { enabled, watchPayment } = this.deps.webhooks;
    if (!enabled) throw new ServiceError("INVALID_REQUEST", { detail: "webhooks are disabled in this deployment" });
    const problem = notifyUrlProblem(notifyUrl);
    if (problem) throw new ServiceError("INVALID_REQUEST", { detail: `notify_url: ${problem}` });
    return watchPayment ? watchPayment(intent, notifyUrl) : false;
  }

  #intent(token: string): Intent {
    const intent = readIntent(this.deps.tokens, token);
    if (!intent) throw new ServiceError("INVALID_INTENT");
    return intent;
  }

  #checkBounds(units: bigint): void {
    if (units < this.deps.limits.minUnits || units > this.deps.limits.maxUnits) throw new ServiceError("AMOUNT_OUT_OF_BOUNDS");
  }
}
