import type { Address, Hex } from "viem";
import { DomainError } from "../errors.js";
import { TOKEN_KINDS } from "../tokens/capability.js";
import { CapabilityTokens } from "../tokens/capability.js";
import { subscriptionIdOf, subscriptionIdOfWords, type Terms } from "./terms.js";
import type { RecurringTokens, SignedSubscription } from "./tokens.js";

/**
 * Reads the subscription capability (and the cancel token that stands for it in a browser) for
 * every module that acts on a subscription: charges, charge recovery, sessions, state and refunds.
 */
export class SubscriptionCapabilities {
  constructor(
    private readonly tokens: RecurringTokens,
    private readonly chainId: number,
    private readonly contract: Address,
    /** Milliseconds since the epoch. */
    private readonly now: () => number,
  ) {}

  /** The subscription id: the EIP-712 digest of the terms, as RecurringCharges computes it. */
  subscriptionId(terms: Terms): Hex {
    return subscriptionIdOf(this.chainId, this.contract, terms);
  }

  /** The same id from the terms' ABI words (charge-encoding.ts), which a charge computes once for every use. */
  subscriptionIdOfWords(words: string): Hex {
    return subscriptionIdOfWords(this.chainId, this.contract, words);
  }

  /** The signed subscription a capability carries, or INVALID_SUBSCRIPTION. */
  read(token: string): SignedSubscription {
    const signed = this.tokens.readSubscription(token);
    if (!signed) throw new DomainError("INVALID_SUBSCRIPTION");
    return signed;
  }

  /**
   * The terms of a capability or of a live cancel token (cancel errors when it is one): a cancel
   * token past its expiry is CANCEL_TOKEN_EXPIRED everywhere it is accepted.
   */
  readOrCancel(token: string): Terms {
    const signed = this.tokens.readSubscription(token);
    if (signed) return signed.terms;
    if (CapabilityTokens.kindOf(token) !== TOKEN_KINDS.cancel) throw new DomainError("INVALID_SUBSCRIPTION");
    const cancel = this.tokens.readCancel(token);
    if (!cancel) throw new DomainError("INVALID_CANCEL_TOKEN");
    if (Math.floor(this.now() / 1000) >= cancel.expiresAt) throw new DomainError("CANCEL_TOKEN_EXPIRED");
    return cancel.terms;
  }
}
