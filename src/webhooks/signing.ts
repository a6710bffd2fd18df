import { createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import type { WebhookSigningKey } from "../config.js";
import type { WebhookKey } from "../wire/index.js";

/** PKCS#8 DER prefix of an ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");

interface LoadedKey {
  kid: string;
  privateKey: KeyObject;
  /** The raw 32-byte public key, base64. */
  publicKey: string;
  notBefore: number;
  /** When the next key starts signing (unix seconds), or null for the newest. */
  until: number | null;
}

/** The headers that go with one event: Standard Webhooks' three beside the service's two. */
export type SignedHeaders = Record<"webhook-id" | "webhook-timestamp" | "webhook-signature" | "svc-event-id" | "svc-event-type", string>;

/**
 * Signs events as Standard Webhooks' asymmetric scheme does: `v1a,<base64 ed25519 signature>` over
 * `id.timestamp.body`. The public keys are no secret (GET /v1/webhooks/keys); a receiver needs no
 * shared secret to tell our deliveries from anyone else's POSTs. Keys rotate by `notBefore`: each
 * signs until the next one's, and is published `overlapSeconds` before it signs and after it stops.
 */
export class WebhookSigner {
  readonly #keys: LoadedKey[];

  constructor(
    keys: WebhookSigningKey[],
    private readonly overlapSeconds: number,
  ) {
    if (keys.length === 0) throw new Error("at least one webhook signing key");
    this.#keys = keys.map((k, i) => {
      const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, Buffer.from(k.seed)]), format: "der", type: "pkcs8" });
      const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
      return {
        kid: k.kid,
        privateKey,
        publicKey: spki.subarray(spki.length - 32).toString("base64"),
        notBefore: k.notBefore,
        until: keys[i + 1]?.notBefore ?? null,
      };
    });
  }

  /** The key that signs at `nowSeconds`: the newest whose `notBefore` has come (the oldest before any has). */
  #signingKey(nowSeconds: number): LoadedKey {
    return this.#keys.findLast((k) => k.notBefore <= nowSeconds) ?? this.#keys[0]!;
  }

  /** The headers of one delivery (or one recovered event) signed at `nowSeconds`. */
  headers(eventId: string, eventType: string, body: string, nowSeconds: number): SignedHeaders {
    const key = this.#signingKey(nowSeconds);
    const signature = sign(null, Buffer.from(`${eventId}.${nowSeconds}.${body}`), key.privateKey).toString("base64");
    return {
      "webhook-id": eventId,
      "webhook-timestamp": String(nowSeconds),
      "webhook-signature": `v1a,${signature}`,
      "svc-event-id": eventId,
      "svc-event-type": eventType,
    };
  }

  /**
   * The keys a receiver should accept at `nowSeconds`: the one signing now, the next from
   * `overlapSeconds` before it starts, the previous until `overlapSeconds` after it stopped.
   * `not_after` is when a key leaves this list (null while no newer key is configured).
   */
  published(nowSeconds: number): WebhookKey[] {
    const signing = this.#signingKey(nowSeconds);
    return this.#keys
      .filter((k) => k === signing || (k.notBefore - this.overlapSeconds <= nowSeconds && (k.until === null || nowSeconds < k.until + this.overlapSeconds)))
      .map((k) => ({
        kid: k.kid,
        alg: "ed25519" as const,
        public_key: k.publicKey,
        not_before: k.notBefore,
        not_after: k.until === null ? null : k.until + this.overlapSeconds,
      }));
  }
}
