/**
 * The resource server's half of x402's `auth-capture` scheme, for `@x402/express`'s (or any x402 v2)
 * `x402ResourceServer`: register it for the network, and a route priced `"$0.01"` with
 * `scheme: "auth-capture"` asks for an ERC-3009 authorization into Commerce Payments' escrow, on the
 * terms this service's facilitator lists at `{base_url}/x402/supported` (its escrow, itself as the
 * operator, its fee collector and fee). By default the facilitator authorizes and captures in one
 * step after the handler ran (x402's `authorization` flow). With `hold` (the scheme's option or the
 * route's `extra: { hold: true }`), it authorizes before the handler (x402's `upfront` flow) and the
 * hold is handed to `onHold`, never to the buyer: the merchant captures or voids it later through
 * /v1/holds. Structurally typed: no dependency on x402's packages.
 */

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

/** The hold an authorization placed, as the facilitator's settle answer carries it: capture or void it through /v1/holds. */
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

export interface AuthCaptureServerOptions {
  /** Authorize only, for every route of this scheme (a route's `extra.hold` decides for itself when set). */
  hold?: boolean;
  /** Receives each hold placed: keep it to capture or void through /v1/holds. Required when a route asks for a hold. */
  onHold?: (hold: SettledHold, payment: { payer?: string; transaction: string; requirements: AuthCaptureRequirements }) => void | Promise<void>;
  /** How long after the payment's window a hold may be captured (captureDeadline); default one day with a hold, ten minutes without. */
  captureWithinSeconds?: number;
  /** How long after the capture deadline the escrow's refund window lasts (refundDeadline); default 0. */
  refundWithinSeconds?: number;
  /** Unix milliseconds; Date.now by default. */
  now?: () => number;
}

/** A settle hook's context, as @x402/core hands it. */
interface SettledContext {
  requirements: AuthCaptureRequirements;
  result: { success: boolean; payer?: string; transaction: string; extra?: Record<string, unknown> };
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
  /** Without a hold the payment is charged after the handler; with one it is authorized before it. */
  readonly paymentFlows = { eip3009: { supported: ["authorization", "upfront"], default: "authorization" } } as const;
  /** Written per 402 from the clock: the paid retry's are checked against it and kept (see onBeforeVerify). */
  readonly dynamicExtraFields = ["captureDeadline", "refundDeadline"];
  readonly schemeHooks: {
    onBeforeVerify: (context: VerifyContext) => Promise<undefined | { abort: true; reason: string; message?: string }>;
    onAfterSettle: (context: SettledContext) => Promise<void>;
  };

  constructor(private readonly options: AuthCaptureServerOptions = {}) {
    this.schemeHooks = {
      onBeforeVerify: async (context) => this.#keepAcceptedDeadlines(context),
      onAfterSettle: async (context) => this.#takeHold(context),
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

  /** The requirements on the facilitator's terms: its escrow, operator, fee collector and fee, USDC, and the deadlines from now. */
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
    const hold = typeof extra.hold === "boolean" ? extra.hold : (this.options.hold ?? false);
    if (hold && !this.options.onHold) throw new Error("auth-capture: a route asks for a hold and the scheme has no onHold to keep it");
    const deadlines = this.#deadlines(this.#nowSeconds(), requirements.maxTimeoutSeconds, hold);
    const asset = requirements.asset || String(terms.asset ?? "");
    if (!asset) throw new Error("auth-capture: the facilitator's /supported names no asset");
    const picked = Object.fromEntries(FROM_FACILITATOR.map((key) => [key, terms[key]]));
    return {
      ...requirements,
      asset,
      extra: { ...extra, ...picked, ...deadlines, hold, ...(hold ? { paymentFlow: "upfront" } : {}) },
    };
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
    const hold = extra.hold === true;
    const now = this.#nowSeconds();
    const latest = this.#deadlines(now + CLOCK_SLACK_SECONDS, maxTimeoutSeconds, hold);
    const earliest = this.#deadlines(now - maxTimeoutSeconds - CLOCK_SLACK_SECONDS, maxTimeoutSeconds, hold);
    const window = latest.refundDeadline - latest.captureDeadline;
    if (captureDeadline < earliest.captureDeadline || captureDeadline > latest.captureDeadline || refundDeadline - captureDeadline !== window) {
      return { abort: true, reason: "invalid_auth_capture_evm_deadline_ordering", message: "the payment's deadlines are not this resource's" };
    }
    context.requirements.extra = { ...extra, captureDeadline, refundDeadline };
    return undefined;
  }

  /** Takes the hold out of the settle answer (it becomes the buyer's PAYMENT-RESPONSE header) and hands it to the merchant. */
  async #takeHold(context: SettledContext): Promise<void> {
    const hold = context.result.extra?.hold as SettledHold | undefined;
    if (!hold) return;
    const { hold: _taken, ...rest } = context.result.extra!;
    if (Object.keys(rest).length > 0) context.result.extra = rest;
    else delete context.result.extra;
    await this.options.onHold?.(hold, { payer: context.result.payer, transaction: context.result.transaction, requirements: context.requirements });
  }

  #deadlines(nowSeconds: number, maxTimeoutSeconds: number, hold: boolean): { captureDeadline: number; refundDeadline: number } {
    const within = this.options.captureWithinSeconds ?? (hold ? 86_400 : 600);
    const captureDeadline = nowSeconds + maxTimeoutSeconds + within;
    return { captureDeadline, refundDeadline: captureDeadline + (this.options.refundWithinSeconds ?? 0) };
  }

  #nowSeconds(): number {
    return Math.floor((this.options.now ?? Date.now)() / 1000);
  }
}

/** "$0.01", "0.01" → "10000": USDC's micro-units, by string (never a float). */
function microUnits(price: string): string {
  const match = /^\$?\s*([0-9]+)(?:\.([0-9]{1,6}))?$/.exec(price.trim());
  if (!match) throw new Error(`auth-capture: "${price}" is not a USDC amount (at most 6 decimals, e.g. "$0.01")`);
  const units = BigInt(match[1]!) * 10n ** BigInt(USDC_DECIMALS) + BigInt((match[2] ?? "").padEnd(USDC_DECIMALS, "0"));
  if (units === 0n) throw new Error("auth-capture: a price must be above zero");
  return units.toString();
}
