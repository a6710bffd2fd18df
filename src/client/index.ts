/**
 * A typed client for merchants' servers. One method per endpoint, typed by the same zod schemas the
 * API validates with; errors as {@link ApiError} with `error`/`action`/`retryAfter`; an opt-in
 * {@link withRetry} that honours Retry-After; helpers for the verify rules.
 *
 * @example
 * const api = new PaymentServiceClient({ baseUrl: "http://127.0.0.1:8787" });
 * const payment = await api.createPayment({ recipient, amount: "12.50" });
 * const verdict = await api.verifyPayment({ intent: payment.intent, tx_hash });
 * if (isPaid(verdict, { reference: payment.reference })) await fulfilOnce(ledger, `${payment.reference}:${tx_hash}`, ship);
 */
import type { z } from "zod";
import type * as Q from "../http/schemas.js";
import type * as R from "../http/responses.js";

type In<S extends z.ZodType> = z.input<S>;
type Out<S extends z.ZodType> = z.infer<S>;

/** An error answer: branch on `error` and `action`, not on the status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly action: string | undefined,
    /** Seconds, from the body or the Retry-After header; set on every retryable error. */
    readonly retryAfter: number | undefined,
  ) {
    super(`${status} ${error}${action ? ` (${action})` : ""}`);
    this.name = "ApiError";
  }

  /** Whether asking again later, unchanged, makes sense (action RETRY). */
  get retryable(): boolean {
    return this.action === "RETRY";
  }
}

export interface ClientOptions {
  baseUrl: string;
  fetch?: typeof fetch;
}

export class PaymentServiceClient {
  readonly #base: string;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/$/, "");
    this.#fetch = options.fetch ?? fetch;
  }

  async #post<T>(path: string, body: unknown): Promise<T> {
    const res = await this.#fetch(`${this.#base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    const parsed = (await res.json().catch(() => ({ error: "INVALID_RESPONSE" }))) as { error?: string; action?: string; retry_after?: number };
    if (!res.ok) {
      const header = Number(res.headers.get("retry-after"));
      throw new ApiError(res.status, parsed.error ?? "UNKNOWN", parsed.action, parsed.retry_after ?? (Number.isFinite(header) && header > 0 ? header : undefined));
    }
    return parsed as T;
  }

  // Service
  capabilities = () => this.#post<Out<typeof R.CapabilitiesResponse>>("/v1/capabilities", {});
  health = async () => (await (await this.#fetch(`${this.#base}/health`)).json()) as Out<typeof R.HealthResponse>;
  // One-time payments
  createPayment = (b: In<typeof Q.CreatePaymentRequest>) => this.#post<Out<typeof R.CreatePaymentResponse>>("/v1/payments", b);
  resolvePayment = (b: In<typeof Q.IntentRequest>) => this.#post<Out<typeof R.ResolvePaymentResponse>>("/v1/payments/resolve", b);
  verifyPayment = (b: In<typeof Q.VerifyPaymentRequest>) => this.#post<Out<typeof R.VerifyPaymentResponse>>("/v1/payments/verify", b);
  recoverPayment = (b: In<typeof Q.IntentRequest>) => this.#post<Out<typeof R.RecoverPaymentResponse>>("/v1/payments/recover", b);
  // Links
  createLink = (b: In<typeof Q.CreateLinkRequest>) => this.#post<Out<typeof R.CreateLinkResponse>>("/v1/links", b);
  closeLink = (b: In<typeof Q.CloseLinkRequest>) => this.#post<Out<typeof R.CloseLinkResponse>>("/v1/links/close", b);
  // Subscriptions
  createSubscription = (b: In<typeof Q.CreateSubscriptionRequest>) => this.#post<Out<typeof R.CreateSubscriptionResponse>>("/v1/subscriptions", b);
  resolveSubscription = (b: In<typeof Q.SetupTokenRequest>) => this.#post<Out<typeof R.ResolveSubscriptionResponse>>("/v1/subscriptions/resolve", b);
  finalizeSubscription = (b: In<typeof Q.FinalizeSubscriptionRequest>) => this.#post<Out<typeof R.FinalizeSubscriptionResponse>>("/v1/subscriptions/finalize", b);
  subscriptionState = (b: In<typeof Q.SubscriptionRequest>) => this.#post<Out<typeof R.SubscriptionStateResponse>>("/v1/subscriptions/state", b);
  charge = (b: In<typeof Q.SubscriptionRequest>) => this.#post<Out<typeof R.ChargeResponse>>("/v1/charges", b);
  recoverCharge = (b: In<typeof Q.ChargeRecoverRequest>) => this.#post<Out<typeof R.ChargeRecoverResponse>>("/v1/charges/recover", b);
  approveSession = (b: In<typeof Q.SubscriptionRequest>) => this.#post<Out<typeof R.ApproveSessionResponse>>("/v1/subscriptions/approve/session", b);
  approveResolve = (b: In<typeof Q.ApproveTokenRequest>) => this.#post<Out<typeof R.ApproveResolveResponse>>("/v1/subscriptions/approve/resolve", b);
  revokeSession = (b: In<typeof Q.SubscriptionRequest>) => this.#post<Out<typeof R.RevokeSessionResponse>>("/v1/subscriptions/revoke/session", b);
  revokePrepare = (b: In<typeof Q.SubscriptionRequest>) => this.#post<Out<typeof R.RevokePrepareResponse>>("/v1/subscriptions/revoke/prepare", b);
  allowanceRevokePrepare = () => this.#post<Out<typeof R.AllowanceRevokePrepareResponse>>("/v1/allowances/revoke/prepare", {});
  // Refunds
  prepareRefund = (b: In<typeof Q.PrepareRefundRequest>) => this.#post<Out<typeof R.PrepareRefundResponse>>("/v1/refunds/prepare", b);
  resolveRefund = (b: In<typeof Q.RefundTokenRequest>) => this.#post<Out<typeof R.ResolveRefundResponse>>("/v1/refunds/resolve", b);
  verifyRefund = (b: In<typeof Q.VerifyRefundRequest>) => this.#post<Out<typeof R.VerifyRefundResponse>>("/v1/refunds/verify", b);
}

/**
 * Calls `request` again while it fails with a retryable ApiError (action RETRY), waiting the
 * Retry-After each time, up to `attempts` calls. WAIT, ASK_PAYER, STOP and FIX_REQUEST are returned
 * to the caller at once: they need a decision, not a retry.
 */
export async function withRetry<T>(request: () => Promise<T>, options: { attempts?: number; sleep?: (ms: number) => Promise<void> } = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
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
export function isPaid(verdict: Out<typeof R.VerifyPaymentResponse>, expected: { reference: string } | { linkId: string }): boolean {
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
