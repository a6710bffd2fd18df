/**
 * Verifies a webhook delivery (or an event read back from POST /v1/events) as Standard Webhooks'
 * asymmetric scheme does: `webhook-signature` holds one or more `v1a,<base64 ed25519 signature>`
 * over `${webhook-id}.${webhook-timestamp}.${body}`, checked against the service's public keys
 * (GET /v1/webhooks/keys), with WebCrypto's Ed25519 (Node 20 and later, current browsers). No
 * secret is involved: the keys are public. A verified event is still a hint: verify decides.
 */
import type { WebhookEvents } from "./types.js";

/** Any event a delivery carries: narrow it on `type`. */
export type WebhookEvent = WebhookEvents[keyof WebhookEvents];

/** A public key as GET /v1/webhooks/keys lists it. */
export interface WebhookPublicKey {
  kid: string;
  alg: "ed25519";
  /** The raw 32-byte public key, base64. */
  public_key: string;
  not_before?: number;
  not_after?: number | null;
}

export interface VerifyWebhookOptions {
  /** How far the timestamp may be from now, in seconds (Standard Webhooks' default: 5 minutes). */
  toleranceSeconds?: number;
  /**
   * Now in unix seconds (tests, replays of stored deliveries). For an event read back from
   * POST /v1/events, its own `webhook-timestamp`: read-back answers the headers as first signed.
   */
  now?: number;
}

/** Why a delivery did not verify. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: "missing_headers" | "timestamp_too_old" | "timestamp_too_new" | "no_matching_signature",
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

function fromBase64(value: string): Uint8Array<ArrayBuffer> {
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Checks a delivery's signature and timestamp; returns the parsed event when one `v1a` signature
 * verifies with one of `keys`, else throws {@link WebhookVerificationError}. Pass the body exactly as
 * received (the raw string, not re-serialized JSON). Narrow the answer on `type`:
 * `if (event.type === "payment.settled") event.data.tx_hash`.
 */
export async function verifyWebhook(headers: HeaderBag, body: string, keys: WebhookPublicKey[], options: VerifyWebhookOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError("missing_headers", "webhook-id, webhook-timestamp and webhook-signature are required");
  const at = Number(timestamp);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (!/^[0-9]+$/.test(timestamp) || at < now - tolerance) throw new WebhookVerificationError("timestamp_too_old", "the timestamp is too old");
  if (at > now + tolerance) throw new WebhookVerificationError("timestamp_too_new", "the timestamp is too new");
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  const candidates = signatures
    .split(" ")
    .filter((s) => s.startsWith("v1a,"))
    .map((s) => s.slice(4));
  for (const key of keys) {
    if (key.alg !== "ed25519") continue;
    const publicKey = await crypto.subtle.importKey("raw", fromBase64(key.public_key), { name: "Ed25519" }, false, ["verify"]);
    for (const signature of candidates) {
      let bytes: Uint8Array<ArrayBuffer>;
      try {
        bytes = fromBase64(signature);
      } catch {
        continue;
      }
      if (await crypto.subtle.verify({ name: "Ed25519" }, publicKey, bytes, signed)) return JSON.parse(body) as WebhookEvent;
    }
  }
  throw new WebhookVerificationError("no_matching_signature", "no v1a signature verifies with the given keys");
}
