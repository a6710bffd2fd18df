import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PaymentRequirements } from "@x402/core/types";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { toClientEvmSigner, type ClientEvmSigner } from "@x402/evm";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import express, { type Express } from "express";
import type { Address, PublicClient } from "viem";
import type { HDAccount } from "viem/accounts";
import {
  AuthCaptureServerScheme,
  PaymentServiceClient,
  x402PaymentAddresses,
  type AuthCaptureServerOptions,
  type AuthorizedPayment,
  type X402PaymentAddresses,
} from "../../client/src/index.js";

/** The x402 network of the local chain (Base Sepolia's). */
export const X402_NETWORK = "eip155:84532";
/** The paywalled report's price, as the merchant writes it for x402 and for this service. */
export const REPORT_PRICE = { x402: "$0.01", amount: "0.01", units: 10_000n } as const;

export function listenOn(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(0, "127.0.0.1", (error?: Error) => {
      if (error) return reject(error);
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * A merchant's paywall exactly as docs/merchants.md writes it: @x402/express's middleware, x402's
 * HTTP facilitator client pointed at `{serviceUrl}/x402`, @x402/evm's server scheme, and this service's
 * client for the per-request payment address (`x402PaymentAddresses`). `hooks` lets a test act between
 * the middleware's verify and settle (a front-runner).
 */
export function merchantPaywall(
  serviceUrl: string,
  recipient: Address,
  hooks: { beforeSettle?: () => Promise<void> } = {},
): { app: Express; addresses: X402PaymentAddresses; resourceServer: x402ResourceServer } {
  const api = new PaymentServiceClient({ baseUrl: serviceUrl });
  const addresses = x402PaymentAddresses(api, { recipient, amount: REPORT_PRICE.amount });
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: `${serviceUrl}/x402` })).register(X402_NETWORK, new ExactEvmServerScheme());
  if (hooks.beforeSettle) resourceServer.onBeforeSettle(async () => void (await hooks.beforeSettle!()));
  const app = express();
  app.use(
    paymentMiddleware(
      {
        "GET /report": { accepts: { scheme: "exact", network: X402_NETWORK, price: REPORT_PRICE.x402, payTo: addresses.payTo }, description: "Today's report" },
      },
      resourceServer,
    ),
  );
  app.get("/report", (_req, res) => {
    res.json({ report: "paid content" });
  });
  return { app, addresses, resourceServer };
}

/** An agent paying with x402: @x402/fetch around fetch, @x402/evm's client scheme signing with `signer`. */
export function agentFetch(signer: ClientEvmSigner, sent: Array<Headers> = []): typeof fetch {
  const recording: typeof fetch = async (input, init) => {
    sent.push(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
    return fetch(input, init);
  };
  const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(signer));
  return wrapFetchWithPayment(recording, client);
}

/** An EOA agent: a local account as x402's ClientEvmSigner. */
export function eoaSigner(account: HDAccount, publicClient: PublicClient): ClientEvmSigner {
  return toClientEvmSigner(account, publicClient);
}

/**
 * A merchant's `auth-capture` paywall as docs/merchants.md writes it: @x402/express's middleware,
 * x402's HTTP facilitator client pointed at `{serviceUrl}/x402`, and the client package's
 * `AuthCaptureServerScheme` (`options`: its receiver authorizer, flow and finalize mode). GET /report
 * costs 0.10 and uses `handler.used` of it (its Settlement-Overrides header), or fails (`handler.fails`:
 * a 500); `payments` receives each payment kept for later (deferred or collect-only).
 */
export function authCapturePaywall(
  serviceUrl: string,
  recipient: Address,
  options: Omit<AuthCaptureServerOptions, "onAuthorized"> = {},
  handler: { used?: string; fails?: boolean } = {},
): { app: Express; payments: AuthorizedPayment[]; scheme: AuthCaptureServerScheme; facilitator: HTTPFacilitatorClient } {
  const payments: AuthorizedPayment[] = [];
  const scheme = new AuthCaptureServerScheme({ ...options, onAuthorized: (payment) => void payments.push(payment) });
  const facilitator = new HTTPFacilitatorClient({ url: `${serviceUrl}/x402` });
  const resourceServer = new x402ResourceServer(facilitator).register(X402_NETWORK, scheme);
  const app = express();
  app.use(
    paymentMiddleware(
      {
        "GET /report": {
          accepts: { scheme: "auth-capture", network: X402_NETWORK, price: AUTH_CAPTURE_PRICE.x402, payTo: recipient },
          description: "Today's report",
        },
      },
      resourceServer,
    ),
  );
  app.get("/report", (_req, res) => {
    if (handler.fails) return void res.status(500).json({ error: "the report failed" });
    if (handler.used) res.setHeader("Settlement-Overrides", JSON.stringify({ amount: handler.used }));
    res.json({ report: "paid content" });
  });
  return { app, payments, scheme, facilitator };
}

/** The auth-capture report's price: a ceiling the handler may use part of. */
export const AUTH_CAPTURE_PRICE = { x402: "$0.10", units: 100_000n } as const;

/** An agent paying `auth-capture` with x402: @x402/fetch around fetch, @x402/evm's `AuthCaptureEvmScheme` signing with `signer`. */
export function authCaptureAgentFetch(signer: ClientEvmSigner): typeof fetch {
  return wrapFetchWithPayment(fetch, new x402Client().register(X402_NETWORK, new AuthCaptureEvmScheme(signer)));
}

/**
 * `auth-capture` requirements for {@link REPORT_PRICE} on the facilitator's advertised terms (`kindExtra`,
 * what a paywall copies), deadlines 900 s after `now`, `extra` changed; a key set to undefined is left
 * out, as a resource server that does not name it leaves it out.
 */
export function authCaptureRequirements(
  kindExtra: Record<string, unknown> | undefined,
  to: { asset: string; payTo: string; now: number },
  extra: Record<string, unknown> = {},
): PaymentRequirements {
  const merged = { ...kindExtra, captureMode: "deferred", captureDeadline: to.now + 900, refundDeadline: to.now + 900, ...extra };
  return {
    scheme: "auth-capture",
    network: X402_NETWORK,
    amount: REPORT_PRICE.units.toString(),
    asset: to.asset,
    payTo: to.payTo,
    maxTimeoutSeconds: 300,
    extra: Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)),
  };
}
