import type { Address, Hex } from "viem";
import type { FinalizeSubscriptionResponse, ResolveSubscriptionResponse } from "../wire/index.js";

/** What links need of webhooks (the composition root passes the webhooks module; links never import it). */
export interface LinkWatches {
  validate(notifyUrl: string): void;
  watchLink(linkId: Hex, notifyUrl: string, caller: string, expiresAt: number, included?: boolean): Promise<boolean>;
  endLink(linkId: Hex): Promise<void>;
  /** The merchant removed a subscriber: its watch ends and its place is free. */
  endLinkSubscriber(linkId: Hex, subscriptionId: Hex): Promise<void>;
  /** A payer subscribed through the link and its first charge settled: announce subscription.created and watch its charges and revocation, with the link id. */
  subscribedThroughLink(s: { linkId: Hex; subscriptionId: Hex; payer: Address; end: bigint; notifyUrl: string; caller: string }): Promise<boolean>;
}

/**
 * What subscription links need of subscriptions (the composition root passes them; links come
 * before recurring and never import it).
 */
export interface LinkSubscriptions {
  checkTerms(terms: { recipient: Address; amountUnits: bigint; period: number; end: number }): Promise<{ recipient: Address }>;
  resolveThroughLink(link: {
    linkId: Hex;
    recipient: Address;
    amountUnits: bigint;
    period: number;
    end: number;
    returnUrl?: string;
  }): Promise<ResolveSubscriptionResponse & { setup_token: string; link_id: Hex }>;
  finalizeThroughLink(input: {
    setupToken: string;
    payer: Address;
    signature: Hex;
  }): Promise<{ linkId: Hex; subscriptionId: Hex; terms: { payer: Address; amount: bigint; end: bigint }; answer: FinalizeSubscriptionResponse }>;
  /** INSUFFICIENT_ALLOWANCE / INSUFFICIENT_BALANCE unless the payer's allowance and balance cover the first charge. */
  checkFirstChargeFunds(terms: { payer: Address; amount: bigint }): Promise<void>;
  /** The signed terms a kept capability carries (read locally, nothing asked of the chain). */
  termsOf(capability: string): { end: bigint };
  /** Whether a charge transaction of this subscription is recorded and not known refused: it may still be mined. */
  firstChargeSent(capability: string): Promise<boolean>;
  /**
   * Charges (or follows the charge of) the period due with the service's relayer, as POST /v1/charges
   * does: settled once that charge is final; a DomainError when it is refused.
   */
  chargeFirst(capability: string): Promise<{ settled: boolean }>;
  /**
   * The service's own charge of this period, seen final in a majority's `Charged` log, taken as
   * reported (as {@link chargeFirst} takes it when its answer settles it): a later POST /v1/charges
   * for the period answers ALREADY_CHARGED, never CHARGED for a charge the service made.
   */
  firstChargeReported(capability: string, period: bigint): Promise<void>;
}
