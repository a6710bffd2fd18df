/**
 * The resource server's half of x402's `auth-capture` scheme (EVM binding v1.1), for `@x402/express`'s
 * (or any x402 v2) `x402ResourceServer`: register it for the network, and a route priced `"$0.10"`
 * with `scheme: "auth-capture"` asks for an ERC-3009 authorization into Commerce Payments' escrow, on
 * the terms this service's facilitator lists at `{base_url}/x402/supported` (its escrow, itself as the
 * `"delegated"` operator, its fee collector and fee).
 *
 * With an `authorizer` (the merchant's key, or an ERC-1271 contract such as a Safe) the server is the
 * route's receiver authorizer and signs every consent the client did not give:
 * - `paymentFlow: "escrow"` (default): authorized before the handler; in `"sync"` mode the settle
 *   after it captures what the handler used (its `Settlement-Overrides` header, e.g. `{"amount":"$0.06"}`;
 *   the whole amount without one) and voids the rest; in `"deferred"` mode the payment is handed to
 *   `onAuthorized` to keep, and the merchant captures or voids later with {@link capture} and {@link void}.
 * - `paymentFlow: "authorization"`: one `charge` after the handler, of what it used.
 * Without one the route is collect-only: authorized, then captured or voided through /v1/holds with
 * the `ho` capability handed to `onAuthorized` (never to the buyer).
 * Structurally typed: no dependency on x402's packages.
 */
import {
  captureTypedData,
  chargeTypedData,
  keccakHex,
  paymentInfoHash,
  voidTypedData,
  type AuthorizerTypedData,
  type WirePaymentInfo,
} from "./x402-auth-capture-consent.js";

export type { AuthorizerTypedData, WirePaymentInfo };

/** x402's `PaymentRequirements`, as much of it as this scheme reads and writes. */
export interface AuthCaptureRequirements {
  scheme: string;
  /** CAIP-2, e.g. `eip155:8453`. */
  network: `${string}:${string}`;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

/** A collect-only payment's hold, as the facilitator's settle answer carries it: capture or void it through /v1/holds. */
export interface SettledHold {
  /** The escrow's name for the payment (its `getHash`). */
  payment_hash: string;
  /** The hold's id in /v1/holds and its events. */
  hold_id: string;
  /** Kind `ho`: the merchant's capability for /v1/holds/capture, /void, /refund and /state. Keep it secret. */
  hold: string;
  /** Unix seconds: capture strictly before it. */
  capture_before: number;
  refund_before: number;
}

/** The receiver authorizer: its address (an EOA, or an ERC-1271 contract) and how it signs EIP-712 typed data. */
export interface ReceiverAuthorizer {
  address: string;
  signTypedData(typed: AuthorizerTypedData): Promise<string>;
}

/**
 * An authorized payment, as the binding says a deferred server must keep it: `paymentInfo`, with the
 * client's `saltNonce` (the route binds the authorizer), the requirements the client accepted, and the
 * escrow's balances as this server last left them. A collect-only one carries its `hold` instead.
 */
export interface AuthorizedPayment {
  paymentInfo: WirePaymentInfo;
  saltNonce?: string;
  requirements: AuthCaptureRequirements;
  payer?: string;
  transaction: string;
  capturableAmount: string;
  refundableAmount: string;
  hold?: SettledHold;
}

export interface AuthCaptureServerOptions {
  /** The receiver authorizer; without one every route is collect-only (escrow, deferred, finalized through /v1/holds). */
  authorizer?: ReceiverAuthorizer;
  /** The flow of every route of this scheme (a route's `extra.paymentFlow` decides for itself when set); default "escrow". */
  paymentFlow?: "escrow" | "authorization";
  /** When an escrow route finalizes (a route's `extra.captureMode` decides for itself); default "sync" with an authorizer. */
  captureMode?: "sync" | "deferred";
  /** Receives each deferred or collect-only payment once authorized: keep it to capture or void later. */
  onAuthorized?: (payment: AuthorizedPayment) => void | Promise<void>;
  /** How long after the payment's window it may be captured (captureDeadline); default one day when deferred, ten minutes otherwise. */
  captureWithinSeconds?: number;
  /** How long after the capture deadline the escrow's refund window lasts (refundDeadline); default 0. */
  refundWithinSeconds?: number;
  /** Unix milliseconds; Date.now by default. */
  now?: () => number;
}

/** What settles a lifecycle payload: x402's `HTTPFacilitatorClient` pointed at the facilitator, or anything with its `settle`. */
export interface LifecycleFacilitator {
  settle(paymentPayload: unknown, paymentRequirements: never): Promise<{ success: boolean; transaction: string; errorReason?: string; amount?: string }>;
}

type Payload = Record<string, unknown> & {
  authorization?: { from: string; to: string; value: string; validBefore: string };
  signature?: string;
  salt?: string;
  saltNonce?: string;
};
interface SettleContext {
  paymentPayload: { accepted?: AuthCaptureRequirements; payload: Payload };
  requirements: AuthCaptureRequirements;
  phase?: "before-handler" | "after-handler" | "cancel";
}
interface SettledContext extends SettleContext {
  result: { success: boolean; payer?: string; transaction: string; network: `${string}:${string}`; extra?: Record<string, unknown> };
}
interface VerifyContext {
  paymentPayload: { accepted?: AuthCaptureRequirements };
  requirements: AuthCaptureRequirements;
}

/** The most an accepted deadline may lag this server's own (clocks apart), in seconds. */
const CLOCK_SLACK_SECONDS = 5;
const USDC_DECIMALS = 6;
const FROM_FACILITATOR = ["authCaptureEscrow", "captureAuthorizer", "feeRecipient", "minFeeBps", "maxFeeBps", "name", "version"] as const;

/** x402's `auth-capture` server scheme (`SchemeNetworkServer`), on this service's facilitator's terms. */
export class AuthCaptureServerScheme {
  readonly scheme = "auth-capture";
  readonly defaultAssetTransferMethod = "eip3009";
  readonly paymentFlows = { eip3009: { supported: ["escrow", "authorization"], default: "escrow" } } as const;
  /** Written per 402 from the clock: the paid retry's are checked against it and kept (see onBeforeVerify). */
  readonly dynamicExtraFields = ["captureDeadline", "refundDeadline"];
  readonly schemeHooks: {
    onBeforeVerify: (context: VerifyContext) => Promise<undefined | { abort: true; reason: string; message?: string }>;
    onBeforeSettle: (context: SettleContext) => Promise<undefined | { skip: true; result: SettledContext["result"] }>;
    onAfterSettle: (context: SettledContext) => Promise<void>;
  };
  /** Each escrow payment's authorize answer, by its payload: the answer of a deferred route's after-handler settle, which sends nothing. */
  readonly #authorized = new WeakMap<object, SettledContext["result"]>();

  constructor(private readonly options: AuthCaptureServerOptions = {}) {
    this.schemeHooks = {
      onBeforeVerify: async (context) => this.#keepAcceptedDeadlines(context),
      onBeforeSettle: async (context) => this.#skipDeferred(context),
      onAfterSettle: async (context) => this.#afterSettle(context),
    };
  }

  /** A price in USDC: `"$0.01"`, `"0.01"`, `0.01`, or `{ amount, asset }` in micro-units. */
  async parsePrice(price: unknown, network: string): Promise<{ amount: string; asset: string; extra?: Record<string, unknown> }> {
    if (typeof price === "object" && price !== null && "amount" in price) {
      const p = price as { amount: string; asset?: string; extra?: Record<string, unknown> };
      return { amount: p.amount, asset: p.asset ?? "", extra: p.extra ?? {} };
    }
    if (typeof price !== "string" && typeof price !== "number") throw new Error(`auth-capture: a price must be USDC, like "$0.01" (on ${network})`);
    return { amount: microUnits(String(price)), asset: "" };
  }

  getAssetDecimals(): number {
    return USDC_DECIMALS;
  }

  /** The requirements on the facilitator's terms, the route's flow, finalize mode and receiver authorizer written out, and the deadlines from now. */
  async enhancePaymentRequirements(
    requirements: AuthCaptureRequirements,
    supportedKind: { extra?: Record<string, unknown> },
    _facilitatorExtensions: string[],
  ): Promise<AuthCaptureRequirements> {
    const terms = supportedKind.extra ?? {};
    for (const key of FROM_FACILITATOR) {
      if (terms[key] === undefined) throw new Error(`auth-capture: the facilitator's /supported names no ${key}: is it this service's facilitator?`);
    }
    const extra = requirements.extra ?? {};
    const paymentFlow = (extra.paymentFlow as string | undefined) ?? this.options.paymentFlow ?? "escrow";
    const authorizer = this.options.authorizer;
    if (paymentFlow === "authorization" && !authorizer) throw new Error("auth-capture: a charge needs the merchant's consent: give the scheme an authorizer");
    const captureMode = authorizer ? ((extra.captureMode as string | undefined) ?? this.options.captureMode ?? "sync") : "deferred";
    if (paymentFlow === "escrow" && captureMode === "deferred" && !this.options.onAuthorized) {
      throw new Error("auth-capture: a deferred or collect-only route needs onAuthorized to keep each payment");
    }
    const asset = requirements.asset || String(terms.asset ?? "");
    if (!asset) throw new Error("auth-capture: the facilitator's /supported names no asset");
    const picked = Object.fromEntries(FROM_FACILITATOR.map((key) => [key, terms[key]]));
    const route = {
      paymentFlow,
      ...(paymentFlow === "escrow" ? { captureMode } : {}),
      ...(authorizer ? { receiverAuthorizer: authorizer.address } : {}),
    };
    const deadlines = this.#deadlines(this.#nowSeconds(), requirements.maxTimeoutSeconds, captureMode === "deferred");
    return { ...requirements, asset, extra: { ...extra, ...picked, ...route, ...deadlines } };
  }

  /**
   * The server's additions to the client's payload before a settle (additive, as @x402/core requires):
   * after the handler, a charge's four completion fields, or a sync escrow's capture of what the
   * handler used (with the void of the rest) or its void when it used nothing; on a failed handler, the void.
   */
  readonly enrichSettlementPayload = (context: SettleContext): Promise<Record<string, unknown> | undefined> => this.#enrich(context);

  async #enrich(context: SettleContext): Promise<Record<string, unknown> | undefined> {
    const authorizer = this.options.authorizer;
    const payload = context.paymentPayload.payload;
    const extra = context.requirements.extra ?? {};
    if (!authorizer || context.phase === "before-handler" || !payload.authorization || "type" in payload) return undefined;
    const info = paymentInfoOf(context.requirements, payload);
    const chainId = chainIdOf(context.requirements.network);
    const hash = paymentInfoHash(info, chainId, String(extra.authCaptureEscrow));
    const sign = (typed: AuthorizerTypedData) => authorizer.signTypedData(typed);
    const voided = async () => ({ type: "void", paymentInfo: info, authorizerSignature: await sign(voidTypedData(chainId, info.operator, hash)) });
    if (context.phase === "cancel") return extra.paymentFlow === "escrow" ? voided() : undefined;
    const amount = context.requirements.amount;
    const fee = { feeAmount: feeOf(amount, Number(extra.minFeeBps)), feeReceiver: String(extra.feeRecipient) };
    if (extra.paymentFlow === "authorization") {
      const consent = {
        paymentInfoHash: hash,
        amount,
        tokenCollector: payload.authorization.to,
        collectorDataHash: keccakHex(String(payload.signature)),
        ...fee,
      };
      return { amount, ...fee, authorizerSignature: await sign(chargeTypedData(chainId, info.operator, consent)) };
    }
    if (extra.captureMode === "deferred") return undefined;
    if (BigInt(amount) === 0n) return voided();
    const capture = await this.#captureFields(info, hash, chainId, amount, { capturableAmount: info.maxAmount, refundableAmount: "0" });
    return BigInt(amount) < BigInt(info.maxAmount) ? { ...capture, voidAuthorizerSignature: (await voided()).authorizerSignature } : capture;
  }

  /** A failed handler after the authorize: the hold is voided (escrow routes this server authorizes for). */
  readonly settleOnCancel = async (context: { requirements: AuthCaptureRequirements }): Promise<AuthCaptureRequirements | undefined> => {
    const extra = context.requirements.extra ?? {};
    return this.options.authorizer && extra.paymentFlow === "escrow" && extra.captureMode !== "deferred" ? context.requirements : undefined;
  };

  /** A deferred payment's capture of `amount` (micro-units), against the balances `payment` records; `voidRemainder` voids what is left in the same settle. */
  async capture(
    payment: AuthorizedPayment,
    amount: string,
    facilitator: LifecycleFacilitator,
    o: { voidRemainder?: boolean } = {},
  ): Promise<AuthorizedPayment> {
    const chainId = chainIdOf(payment.requirements.network);
    const hash = paymentInfoHash(payment.paymentInfo, chainId, String(payment.requirements.extra.authCaptureEscrow));
    const fields = await this.#captureFields(payment.paymentInfo, hash, chainId, amount, payment);
    const voidSignature = o.voidRemainder ? await this.#signer().signTypedData(voidTypedData(chainId, payment.paymentInfo.operator, hash)) : undefined;
    await this.#settle(facilitator, payment, { ...fields, saltNonce: payment.saltNonce, ...(voidSignature ? { voidAuthorizerSignature: voidSignature } : {}) });
    const capturable = o.voidRemainder ? 0n : BigInt(payment.capturableAmount) - BigInt(amount);
    return { ...payment, capturableAmount: capturable.toString(), refundableAmount: (BigInt(payment.refundableAmount) + BigInt(amount)).toString() };
  }

  /** A deferred payment's void: everything still authorized back to the payer. */
  async void(payment: AuthorizedPayment, facilitator: LifecycleFacilitator): Promise<AuthorizedPayment> {
    const chainId = chainIdOf(payment.requirements.network);
    const hash = paymentInfoHash(payment.paymentInfo, chainId, String(payment.requirements.extra.authCaptureEscrow));
    const signature = await this.#signer().signTypedData(voidTypedData(chainId, payment.paymentInfo.operator, hash));
    await this.#settle(facilitator, payment, { type: "void", paymentInfo: payment.paymentInfo, saltNonce: payment.saltNonce, authorizerSignature: signature });
    return { ...payment, capturableAmount: "0" };
  }

  async #settle(facilitator: LifecycleFacilitator, payment: AuthorizedPayment, payload: Record<string, unknown>): Promise<void> {
    const answer = await facilitator.settle({ x402Version: 2, accepted: payment.requirements, payload }, payment.requirements as never);
    if (!answer.success) throw new Error(`auth-capture: the facilitator refused the ${String(payload.type)} (${answer.errorReason ?? "no reason"})`);
  }

  #signer(): ReceiverAuthorizer {
    if (!this.options.authorizer) throw new Error("auth-capture: a collect-only payment is captured through /v1/holds with its ho, not here");
    return this.options.authorizer;
  }

  async #captureFields(
    info: WirePaymentInfo,
    hash: `0x${string}`,
    chainId: number,
    amount: string,
    balances: { capturableAmount: string; refundableAmount: string },
  ) {
    const consent = {
      paymentInfoHash: hash,
      amount,
      feeAmount: feeOf(amount, info.maxFeeBps),
      feeReceiver: info.feeReceiver,
      expectedCapturableAmount: balances.capturableAmount,
      expectedRefundableAmount: balances.refundableAmount,
    };
    const authorizerSignature = await this.#signer().signTypedData(captureTypedData(chainId, info.operator, consent));
    const { paymentInfoHash: _, ...fields } = consent;
    return { type: "capture", paymentInfo: info, ...fields, authorizerSignature };
  }

  /** A deferred (or collect-only) escrow route sends nothing after the handler: the authorize's answer stands. */
  #skipDeferred(context: SettleContext): undefined | { skip: true; result: SettledContext["result"] } {
    const extra = context.requirements.extra ?? {};
    if (context.phase !== "after-handler" || extra.paymentFlow !== "escrow" || extra.captureMode !== "deferred") return undefined;
    const prior = this.#authorized.get(context.paymentPayload);
    return prior ? { skip: true, result: prior } : undefined;
  }

  /** After the authorize: the hold taken out of the answer (it becomes the buyer's PAYMENT-RESPONSE), and a deferred payment handed to onAuthorized. */
  async #afterSettle(context: SettledContext): Promise<void> {
    const extra = context.requirements.extra ?? {};
    const payload = context.paymentPayload.payload;
    if (context.phase !== "before-handler" || !context.result.success || extra.paymentFlow !== "escrow" || !payload.authorization) return;
    const hold = context.result.extra?.hold as SettledHold | undefined;
    if (hold) {
      const { hold: _taken, ...rest } = context.result.extra!;
      if (Object.keys(rest).length > 0) context.result.extra = rest;
      else delete context.result.extra;
    }
    this.#authorized.set(context.paymentPayload, context.result);
    if (extra.captureMode !== "deferred") return;
    const info = paymentInfoOf(context.requirements, payload);
    await this.options.onAuthorized?.({
      paymentInfo: info,
      ...(payload.saltNonce ? { saltNonce: payload.saltNonce } : {}),
      requirements: context.paymentPayload.accepted ?? context.requirements,
      ...(context.result.payer ? { payer: context.result.payer } : {}),
      transaction: context.result.transaction,
      capturableAmount: info.maxAmount,
      refundableAmount: "0",
      ...(hold ? { hold } : {}),
    });
  }

  /**
   * The paid retry's requirements are rebuilt with this moment's deadlines; the agent signed the
   * ones of its 402. Those are kept when this server could have written them (within the payment's
   * window, the same refund window), so that the facilitator rebuilds the terms the agent signed.
   */
  #keepAcceptedDeadlines(context: VerifyContext): undefined | { abort: true; reason: string; message?: string } {
    const accepted = context.paymentPayload.accepted?.extra ?? {};
    const extra = context.requirements.extra ?? {};
    const { captureDeadline, refundDeadline } = accepted as { captureDeadline?: unknown; refundDeadline?: unknown };
    if (typeof captureDeadline !== "number" || typeof refundDeadline !== "number") return undefined;
    const { maxTimeoutSeconds } = context.requirements;
    const deferred = extra.captureMode === "deferred";
    const now = this.#nowSeconds();
    const latest = this.#deadlines(now + CLOCK_SLACK_SECONDS, maxTimeoutSeconds, deferred);
    const earliest = this.#deadlines(now - maxTimeoutSeconds - CLOCK_SLACK_SECONDS, maxTimeoutSeconds, deferred);
    const window = latest.refundDeadline - latest.captureDeadline;
    if (captureDeadline < earliest.captureDeadline || captureDeadline > latest.captureDeadline || refundDeadline - captureDeadline !== window) {
      return { abort: true, reason: "invalid_auth_capture_evm_deadline_ordering", message: "the payment's deadlines are not this resource's" };
    }
    context.requirements.extra = { ...extra, captureDeadline, refundDeadline };
    return undefined;
  }

  #deadlines(nowSeconds: number, maxTimeoutSeconds: number, deferred: boolean): { captureDeadline: number; refundDeadline: number } {
    const within = this.options.captureWithinSeconds ?? (deferred ? 86_400 : 600);
    const captureDeadline = nowSeconds + maxTimeoutSeconds + within;
    return { captureDeadline, refundDeadline: captureDeadline + (this.options.refundWithinSeconds ?? 0) };
  }

  #nowSeconds(): number {
    return Math.floor((this.options.now ?? Date.now)() / 1000);
  }
}

/** The payment's `PaymentInfo`, rebuilt from the requirements and the client's authorization (its value is the ceiling: a settle's requirements may carry a lower amount). */
function paymentInfoOf(requirements: AuthCaptureRequirements, payload: Payload): WirePaymentInfo {
  const extra = requirements.extra;
  const a = payload.authorization!;
  return {
    operator: String(extra.captureAuthorizer),
    payer: a.from,
    receiver: requirements.payTo,
    token: requirements.asset,
    maxAmount: a.value,
    preApprovalExpiry: Number(a.validBefore),
    authorizationExpiry: Number(extra.captureDeadline),
    refundExpiry: Number(extra.refundDeadline),
    minFeeBps: Number(extra.minFeeBps),
    maxFeeBps: Number(extra.maxFeeBps),
    feeReceiver: String(extra.feeRecipient),
    salt: String(payload.salt),
  };
}

/** The fee the equal bounds fix on `amount`: floor(amount × bps / 10,000), as the escrow computes its bounds. */
function feeOf(amount: string, bps: number): string {
  return ((BigInt(amount) * BigInt(bps)) / 10_000n).toString();
}

function chainIdOf(network: string): number {
  return Number(network.split(":")[1]);
}

/** "$0.01", "0.01" → "10000": USDC's micro-units, by string (never a float). */
function microUnits(price: string): string {
  const match = /^\$?\s*([0-9]+)(?:\.([0-9]{1,6}))?$/.exec(price.trim());
  if (!match) throw new Error(`auth-capture: "${price}" is not a USDC amount (at most 6 decimals, e.g. "$0.01")`);
  const units = BigInt(match[1]!) * 10n ** BigInt(USDC_DECIMALS) + BigInt((match[2] ?? "").padEnd(USDC_DECIMALS, "0"));
  if (units === 0n) throw new Error("auth-capture: a price must be above zero");
  return units.toString();
}
