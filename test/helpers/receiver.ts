import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";
import { WEBHOOK_EVENTS } from "../../src/wire/index.js";

export const RECEIVER_HOST = "hooks.merchant.example.com";

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** The body exactly as received (what a signature covers). */
  raw: string;
}

/**
 * A real HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate for its host name (made
 * in JavaScript by `selfsigned`, no openssl binary). `behave` decides each answer: a status, a delay, a
 * redirect. Tests and the demo use it.
 */
export class Receiver {
  readonly received: Received[] = [];
  /** Bodies that do not match their event's wire schema (or name no known event): tests assert none. */
  readonly mismatches: string[] = [];
  behave: { status: number; delayMs?: number; location?: string } = { status: 200 };
  #pem: { cert: string; key: string } | null = null;
  #server: Server | null = null;
  port = 0;

  /** @param dir Where the certificate is kept (made there by `start` if missing); a fresh temp folder by default. */
  constructor(
    readonly host = RECEIVER_HOST,
    readonly dir = mkdtempSync(join(tmpdir(), "receiver-")),
  ) {}

  /** The certificate a client trusts to reach this receiver (known once started). */
  get ca(): string {
    if (!this.#pem) throw new Error("Receiver.ca is known once start() has made or read the certificate");
    return this.#pem.cert;
  }

  async #certificate(): Promise<{ cert: string; key: string }> {
    const certFile = join(this.dir, "cert.pem");
    const keyFile = join(this.dir, "key.pem");
    if (!existsSync(certFile) || !existsSync(keyFile)) {
      mkdirSync(this.dir, { recursive: true });
      const made = await generate([{ name: "commonName", value: this.host }], {
        keyType: "ec",
        curve: "P-256",
        algorithm: "sha256",
        notAfterDate: new Date(Date.now() + 30 * 86_400_000),
        extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: this.host }] }],
      });
      writeFileSync(keyFile, made.private, { mode: 0o600 });
      writeFileSync(certFile, made.cert);
    }
    return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  }

  async start(port = 0): Promise<this> {
    this.#pem ??= await this.#certificate();
    this.#server = createServer({ key: this.#pem.key, cert: this.#pem.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString();
        const body = JSON.parse(raw || "{}");
        this.received.push({ path: req.url ?? "", headers: req.headers, body, raw });
        this.#check(body);
        const { status, delayMs, location } = this.behave;
        const answer = () => res.writeHead(status, location ? { location } : {}).end("ok");
        if (delayMs) setTimeout(answer, delayMs).unref();
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.#server!.address() as AddressInfo).port;
    return this;
  }

  #check(body: { type?: unknown }): void {
    const event = WEBHOOK_EVENTS[body.type as keyof typeof WEBHOOK_EVENTS];
    const parsed = event?.schema.safeParse(body);
    if (!parsed?.success) this.mismatches.push(`${String(body.type)}: ${parsed ? parsed.error.message : "unknown event type"}`);
  }

  /** Stops listening (a receiver that is down); `start(port)` brings it back on the same port. */
  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
    this.#server = null;
  }
}
