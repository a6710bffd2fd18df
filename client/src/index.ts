/**
 * The merchant client: one method per endpoint, typed from the service's OpenAPI document; errors as
 * {@link ApiError} with `error`/`action`/`retryAfter`; an opt-in {@link withRetry} that honours
 * Retry-After; helpers for the verify rules. No dependencies: it needs only `fetch` (Node ≥ 20,
 * browsers, workers).
 *
 * @example
 * const api = new PaymentServiceClient({ baseUrl: "http://127.0.0.1:8787" });
 * const payment = await api.createPayment({ recipient, amount: "12.50" });
 * const verdict = await api.verifyPayment({ intent: payment.intent, tx_hash });
 * if (isPaid(verdict, { reference: payment.reference })) await fulfilOnce(ledger, `${payment.reference}:${tx_hash}`, ship);
 */
import type { Action, ErrorCode, Operations, VerifyPaymentResponse } from "./types.js";
import { eachItem, eachPage } from "./pages.js";

export type * from "./types.js";
export { eachItem, eachPage } from "./pages.js";
export { acceptedPayTo, x402PaymentAddresses } from "./x402.js";
export { keccak256, X402_RECEIVER_CODE_HASH, x402ReceiverAddress } from "./x402-receiver.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
export type { VerifyWebhookOptions, WebhookPublicKey } from "./webhooks.js";
export type { IssuedPayment, PaymentCreator, X402PaymentAddresses, X402PaymentAddressOptions, X402RequestContext } from "./x402.js";

/** The request body of an operation. */
export type RequestOf<K extends keyof Operations> = Operations[K]["request"];
/** The 200 answer of an operation. */
export type ResponseOf<K extends keyof Operations> = Operations[K]["response"];
/** The error codes an operation can answer. */
export type ErrorOf<K extends keyof Operations> = Operations[K]["error"];

/** An error answer: branch on `error` and `action`, not on the status. */
export class ApiError<Code extends string = ErrorCode> extends Error {
  constructor(
    readonly status: number,
    readonly error: Code,
    readonly action: Action | undefined,
    /** Seconds, from the body or the Retry-After header; set on every retryable error. */
    readonly retryAfter: number | undefined,
    /** On INVALID_REQUEST, the `svc-error-detail` header: the first failing field and its rule (`field: rule`). */
    readonly detail?: string,
  ) {
    super(`${status} ${error}${action ? ` (${action})` : ""}`);
    this.name = "ApiError";
  }

  /** Whether asking again later, unchanged, makes sense (action RETRY). */
  get retryable(): boolean {
    return this.action === "RETRY";
  }
}

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
}

export class PaymentServiceClient {
  readonly #base: string;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/$/, "");
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  async #call<K extends keyof Operations>(method: "GET" | "POST", path: Operations[K]["path"], body?: unknown): Promise<ResponseOf<K>> {
    const res = await this.#fetch(
      `${this.#base}${path}`,
      method === "GET" ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) },
    );
    const parsed = (await res.json().catch(() => ({ error: "INVALID_RESPONSE" }))) as { error?: string; action?: Action; retry_after?: number };
    if (!res.ok) {
      const header = Number(res.headers.get("retry-after"));
      throw new ApiError(
        res.status,
        (parsed.error ?? "UNKNOWN") as ErrorOf<K> & string,
        parsed.action,
        parsed.retry_after ?? (Number.isFinite(header) && header > 0 ? header : undefined),
        res.headers.get("svc-error-detail") ?? undefined,
      );
    }
    return parsed as ResponseOf<K>;
  }

  // Service
  health = () => this.#call<"health">("GET", "/health");
  capabilities = () => this.#call<"capabilities">("POST", "/v1/capabilities", {});
  // Events
  webhookKeys = () => this.#call<"webhookKeys">("GET", "/v1/webhooks/keys");
  listEvents = (b: RequestOf<"listEvents">) => this.#call<"listEvents">("POST", "/v1/events", b);
  // One-time payments
  createPayment = (b: RequestOf<"createPayment">) => this.#call<"createPayment">("POST", "/v1/payments", b);
  resolvePayment = (b: RequestOf<"resolvePayment">) => this.#call<"resolvePayment">("POST", "/v1/payments/resolve", b);
  verifyPayment = (b: RequestOf<"verifyPayment">) => this.#call<"verifyPayment">("POST", "/v1/payments/verify", b);
  recoverPayment = (b: RequestOf<"recoverPayment">) => this.#call<"recoverPayment">("POST", "/v1/payments/recover", b);
  listPayments = (b: RequestOf<"listPayments">) => this.#call<"listPayments">("POST", "/v1/payments/list", b);
  /**
   * Every payment to `recipient`, newest first, page after page (`before_block` from each
   * `next_before_block`) until the chain's first block; lazy, so `break` stops the calls.
   * @example for await (const p of api.allPayments({ recipient })) if (p.final) books.add(p);
   */
  allPayments = (b: Omit<RequestOf<"listPayments">, "before_block">) =>
    eachItem(
      eachPage(
        (before: string | undefined) => this.listPayments({ ...b, ...(before !== undefined ? { before_block: before } : {}) }),
        (page) => page.next_before_block,
      ),
      (page) => page.payments,
    );
  // Links
  createLink = (b: RequestOf<"createLink">) => this.#call<"createLink">("POST", "/v1/links", b);
  closeLink = (b: RequestOf<"closeLink">) => this.#call<"closeLink">("POST", "/v1/links/close", b);
  subscribeLink = (b: RequestOf<"subscribeLink">) => this.#call<"subscribeLink">("POST", "/v1/links/subscribe", b);
  linkSubscriptions = (b: RequestOf<"linkSubscriptions">) => this.#call<"linkSubscriptions">("POST", "/v1/links/subscriptions", b);
  linkSubscriberStates = (b: RequestOf<"linkSubscriberStates">) => this.#call<"linkSubscriberStates">("POST", "/v1/links/subscribers", b);
  // Subscriptions
  createSubscription = (b: RequestOf<"createSubscription">) => this.#call<"createSubscription">("POST", "/v1/subscriptions", b);
  resolveSubscription = (b: RequestOf<"resolveSubscription">) => this.#call<"resolveSubscription">("POST", "/v1/subscriptions/resolve", b);
  finalizeSubscription = (b: RequestOf<"finalizeSubscription">) => this.#call<"finalizeSubscription">("POST", "/v1/subscriptions/finalize", b);
  subscriptionState = (b: RequestOf<"subscriptionState">) => this.#call<"subscriptionState">("POST", "/v1/subscriptions/state", b);
  charge = (b: RequestOf<"charge">) => this.#call<"charge">("POST", "/v1/charges", b);
  recoverCharge = (b: RequestOf<"recoverCharge">) => this.#call<"recoverCharge">("POST", "/v1/charges/recover", b);
  approveSession = (b: RequestOf<"approveSession">) => this.#call<"approveSession">("POST", "/v1/subscriptions/approve/session", b);
  approveResolve = (b: RequestOf<"approveResolve">) => this.#call<"approveResolve">("POST", "/v1/subscriptions/approve/resolve", b);
  revokeSession = (b: RequestOf<"revokeSession">) => this.#call<"revokeSession">("POST", "/v1/subscriptions/revoke/session", b);
  revokePrepare = (b: RequestOf<"revokePrepare">) => this.#call<"revokePrepare">("POST", "/v1/subscriptions/revoke/prepare", b);
  allowanceRevokePrepare = () => this.#call<"allowanceRevokePrepare">("POST", "/v1/allowances/revoke/prepare", {});
  // Refunds
  prepareRefund = (b: RequestOf<"prepareRefund">) => this.#call<"prepareRefund">("POST", "/v1/refunds/prepare", b);
  resolveRefund = (b: RequestOf<"resolveRefund">) => this.#call<"resolveRefund">("POST", "/v1/refunds/resolve", b);
  verifyRefund = (b: RequestOf<"verifyRefund">) => this.#call<"verifyRefund">("POST", "/v1/refunds/verify", b);
  // x402
  x402Receiver = (b: RequestOf<"x402Receiver">) => this.#call<"x402Receiver">("POST", "/v1/x402/receivers", b);
  verifyX402Settlement = (b: RequestOf<"verifyX402Settlement">) => this.#call<"verifyX402Settlement">("POST", "/v1/x402/verify-settlement", b);
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

/** Where you record what was fulfilled (your database); a Set works for a demo. */
export interface FulfilmentLedger {
  has(key: string): boolean | Promise<boolean>;
  add(key: string): unknown;
}

/**
 * Runs `fulfil` once per key (reference + transaction): webhooks and retries can repeat; goods ship
 * once. Returns whether it ran.
 */
export async function fulfilOnce(ledger: FulfilmentLedger, key: string, fulfil: () => Promise<void> | void): Promise<boolean> {
  if (await ledger.has(key)) return false;
  await ledger.add(key);
  await fulfil();
  return true;
}
