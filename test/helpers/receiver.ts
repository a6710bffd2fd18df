import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WEBHOOK_EVENTS } from "../../src/wire/index.js";

export const RECEIVER_HOST = "hooks.merchant.example.com";

export interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * A real HTTPS webhook receiver on 127.0.0.1 with a self-signed certificate for its host name (made
 * by openssl). `behave` decides each answer: a status, a delay, a redirect. Tests and the demo use it.
 */
export class Receiver {
  readonly received: Received[] = [];
  /** Bodies that do not match their event's wire schema (or name no known event): tests assert none. */
  readonly mismatches: string[] = [];
  behave: { status: number; delayMs?: number; location?: string } = { status: 200 };
  readonly ca: string;
  #key: string;
  #server: Server | null = null;
  port = 0;

  /** @param dir Where the certificate is kept (made there if missing); a fresh temp folder by default. */
  constructor(
    readonly host = RECEIVER_HOST,
    dir = mkdtempSync(join(tmpdir(), "receiver-")),
  ) {
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, "cert.pem"))) {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "30",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
          "-subj",
          `/CN=${host}`,
          "-addext",
          `subjectAltName=DNS:${host}`,
        ],
        { stdio: "ignore" },
      );
    }
    this.ca = readFileSync(join(dir, "cert.pem"), "utf8");
    this.#key = readFileSync(join(dir, "key.pem"), "utf8");
  }

  async start(port = 0): Promise<this> {
    this.#server = createServer({ key: this.#key, cert: this.ca }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString() || "{}");
        this.received.push({ path: req.url ?? "", headers: req.headers, body });
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
