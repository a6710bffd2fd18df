import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from "node:crypto";
import type { z } from "zod";
import { MAX_TOKEN_LENGTH } from "../wire/primitives.js";

/**
 * Capability tokens: `<kind>.<key>.<payload>.<signature>`.
 * - kind: what the token authorizes (see {@link TOKEN_KINDS}); a token of one kind is never accepted
 *   where another is expected.
 * - key: the id of the signing key, so keys can rotate (one signs, several verify).
 * - payload: base64url JSON that always binds the environment and chain id.
 * - signature: base64url HMAC-SHA256 over `kind.key.payload`, with a key derived (HKDF) from the
 *   deployment secret for this deployment, environment and kind.
 */
export const TOKEN_KINDS = {
  intent: "pi",
  link: "lk",
  linkManage: "lm",
  linkView: "lv",
  setup: "st",
  subscription: "sc",
  cancel: "ct",
  refund: "rt",
  approve: "at",
  /** A hold's merchant capability: capture, void, refund, state, events. */
  hold: "ho",
  /** A hold's buyer capability, in the checkout's link: resolve, authorize, state, reclaim; never capture or void. */
  holdCheckout: "hc",
} as const;
export type TokenKind = (typeof TOKEN_KINDS)[keyof typeof TOKEN_KINDS];

export interface SigningKey {
  /** The key marker written in every token it signs: 1–16 of a–z, 0–9. */
  id: string;
  /** The deployment secret (at least 32 characters). */
  secret: string;
}

export interface TokenScope {
  environment: "test" | "production";
  chainId: number;
  /** Names the deployment (our contract addresses), so another deployment's tokens are refused. */
  deployment: string;
}

const KEY_ID = /^[a-z0-9]{1,16}$/;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** Tokens longer than this are refused before any work. */
export { MAX_TOKEN_LENGTH };

export class CapabilityTokens {
  readonly #scope: TokenScope;
  readonly #signing: SigningKey;
  readonly #keys: Map<string, string>;
  /** Derived keys as KeyObjects: createHmac imports a Buffer key on every call, a KeyObject once (4× cheaper a token). */
  readonly #derived = new Map<string, KeyObject>();

  /** @param keys The first key signs; every key verifies. */
  constructor(scope: TokenScope, keys: SigningKey[]) {
    if (keys.length === 0) throw new Error("at least one token key is required");
    for (const key of keys) {
      if (!KEY_ID.test(key.id)) throw new Error(`token key id "${key.id}" must be 1–16 of a–z, 0–9`);
      if (key.secret.length < 32) throw new Error(`token key "${key.id}" is shorter than 32 characters`);
    }
    this.#scope = scope;
    this.#signing = keys[0]!;
    this.#keys = new Map(keys.map((k) => [k.id, k.secret]));
  }

  /** Mints a token of `kind` carrying `data` (plus the environment and chain id). */
  mint(kind: TokenKind, data: Record<string, unknown>): string {
    const payload = Buffer.from(JSON.stringify({ env: this.#scope.environment, chain_id: this.#scope.chainId, ...data })).toString("base64url");
    const head = `${kind}.${this.#signing.id}.${payload}`;
    return `${head}.${this.#sign(this.#signing.id, kind, head).toString("base64url")}`;
  }

  /** The kind marker a token claims (unverified: for routing a request to the domain that owns the kind). */
  static kindOf(token: string): string | null {
    const [kind] = token.split(".", 1);
    return token.includes(".") ? (kind ?? null) : null;
  }

  /**
   * Verifies a token of `kind` and returns its data parsed by `schema`, or null for anything wrong:
   * malformed, another kind, unknown key, bad signature, another environment or chain, bad payload.
   */
  verify<S extends z.ZodType>(kind: TokenKind, token: unknown, schema: S): z.infer<S> | null {
    if (typeof token !== "string" || token.length > MAX_TOKEN_LENGTH) return null;
    const parts = token.split(".");
    if (parts.length !== 4) return null;
    const [tokenKind, keyId, payload, signature] = parts as [string, string, string, string];
    // Stryker disable next-line ConditionalExpression: the signature binds the kind too (its head and its key); this refuses before the HMAC
    if (tokenKind !== kind) return null;
    if (!this.#keys.has(keyId) || !SEGMENT.test(payload) || !SEGMENT.test(signature)) return null;
    const expected = this.#sign(keyId, kind, `${tokenKind}.${keyId}.${payload}`);
    const given = Buffer.from(signature, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const data = parseJson(Buffer.from(payload, "base64url").toString("utf8"));
    if (!(data instanceof Object)) return null; // not JSON, or JSON with nothing to destructure
    const { env, chain_id, ...rest } = data as Record<string, unknown>;
    if (env !== this.#scope.environment || chain_id !== this.#scope.chainId) return null;
    const parsed = schema.safeParse(rest);
    return parsed.success ? parsed.data : null;
  }

  /**
   * Encrypts a secret the service keeps at rest (a subscription capability kept against its link):
   * AES-256-GCM under a key derived (HKDF) from the signing key for this deployment and `purpose`,
   * bound to `context` (the row it belongs to), so a sealed value moved to another row does not open.
   * `<key>.<iv>.<ciphertext>.<tag>`, base64url; the key marker lets keys rotate as tokens do.
   */
  seal(purpose: string, context: string, plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#sealingKey(this.#signing.id, purpose), iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]); // a string is read as UTF-8
    return [this.#signing.id, iv.toString("base64url"), body.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
  }

  /** Opens what {@link seal} sealed with the same purpose and context; null for anything else. */
  open(purpose: string, context: string, sealed: string): string | null {
    // A forged or empty IV, body or tag fails in the cipher: GCM refuses whatever it did not seal.
    const parts = sealed.split(".");
    const [keyId, iv, body, tag] = parts as [string, string, string, string];
    if (parts.length !== 4 || !this.#keys.has(keyId)) return null;
    const key = this.#sealingKey(keyId, purpose);
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }

  #sealingKey(keyId: string, purpose: string): Buffer {
    const info = `${this.#scope.environment}|${this.#scope.chainId}|${this.#scope.deployment.toLowerCase()}|${purpose}`;
    return Buffer.from(hkdfSync("sha256", this.#keys.get(keyId)!, "svc-sealed-at-rest-v1", info, 32));
  }

  #sign(keyId: string, kind: TokenKind, head: string): Buffer {
    const cacheKey = `${keyId}/${kind}`;
    let key = this.#derived.get(cacheKey);
    // Stryker disable next-line ConditionalExpression: the cache saves time only; deriving again gives the same key
    if (!key) {
      const info = `${this.#scope.environment}|${this.#scope.chainId}|${this.#scope.deployment.toLowerCase()}|${kind}`;
      key = createSecretKey(Buffer.from(hkdfSync("sha256", this.#keys.get(keyId)!, "svc-capability-token-v1", info, 32)));
      // Stryker disable next-line all: the cache saves time only; a key not kept is derived again, the same
      this.#derived.set(cacheKey, key);
    }
    return createHmac("sha256", key).update(head).digest();
  }
}

// Stryker disable BlockStatement: an empty catch answers undefined too (an empty try is caught by the tests as well)
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
// Stryker restore BlockStatement
