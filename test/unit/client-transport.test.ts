import { assert } from "chai";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  ApiConnectionError,
  ApiError,
  fulfilOnce,
  InvalidResponseError,
  paginate,
  PaymentServiceClient,
  type FulfilmentLedger,
} from "../../client/src/index.js";
import { networkRetryDelayMs } from "../../client/src/transport.js";

type Handler = (req: IncomingMessage & { body: string }, res: ServerResponse, n: number) => void;

/** A stand-in for the service on a free port; `dropFirst` connections are closed before any answer. */
async function server(handler: Handler, options: { dropFirst?: number } = {}) {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<Socket>();
  const http: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => handler(Object.assign(req, { body }), res, ++requests));
  });
  http.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    if (++connections <= (options.dropFirst ?? 0)) socket.destroy();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const CAPS = { environment: "test", chain_id: 84532 };

describe("client transport (client/src/transport.ts): timeouts, network retries, answers of another shape", () => {
  let s: Awaited<ReturnType<typeof server>> | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("capabilities() succeeds through a dropped first connection", async () => {
    s = await server((_req, res) => json(res, 200, CAPS), { dropFirst: 1 });
    const api = new PaymentServiceClient({ baseUrl: s.url });
    assert.deepEqual(await api.capabilities(), CAPS as never);
    assert.equal(s.connections(), 2, "one dropped, one answered");
  });

  it("retries every method (a POST that creates too), then gives up with one ApiConnectionError", async () => {
    s = await server((_req, res) => json(res, 200, {}), { dropFirst: 100 });
    const api = new PaymentServiceClient({ baseUrl: s.url, maxNetworkRetries: 2 });
    const error = await api.createPayment({ recipient: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", amount: "1" }).then(
      () => assert.fail("expected ApiConnectionError"),
      (e: unknown) => e,
    );
    assert.instanceOf(error, ApiConnectionError);
    assert.include(error as ApiConnectionError, { attempts: 3, timedOut: false });
    assert.equal(s.connections(), 3);
    const once = await api.health({ maxNetworkRetries: 0 }).catch((e: unknown) => e);
    assert.include(once as ApiConnectionError, { attempts: 1 }, "a call's own maxNetworkRetries wins");
  });

  it("bounds an attempt by timeoutMs and retries it; a slow first answer is not waited for", async () => {
    s = await server((_req, res, n) => (n === 1 ? undefined : json(res, 200, { ok: true })));
    const api = new PaymentServiceClient({ baseUrl: s.url, timeoutMs: 200 });
    const started = Date.now();
    assert.deepEqual(await api.health(), { ok: true });
    assert.isBelow(Date.now() - started, 2_000);
    assert.equal(s.requests(), 2);
    await s.close();
    s = await server(() => undefined);
    const error = await new PaymentServiceClient({ baseUrl: s.url, timeoutMs: 100, maxNetworkRetries: 1 }).health().catch((e: unknown) => e);
    assert.instanceOf(error, ApiConnectionError);
    assert.include(error as ApiConnectionError, { attempts: 2, timedOut: true });
  });

  it("stops at once on the caller's signal, with its reason, and retries nothing", async () => {
    s = await server(() => undefined);
    const controller = new AbortController();
    const call = new PaymentServiceClient({ baseUrl: s.url }).health({ signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error("shutting down")), 50);
    const error = await call;
    assert.equal((error as Error).message, "shutting down");
    assert.equal(s.requests(), 1);
  });

  it("throws InvalidResponseError for a non-JSON or non-object 2xx and an error status without { error }", async () => {
    const answers: Array<[number, string, string]> = [
      [200, "text/html", "<html>hello</html>"],
      [200, "application/json", "[1,2]"],
      [200, "application/json", "null"],
      [400, "text/plain", "Bad Request"],
      [404, "application/json", '{"message":"not here"}'],
    ];
    s = await server((_req, res, n) => {
      const [status, type, body] = answers[(n - 1) % answers.length]!;
      res.writeHead(status, { "content-type": type });
      res.end(body);
    });
    const api = new PaymentServiceClient({ baseUrl: s.url });
    for (const [status, , body] of answers) {
      const error = await api.capabilities().catch((e: unknown) => e);
      assert.instanceOf(error, InvalidResponseError, body);
      assert.include(error as InvalidResponseError, { status, bodyStart: body });
    }
  });

  it("counts a gateway's non-JSON 502 as no answer (retried), and a JSON 502 of the service as its ApiError", async () => {
    s = await server((_req, res, n) => {
      if (n === 1) {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<h1>Bad Gateway</h1>");
      } else json(res, 502, { error: "RPC_ERROR", action: "RETRY", retry_after: 5 });
    });
    const error = await new PaymentServiceClient({ baseUrl: s.url }).capabilities().catch((e: unknown) => e);
    assert.instanceOf(error, ApiError);
    assert.include(error as ApiError, { status: 502, error: "RPC_ERROR", retryAfter: 5 });
    assert.equal(s.requests(), 2);
  });

  it("PAYER_UNKNOWN's senders reach the ApiError, for the merchant to name one as to", async () => {
    const senders = [{ address: "0x00000000000000000000000000000000000000b1", amount_units: "5000000" }];
    s = await server((_req, res) => json(res, 409, { error: "PAYER_UNKNOWN", action: "FIX_REQUEST", senders }));
    const error = await new PaymentServiceClient({ baseUrl: s.url }).capabilities().catch((e: unknown) => e);
    assert.instanceOf(error, ApiError);
    assert.deepEqual((error as ApiError).senders, senders);
  });

  it("waits 0.5 s doubling to 8 s between network retries, less up to half at random", () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map((n) => networkRetryDelayMs(n, () => 0)),
      [500, 1000, 2000, 4000, 8000, 8000],
    );
    assert.equal(
      networkRetryDelayMs(1, () => 1),
      250,
    );
  });
});

describe("waitForPayment", () => {
  let s: Awaited<ReturnType<typeof server>> | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });
  const body = { intent: "pi.x", tx_hash: `0x${"ab".repeat(32)}` as const };
  const valid = {
    valid: true,
    tx_hash: body.tx_hash,
    reference: `0x${"01".repeat(32)}`,
    amount: "1.000000",
    block_number: "9",
    block_hash: `0x${"cd".repeat(32)}`,
  };

  it("resolves valid after PAYMENT_CONFIRMING answers, asking about the same hash", async () => {
    const asked: string[] = [];
    s = await server((req, res, n) => {
      asked.push(req.body);
      json(res, 200, n <= 2 ? { valid: false, code: "PAYMENT_CONFIRMING" } : valid);
    });
    const verdict = await new PaymentServiceClient({ baseUrl: s.url }).waitForPayment(body, { pollMs: 10 });
    assert.deepEqual(verdict, valid as never);
    assert.equal(asked.length, 3);
    for (const a of asked) assert.deepEqual(JSON.parse(a), body);
  });

  it("answers a final code at once, waits a RETRY's Retry-After, and answers the last CONFIRMING verdict at its timeout", async () => {
    s = await server((_req, res) => json(res, 200, { valid: false, code: "PAYMENT_MISMATCH" }));
    const api = new PaymentServiceClient({ baseUrl: s.url });
    assert.deepEqual(await api.waitForPayment(body, { pollMs: 10 }), { valid: false, code: "PAYMENT_MISMATCH" });
    assert.equal(s.requests(), 1);
    await s.close();
    s = await server((_req, res, n) => (n === 1 ? json(res, 429, { error: "RATE_LIMITED", action: "RETRY", retry_after: 1 }) : json(res, 200, valid)));
    const started = Date.now();
    assert.deepEqual(await new PaymentServiceClient({ baseUrl: s.url }).waitForPayment(body, { pollMs: 10 }), valid as never);
    assert.isAtLeast(Date.now() - started, 900, "Retry-After honoured");
    await s.close();
    s = await server((_req, res) => json(res, 200, { valid: false, code: "PAYMENT_CONFIRMING" }));
    const last = await new PaymentServiceClient({ baseUrl: s.url }).waitForPayment(body, { pollMs: 20, timeoutMs: 150 });
    assert.deepEqual(last, { valid: false, code: "PAYMENT_CONFIRMING" });
    assert.isAtLeast(s.requests(), 3);
  });
});

describe("paginate (client/src/pages.ts): one end-of-pages rule", () => {
  it("reads every page until next is null; an empty page with a next goes on (a payments page over blocks without payments)", async () => {
    const pages: Record<string, { items: number[]; next: string | null }> = {
      start: { items: [1, 2], next: "a" },
      a: { items: [], next: "b" },
      b: { items: [3], next: null },
    };
    const asked: Array<string | undefined> = [];
    const seen: number[] = [];
    const readPage = async (after: string | undefined) => {
      asked.push(after);
      return pages[after ?? "start"]!;
    };
    for await (const n of paginate(readPage)) seen.push(n);
    assert.deepEqual(seen, [1, 2, 3]);
    assert.deepEqual(asked, [undefined, "a", "b"]);
  });

  it("starts after a kept cursor, and a break stops the calls", async () => {
    const asked: Array<string | undefined> = [];
    const readPage = async (after: string | undefined) => {
      asked.push(after);
      return { items: [Number(after ?? 0) + 1], next: String(Number(after ?? 0) + 1) };
    };
    const got: number[] = [];
    for await (const n of paginate(readPage, "4")) {
      got.push(n);
      if (got.length === 2) break;
    }
    assert.deepEqual(got, [5, 6]);
    assert.deepEqual(asked, ["4", "5"]);
  });
});

describe("fulfilOnce", () => {
  it("records a key only after fulfil resolved: a failed fulfilment runs again", async () => {
    const ledger = new Set<string>();
    let runs = 0;
    const failing = () => {
      runs++;
      throw new Error("warehouse down");
    };
    await fulfilOnce(ledger, "k", failing).then(
      () => assert.fail("expected the error"),
      (e: Error) => assert.equal(e.message, "warehouse down"),
    );
    assert.isFalse(ledger.has("k"));
    assert.isTrue(await fulfilOnce(ledger, "k", () => void runs++));
    assert.isFalse(await fulfilOnce(ledger, "k", () => void runs++));
    assert.equal(runs, 2);
  });

  it("runs concurrent calls with the same key once, on a ledger that is slow to answer", async () => {
    const done = new Set<string>();
    const slow = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const ledger: FulfilmentLedger = {
      has: async (k) => {
        await slow(5);
        return done.has(k);
      },
      add: async (k) => {
        await slow(5);
        done.add(k);
      },
    };
    let runs = 0;
    const ran = await Promise.all(
      Array.from({ length: 5 }, () =>
        fulfilOnce(ledger, "k", async () => {
          await slow(20);
          runs++;
        }),
      ),
    );
    assert.equal(runs, 1);
    assert.deepEqual(ran.filter(Boolean).length, 1);
  });

  it("takes the key with claim (several processes) and releases it when fulfil failed", async () => {
    const claimed = new Set<string>();
    const log: string[] = [];
    const ledger: FulfilmentLedger = {
      has: () => false,
      add: (k) => log.push(`add:${k}`),
      claim: (k) => {
        if (claimed.has(k)) return false;
        claimed.add(k);
        log.push(`claim:${k}`);
        return true;
      },
      release: (k) => {
        claimed.delete(k);
        log.push(`release:${k}`);
      },
    };
    await fulfilOnce(ledger, "k", () => Promise.reject(new Error("no"))).catch(() => undefined);
    assert.isTrue(await fulfilOnce(ledger, "k", () => undefined));
    assert.isFalse(await fulfilOnce(ledger, "k", () => assert.fail("claimed by another process")));
    assert.deepEqual(log, ["claim:k", "release:k", "claim:k", "add:k"]);
  });
});
