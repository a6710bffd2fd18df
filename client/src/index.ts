/**
 * The merchant client: one method per endpoint, typed from the service's OpenAPI document; errors as
 * {@link ApiError} with `error`/`action`/`retryAfter`, {@link ApiConnectionError} when no answer came
 * (failed connections and timeouts are retried with backoff first, for every method),
 * {@link InvalidResponseError} for an answer that is not the service's; `for await` over every paged
 * endpoint; {@link PaymentServiceClient.waitForPayment}; helpers for the verify rules. No
 * dependencies: it needs only `fetch` (Node ≥ 20, browsers, workers).
 *
 * @example
 * const api = new PaymentServiceClient({ baseUrl: "http://127.0.0.1:8787" });
 * const payment = await api.createPayment({ recipient, amount: "12.50" });
 * const verdict = await api.waitForPayment({ intent: payment.intent, tx_hash }, { timeoutMs: 60_000 });
 * if (isPaid(verdict, { reference: payment.reference })) await fulfilOnce(ledger, `${payment.reference}:${tx_hash}`, ship);
 */
import { ApiError } from "./errors.js";
import { paginate } from "./pages.js";
import { DEFAULT_MAX_NETWORK_RETRIES, DEFAULT_TIMEOUT_MS, pause, send, type RequestOptions, type TransportOptions } from "./transport.js";
import type { EventsRequest, LinkSubscriptionsResponse, Operations, EventsResponse, VerifyPaymentResponse } from "./types.js";

export type * from "./types.js";
export { ApiConnectionError, ApiError, InvalidResponseError } from "./errors.js";
export { fulfilOnce } from "./fulfil.js";
export type { FulfilmentLedger } from "./fulfil.js";
export { paginate } from "./pages.js";
export type { Page } from "./pages.js";
export type { RequestOptions } from "./transport.js";
export { acceptedPayTo, x402PaymentAddresses } from "./x402.js";
export { AuthCaptureServerScheme } from "./x402-auth-capture.js";
export type {
  AuthCaptureRequirements,
  AuthCaptureServerOptions,
  AuthorizedPayment,
  AuthorizerTypedData,
  LifecycleFacilitator,
  ReceiverAuthorizer,
  SettledHold,
  WirePaymentInfo,
} from "./x402-auth-capture.js";
export { keccak256, X402_RECEIVER_CODE_HASH, x402ReceiverAddress } from "./x402-receiver.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
export type { VerifyWebhookOptions, WebhookEvent, WebhookPublicKey } from "./webhooks.js";
export type { IssuedPayment, PaymentCreator, X402PaymentAddresses, X402PaymentAddressOptions, X402RequestContext } from "./x402.js";

/** The request body of an operation. */
export type RequestOf<K extends keyof Operations> = Operations[K]["request"];
/** The 200 answer of an operation. */
export type ResponseOf<K extends keyof Operations> = Operations[K]["response"];
/** The error codes an operation can answer. */
export type ErrorOf<K extends keyof Operations> = Operations[K]["error"];

/**
 * Narrows an error thrown by a method to that operation's error codes.
 * @example if (isApiError(e, "charge") && e.error === "NOT_DUE") …
 */
export function isApiError<K extends keyof Operations>(error: unknown, _operation?: K): error is ApiError<ErrorOf<K> & string> {
  return error instanceof ApiError;
}

export interface ClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:8787. */
  baseUrl: string;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
  /** Milliseconds one attempt may take, the answer's body included (default 30,000); per call too. */
  timeoutMs?: number;
  /** How many times a failed connection or a timeout is tried again, with backoff (default 2); per call too. */
  maxNetworkRetries?: number;
  /** Ends every call of this client when aborted (a shutdown). */
  signal?: AbortSignal;
}

/** How {@link PaymentServiceClient.waitForPayment} waits. */
export interface WaitOptions {
  /** Give up after this long, with the last `PAYMENT_CONFIRMING` verdict (default 120,000). */
  timeoutMs?: number;
  /** Between two verify calls while confirming (default 2,000). */
  pollMs?: number;
  signal?: AbortSignal;
}

export class PaymentServiceClient {
  readonly #base: string;
  readonly #transport: TransportOptions;

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/$/, "");
    this.#transport = {
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxNetworkRetries: options.maxNetworkRetries ?? DEFAULT_MAX_NETWORK_RETRIES,
      signal: options.signal,
    };
  }

  #call<K extends keyof Operations>(method: "GET" | "POST", path: Operations[K]["path"], body?: unknown, options?: RequestOptions): Promise<ResponseOf<K>> {
    const init: RequestInit = method === "GET" ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) };
    return send<ResponseOf<K>>(this.#transport, `${this.#base}${path}`, init, options);
  }

  // Service
  health = (o?: RequestOptions) => this.#call<"health">("GET", "/health", {}, o);
  capabilities = (o?: RequestOptions) => this.#call<"capabilities">("POST", "/v1/capabilities", {}, o);
  // Events
  webhookKeys = (o?: RequestOptions) => this.#call<"webhookKeys">("GET", "/v1/webhooks/keys", {}, o);
  listEvents = (b: RequestOf<"listEvents">, o?: RequestOptions) => this.#call<"listEvents">("POST", "/v1/events", b, o);
  // One-time payments
  createPayment = (b: RequestOf<"createPayment">, o?: RequestOptions) => this.#call<"createPayment">("POST", "/v1/payments", b, o);
  resolvePayment = (b: RequestOf<"resolvePayment">, o?: RequestOptions) => this.#call<"resolvePayment">("POST", "/v1/payments/resolve", b, o);
  verifyPayment = (b: RequestOf<"verifyPayment">, o?: RequestOptions) => this.#call<"verifyPayment">("POST", "/v1/payments/verify", b, o);
  recoverPayment = (b: RequestOf<"recoverPayment">, o?: RequestOptions) => this.#call<"recoverPayment">("POST", "/v1/payments/recover", b, o);
  listPayments = (b: RequestOf<"listPayments">, o?: RequestOptions) => this.#call<"listPayments">("POST", "/v1/payments/list", b, o);
  // Links
  createLink = (b: RequestOf<"createLink">, o?: RequestOptions) => this.#call<"createLink">("POST", "/v1/links", b, o);
  closeLink = (b: RequestOf<"closeLink">, o?: RequestOptions) => this.#call<"closeLink">("POST", "/v1/links/close", b, o);
  subscribeLink = (b: RequestOf<"subscribeLink">, o?: RequestOptions) => this.#call<"subscribeLink">("POST", "/v1/links/subscribe", b, o);
  linkSubscriptions = (b: RequestOf<"linkSubscriptions">, o?: RequestOptions) => this.#call<"linkSubscriptions">("POST", "/v1/links/subscriptions", b, o);
  linkSubscriberStates = (b: RequestOf<"linkSubscriberStates">, o?: RequestOptions) =>
    this.#call<"linkSubscriberStates">("POST", "/v1/links/subscribers", b, o);
  removeLinkSubscriber = (b: RequestOf<"removeLinkSubscriber">, o?: RequestOptions) =>
    this.#call<"removeLinkSubscriber">("POST", "/v1/links/subscribers/remove", b, o);
  linkViewToken = (b: RequestOf<"linkViewToken">, o?: RequestOptions) => this.#call<"linkViewToken">("POST", "/v1/links/view-token", b, o);
  // Subscriptions
  createSubscription = (b: RequestOf<"createSubscription">, o?: RequestOptions) => this.#call<"createSubscription">("POST", "/v1/subscriptions", b, o);
  resolveSubscription = (b: RequestOf<"resolveSubscription">, o?: RequestOptions) =>
    this.#call<"resolveSubscription">("POST", "/v1/subscriptions/resolve", b, o);
  finalizeSubscription = (b: RequestOf<"finalizeSubscription">, o?: RequestOptions) =>
    this.#call<"finalizeSubscription">("POST", "/v1/subscriptions/finalize", b, o);
  subscriptionState = (b: RequestOf<"subscriptionState">, o?: RequestOptions) => this.#call<"subscriptionState">("POST", "/v1/subscriptions/state", b, o);
  charge = (b: RequestOf<"charge">, o?: RequestOptions) => this.#call<"charge">("POST", "/v1/charges", b, o);
  recoverCharge = (b: RequestOf<"recoverCharge">, o?: RequestOptions) => this.#call<"recoverCharge">("POST", "/v1/charges/recover", b, o);
  approveSession = (b: RequestOf<"approveSession">, o?: RequestOptions) => this.#call<"approveSession">("POST", "/v1/subscriptions/approve/session", b, o);
  approveResolve = (b: RequestOf<"approveResolve">, o?: RequestOptions) => this.#call<"approveResolve">("POST", "/v1/subscriptions/approve/resolve", b, o);
  revokeSession = (b: RequestOf<"revokeSession">, o?: RequestOptions) => this.#call<"revokeSession">("POST", "/v1/subscriptions/revoke/session", b, o);
  revokePrepare = (b: RequestOf<"revokePrepare">, o?: RequestOptions) => this.#call<"revokePrepare">("POST", "/v1/subscriptions/revoke/prepare", b, o);
  allowanceRevokePrepare = (o?: RequestOptions) => this.#call<"allowanceRevokePrepare">("POST", "/v1/allowances/revoke/prepare", {}, o);
  // Refunds
  prepareRefund = (b: RequestOf<"prepareRefund">, o?: RequestOptions) => this.#call<"prepareRefund">("POST", "/v1/refunds/prepare", b, o);
  resolveRefund = (b: RequestOf<"resolveRefund">, o?: RequestOptions) => this.#call<"resolveRefund">("POST", "/v1/refunds/resolve", b, o);
  verifyRefund = (b: RequestOf<"verifyRefund">, o?: RequestOptions) => this.#call<"verifyRefund">("POST", "/v1/refunds/verify", b, o);
  // Holds
  createHold = (b: RequestOf<"createHold">, o?: RequestOptions) => this.#call<"createHold">("POST", "/v1/holds", b, o);
  resolveHold = (b: RequestOf<"resolveHold">, o?: RequestOptions) => this.#call<"resolveHold">("POST", "/v1/holds/resolve", b, o);
  authorizeHold = (b: RequestOf<"authorizeHold">, o?: RequestOptions) => this.#call<"authorizeHold">("POST", "/v1/holds/authorize", b, o);
  captureHold = (b: RequestOf<"captureHold">, o?: RequestOptions) => this.#call<"captureHold">("POST", "/v1/holds/capture", b, o);
  voidHold = (b: RequestOf<"voidHold">, o?: RequestOptions) => this.#call<"voidHold">("POST", "/v1/holds/void", b, o);
  refundHold = (b: RequestOf<"refundHold">, o?: RequestOptions) => this.#call<"refundHold">("POST", "/v1/holds/refund", b, o);
  holdState = (b: RequestOf<"holdState">, o?: RequestOptions) => this.#call<"holdState">("POST", "/v1/holds/state", b, o);
  listHolds = (b: RequestOf<"listHolds">, o?: RequestOptions) => this.#call<"listHolds">("POST", "/v1/holds/list", b, o);
  // x402
  x402Receiver = (b: RequestOf<"x402Receiver">, o?: RequestOptions) => this.#call<"x402Receiver">("POST", "/v1/x402/receivers", b, o);
  verifyX402Settlement = (b: RequestOf<"verifyX402Settlement">, o?: RequestOptions) =>
    this.#call<"verifyX402Settlement">("POST", "/v1/x402/verify-settlement", b, o);

  // Every item of a paged endpoint, with `for await` (one end-of-pages rule: pages.ts)

  /** Every event of the capability in `b` (intent, manage_token or subscription), oldest first, after `b.after` when given. */
  iterateEvents(b: EventsRequest, o?: RequestOptions): AsyncGenerator<EventsResponse["events"][number], void, undefined> {
    return paginate(
      // The events' cursor stays set after the last event: their end is the first empty page.
      (after) =>
        this.listEvents({ ...b, ...(after ? { after } : {}) } as EventsRequest, o).then((p) => ({
          items: p.events,
          next: p.events.length === 0 ? null : p.next,
        })),
      b.after,
    );
  }

  /** Every subscriber of a subscription link, oldest first. */
  iterateLinkSubscriptions(
    b: RequestOf<"linkSubscriptions">,
    o?: RequestOptions,
  ): AsyncGenerator<LinkSubscriptionsResponse["subscriptions"][number], void, undefined> {
    return paginate(
      (after) => this.linkSubscriptions({ ...b, ...(after ? { after } : {}) }, o).then((p) => ({ items: p.subscriptions, next: p.next })),
      b.after,
    );
  }

  /**
   * Every payment to `recipient`, newest first, page after page (each page's `next_before_block` as
   * the next `before_block`) until the deployment's first block (nothing of ours is older).
   * @example for await (const p of api.iteratePayments({ recipient })) if (p.final) books.add(p);
   */
  iteratePayments(
    b: Omit<RequestOf<"listPayments">, "before_block">,
    o?: RequestOptions,
  ): AsyncGenerator<ResponseOf<"listPayments">["payments"][number], void, undefined> {
    return paginate((before) =>
      this.listPayments({ ...b, ...(before !== undefined ? { before_block: before } : {}) }, o).then((p) => ({ items: p.payments, next: p.next_before_block })),
    );
  }

  /**
   * Verifies `tx_hash` for `intent` and follows `PAYMENT_CONFIRMING` (asking again every `pollMs`,
   * and after a RETRY answer's Retry-After) until the verdict is `valid` or another code, which is
   * final for this hash. After `timeoutMs` it answers the last verdict, still `PAYMENT_CONFIRMING`:
   * ask again later about the same hash, and pay nothing else meanwhile.
   */
  async waitForPayment(b: RequestOf<"verifyPayment">, options: WaitOptions = {}): Promise<VerifyPaymentResponse> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    const pollMs = options.pollMs ?? 2_000;
    const request = options.signal ? { signal: options.signal } : {};
    for (;;) {
      let wait = pollMs;
      let verdict: VerifyPaymentResponse | undefined;
      try {
        verdict = await this.verifyPayment(b, request);
        if (verdict.valid || verdict.code !== "PAYMENT_CONFIRMING") return verdict;
      } catch (error) {
        if (!(error instanceof ApiError) || !error.retryable || Date.now() + (error.retryAfter ?? 1) * 1000 > deadline) throw error;
        wait = (error.retryAfter ?? 1) * 1000;
      }
      const left = deadline - Date.now();
      if (left <= 0 && verdict) return verdict;
      await pause(Math.max(0, Math.min(wait, left)), options.signal);
    }
  }
}

/**
 * Calls `request` again while it fails with a retryable ApiError (action RETRY), waiting the
 * Retry-After each time, up to `attempts` calls. WAIT, ASK_PAYER, STOP and FIX_REQUEST are returned
 * to the caller at once: they need a decision, not a retry.
 */
export async function withRetry<T>(request: () => Promise<T>, options: { attempts?: number; sleep?: (ms: number) => Promise<void> } = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      if (!(error instanceof ApiError) || !error.retryable || attempt >= attempts) throw error;
      await sleep((error.retryAfter ?? 1) * 1000);
    }
  }
}

/**
 * The verify rule: `valid` must be true, and the verdict's reference must equal the one you stored
 * (or, for a payment through a link, start with the link id).
 */
export function isPaid(verdict: VerifyPaymentResponse, expected: { reference: string } | { linkId: string }): boolean {
  if (verdict.valid !== true) return false;
  const reference = verdict.reference.toLowerCase();
  return "reference" in expected ? reference === expected.reference.toLowerCase() : reference.startsWith(expected.linkId.toLowerCase());
}
