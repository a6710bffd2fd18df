/**
 * A `payTo` for x402's resource-server middleware (`@x402/express` and its siblings), pointed at this
 * service's facilitator (`{base_url}/x402`): each unpaid request gets a fresh payment address (one
 * payment, through POST /v1/payments), and the paid retry gets back the address it was given, so the
 * middleware's requirements match what the agent signed. An address this server did not hand out is
 * never echoed back: a stranger's own address in a payment header gets a fresh one (and the payment
 * does not match it).
 */
import type { CreatePaymentResponse } from "./types.js";

/** What x402's middleware hands a dynamic `payTo`: the request, with its payment header on a paid retry. */
export interface X402RequestContext {
  paymentHeader?: string;
}

/** A payment address handed out, with what verifies its payment (POST /v1/payments/verify). */
export interface IssuedPayment {
  payTo: string;
  intent: string;
  reference: string;
  /** Unix seconds: the intent's expiry; the address is forgotten after it. */
  expiresAt: number;
}

export interface X402PaymentAddresses {
  /** For the route's `accepts.payTo`. */
  payTo(context: X402RequestContext): Promise<string>;
  /** The payment an address handed out is for (its intent and reference), while remembered. */
  paymentOf(payTo: string): IssuedPayment | undefined;
}

/** What x402PaymentAddresses needs of the client: creating a payment. */
export interface PaymentCreator {
  createPayment(body: { recipient: `0x${string}`; amount: string }): Promise<CreatePaymentResponse>;
}

export interface X402PaymentAddressOptions {
  /** How many unpaid addresses are remembered at most (oldest forgotten first); default 10,000. */
  maxRemembered?: number;
  /** Unix milliseconds; Date.now by default. */
  now?: () => number;
}

/**
 * Payment addresses for one route's price: `amount` (a decimal string, e.g. "0.01") to `recipient`.
 * Kept in this process's memory until the intent expires: run it in the instance that answers both
 * the 402 and the paid retry (or keep the map in a shared store with `paymentOf`'s data).
 */
export function x402PaymentAddresses(
  api: PaymentCreator,
  terms: { recipient: `0x${string}`; amount: string },
  options: X402PaymentAddressOptions = {},
): X402PaymentAddresses {
  const issued = new Map<string, IssuedPayment>();
  const max = Math.max(1, options.maxRemembered ?? 10_000);
  const now = options.now ?? Date.now;
  const forgetExpired = () => {
    const seconds = Math.floor(now() / 1000);
    for (const [key, payment] of issued) if (payment.expiresAt <= seconds) issued.delete(key);
    while (issued.size >= max) issued.delete(issued.keys().next().value!);
  };
  return {
    async payTo(context) {
      const echoed = acceptedPayTo(context.paymentHeader);
      const known = echoed ? issued.get(echoed.toLowerCase()) : undefined;
      if (known) return known.payTo;
      forgetExpired();
      const created = await api.createPayment({ recipient: terms.recipient, amount: terms.amount });
      const payment: IssuedPayment = {
        payTo: created.pay.deposit_address,
        intent: created.intent,
        reference: created.reference,
        expiresAt: created.expires_at,
      };
      issued.set(payment.payTo.toLowerCase(), payment);
      return payment.payTo;
    },
    paymentOf(payTo) {
      return issued.get(payTo.toLowerCase());
    },
  };
}

/** The `accepted.payTo` of an x402 v2 payment header (base64 JSON), or undefined when there is none or it is unreadable. */
export function acceptedPayTo(header: string | undefined): string | undefined {
  if (!header || header.length > 16_384) return undefined;
  try {
    const binary = atob(header);
    const payload = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)))) as { accepted?: { payTo?: unknown } };
    const payTo = payload.accepted?.payTo;
    return typeof payTo === "string" && /^0x[0-9a-fA-F]{40}$/.test(payTo) ? payTo : undefined;
  } catch {
    return undefined;
  }
}
