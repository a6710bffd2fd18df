import { describeCapabilities } from "../../src/capabilities.js";
import { assert } from "chai";
import { Writable } from "node:stream";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import supertest from "supertest";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { createService, listen } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { configFor, useService } from "../helpers/service.js";

/** Every error body is exactly { error, action?, retry_after? }. */
function assertErrorShape(body: Record<string, unknown>) {
  assert.isString(body.error);
  for (const key of Object.keys(body)) assert.include(["error", "action", "retry_after"], key);
}

describe("HTTP rules", () => {
  const h = useService({ RATE_LIMIT_PER_MINUTE: "5" });
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;

  it("a caller is an IPv4 address or an IPv6 /64: 300 addresses of one /64 share one limit, 300 IPv4 addresses do not lock out the 301st", async () => {
    const limited = await h.another({ RATE_LIMIT_PER_MINUTE: "5", TRUST_PROXY: "1" });
    const api = supertest(limited.app);
    const ask = (ip: string) => api.post("/v1/payments/list").set("X-Forwarded-For", ip).send({ recipient: merchant() });
    const v6: number[] = [];
    for (let i = 0; i < 300; i++) v6.push((await ask(`2001:db8:7:9:${i.toString(16)}::${(i * 7).toString(16)}`)).status);
    assert.equal(v6.filter((s) => s !== 429).length, 5, "one /64 is one caller");
    assert.notEqual((await ask("2001:db8:7:a::1")).status, 429, "the next /64 is another caller");
    const v4: number[] = [];
    for (let i = 0; i < 301; i++) v4.push((await ask(`198.51.${i >> 8}.${i & 255}`)).status);
    assert.notInclude(v4, 429, "each IPv4 address is a caller of its own, the 301st too");
  });

  it("GET /health answers { ok: true } and nothing else, and is never rate limited", async () => {
    for (let i = 0; i < 8; i++) {
      const res = await h.api.get("/health");
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { ok: true });
    }
  });

  it("serves /v1/capabilities by POST {} and by GET, naming every address a client needs", async () => {
    const post = await h.api.post("/v1/capabilities").send({});
    const get = await h.api.get("/v1/capabilities");
    const none = await h.api.post("/v1/capabilities");
    assert.equal(post.status, 200);
    assert.deepEqual(get.body, post.body);
    assert.deepEqual(none.body, post.body);
    const { deployment } = h.service;
    assert.deepEqual(post.body, {
      environment: "test",
      chain_id: 84532,
      api_version: "1.0.0",
      contracts: {
        splitter: deployment.contracts.Splitter.address,
        recurring_charges: deployment.contracts.RecurringCharges.address,
        x402_receivers: deployment.contracts.X402Receivers.address,
        // Commerce Payments' canonical v1.1 escrow and collector (the stand-in sits there locally).
        auth_capture_escrow: "0xf96815976523E00e65Be8f34cA5e64b4f41EB19c",
        auth_capture_collector: "0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88",
      },
      // Every set the service calls, as published: the holds' first, then x402's later v1.1 set.
      auth_capture_deployments: [
        { version: "v1.1", escrow: "0xf96815976523E00e65Be8f34cA5e64b4f41EB19c", eip3009_collector: "0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88" },
        { version: "v1.1", escrow: "0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB", eip3009_collector: "0xEA902B37036bcb4944577ec2101ABdEDF56EbD28" },
      ],
      token: { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", symbol: "USDC", decimals: 6 },
      fee_bps: 200,
      network_fee: "0.100000",
      network_fee_units: "100000",
      payment_amount: { min: "0.010000", max: "1000000.000000" },
      subscription_amount: { min: "0.102041", max: "1000000.000000" },
      min_period: 60,
      max_gas_reimbursement: "0",
      token_lifetimes: { intent: 3600, setup_token: 3600, cancel_token: 900, approve_token: 900, refund_token: 900 },
      finality: { rule: "confirmations", confirmations: 2 },
      webhooks_enabled: true,
      checkout_url: "http://127.0.0.1:8787/checkout/",
      local_chain: true, // extension (docs/decisions.md): the RPC is on this host
      chain_rpc_url: h.service.config.rpcUrl!.replace(/\/$/, ""), // extension: for a wallet to add the local chain
      // extension: the relayer settles payment addresses, its gas covered by the fee
      payment_addresses: { settled_by: "service", settlement_fee: "0.000000", settlement_fee_units: "0", watched_after_expiry: 604_800 },
    });
    const keyless = { ...h.service.config, relayer: { ...h.service.config.relayer, privateKey: null } };
    assert.equal(describeCapabilities(keyless, deployment).payment_addresses.settled_by, "anyone", "no relayer key: settling is left to anyone");
    assert.notProperty(
      describeCapabilities({ ...h.service.config, localChain: false }, deployment),
      "chain_rpc_url",
      "a real chain: the wallet has its own RPC",
    );
    const keyed = { ...h.service.config, rpcUrl: "http://127.0.0.1:8545/?key=secret" };
    assert.notProperty(describeCapabilities(keyed, deployment), "chain_rpc_url", "a URL with a query may carry a key: not published");
    const extra = await h.api.post("/v1/capabilities").send({ verbose: true });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error, "INVALID_REQUEST");
  });

  it("refuses unknown fields, malformed JSON, non-JSON bodies and bodies over 16 KB with INVALID_REQUEST", async () => {
    const cases = [
      h.api.post("/v1/payments").send({ recipient: merchant(), amount: "1", extra: 1 }),
      h.api.post("/v1/payments").set("content-type", "application/json").send('{"recipient": '),
      h.api
        .post("/v1/payments")
        .set("content-type", "text/plain")
        .send(JSON.stringify({ recipient: merchant(), amount: "1" })),
      h.api.post("/v1/payments").set("content-type", "application/json").send("[1,2]"),
      h.api.post("/v1/payments").set("content-type", "application/json").send('"a string"'),
      h.api.post("/v1/payments/verify").send({ intent: "x".repeat(17 * 1024), tx_hash: "0x" + "00".repeat(32) }),
      h.api.post("/v1/payments/verify").send({ intent: "x", tx_hash: "0x1234" }),
    ];
    for (const call of cases) {
      const res = await call;
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" });
    }
  });

  it("refuses a corrupt or truncated compressed body (gzip, deflate, br) with 400 INVALID_REQUEST, never 500; a sound one is read", async () => {
    const body = Buffer.from(JSON.stringify({ recipient: merchant(), amount: "1" }));
    const encoded = { gzip: gzipSync(body), deflate: deflateSync(body), br: brotliCompressSync(body) };
    /** The raw bytes as sent (superagent would serialize a Buffer as JSON), a minute apart (this suite's rate limit is 5). */
    const raw = (encoding: string, data: Buffer) => {
      h.clock.advance(60);
      return h.api
        .post("/v1/payments")
        .set("content-type", "application/json")
        .set("content-encoding", encoding)
        .serialize((x: unknown) => x as string)
        .send(data as never);
    };
    for (const [encoding, data] of Object.entries(encoded)) {
      const sound = await raw(encoding, data);
      assert.equal(sound.status, 200, `${encoding}: ${JSON.stringify(sound.body)}`);
      for (const [what, broken] of [
        ["truncated", data.subarray(0, Math.max(2, data.length - 6))],
        ["corrupt", Buffer.concat([data.subarray(0, 3), Buffer.from("not compressed at all"), data.subarray(3)])],
      ] as const) {
        const res = await raw(encoding, broken);
        assert.equal(res.status, 400, `${encoding} ${what}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" });
      }
    }
    const unknown = await raw("x-unknown", body);
    assert.equal(unknown.status, 400, "an unsupported encoding is the client's fault too");
  });

  it("lets a 4 KB token through to the domain (INVALID_INTENT): only bodies over 16 KB are refused for size", async () => {
    const res = await h.api.post("/v1/payments/resolve").send({ intent: "pi." + "a".repeat(4000) });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, "INVALID_INTENT");
  });

  it("marks every answer nosniff: success, domain error, refused body, unknown path, the checkout", async () => {
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const answers = await Promise.all([
      h.api.get("/health"),
      h.api.post("/v1/payments").send({ recipient: merchant, amount: "1" }),
      h.api.post("/v1/payments/resolve").send({ intent: "not-a-token" }),
      h.api.post("/v1/payments").set("content-type", "text/plain").send("x"),
      h.api.get("/nowhere"),
      h.api.get("/checkout/"),
    ]);
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 400, 400, 404, 200],
    );
    for (const [i, r] of answers.entries()) assert.equal(r.headers["x-content-type-options"], "nosniff", `answer ${i} (${r.status})`);
  });

  it("answers CORS for any origin and never allows credentials", async () => {
    const preflight = await h.api.options("/v1/payments").set("Origin", "https://shop.example").set("Access-Control-Request-Method", "POST");
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers["access-control-allow-origin"], "*");
    assert.include(preflight.headers["access-control-allow-methods"], "POST");
    assert.notProperty(preflight.headers, "access-control-allow-credentials");
    const res = await h.api.post("/v1/payments").set("Origin", "https://shop.example").send({ recipient: merchant(), amount: "1" });
    assert.equal(res.headers["access-control-allow-origin"], "*");
    assert.notProperty(res.headers, "access-control-allow-credentials");
    // Headers a browser must read: Retry-After on every retryable error, svc-tx-hash on charge recovery's 409, svc-error-detail on INVALID_REQUEST.
    for (const response of [preflight, res]) {
      const exposed = String(response.headers["access-control-expose-headers"])
        .split(",")
        .map((name) => name.trim().toLowerCase());
      assert.includeMembers(exposed, ["retry-after", "svc-tx-hash", "svc-error-detail"]);
    }
  });

  it("answers unknown paths with 404 NOT_FOUND and wrong methods with 405, in the error shape", async () => {
    const missing = await h.api.post("/v1/nothing").send({});
    assert.equal(missing.status, 404);
    assertErrorShape(missing.body);
    assert.equal(missing.body.error, "NOT_FOUND");
    const wrong = await h.api.get("/v1/payments");
    assert.equal(wrong.status, 405);
    assert.equal(wrong.body.error, "METHOD_NOT_ALLOWED");
  });

  it("limits each endpoint per IP per minute: the N+1th gets 429 with retry_after and Retry-After", async () => {
    for (let i = 0; i < 5; i++) assert.equal((await h.api.post("/v1/payments").send({ recipient: merchant(), amount: "1" })).status, 200);
    const limited = await h.api.post("/v1/payments").send({ recipient: merchant(), amount: "1" });
    assert.equal(limited.status, 429);
    assertErrorShape(limited.body);
    assert.equal(limited.body.error, "RATE_LIMITED");
    assert.equal(limited.body.action, "RETRY");
    assert.isAtLeast(limited.body.retry_after, 1);
    assert.isAtMost(limited.body.retry_after, 60);
    assert.equal(limited.headers["retry-after"], String(limited.body.retry_after));
    assert.equal((await h.api.post("/v1/payments/resolve").send({ intent: "x" })).status, 400, "another endpoint has its own count");
    h.clock.advance(60);
    assert.equal((await h.api.post("/v1/payments").send({ recipient: merchant(), amount: "1" })).status, 200);
  });

  it("answers an unexpected fault with a bare 500 INTERNAL_ERROR: no stack, token or RPC URL", async () => {
    h.service.payments.create = async () => {
      throw new Error(`boom at ${h.proxy.url} with pi.k1.secretpayload.secretsig`);
    };
    const res = await h.api.post("/v1/payments").send({ recipient: merchant(), amount: "1" });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: "INTERNAL_ERROR", action: "RETRY", retry_after: 5 });
    assert.equal(res.headers["retry-after"], "5");
    assert.notInclude(res.text, "boom");
    assert.notInclude(res.text, "127.0.0.1");
  });

  it("never writes a token or a request body to the logs", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const service = await createService(configFor(h.proxy.url), { now: h.clock.now, logger: createLogger("trace", sink), database: h.database });
    const api = supertest(service.app);
    const created = await api.post("/v1/payments").send({ recipient: merchant(), amount: "1" });
    await api.post("/v1/payments/resolve").send({ intent: created.body.intent });
    await api.post("/v1/payments/verify").send({ intent: created.body.intent, tx_hash: "0x" + "00".repeat(32) });
    // A capability a client wrongly sent in a path (or a path-style checkout link) is masked in the request log.
    const [, , payload, sig] = created.body.intent.split(".");
    await api.get(`/v1/payments/${created.body.intent}`);
    await api.post(`/checkout/pay/${encodeURIComponent(created.body.intent)}`).send({});
    await api.get(`/v1/${payload}/${sig}`);
    h.proxy.mode = "http-500";
    await api.post("/v1/payments/resolve").send({ intent: created.body.intent });
    const log = lines.join("");
    assert.isAbove(lines.length, 6);
    assert.include(log, "/v1/payments/[masked]", "the path is still logged, masked");
    assert.notInclude(log, created.body.intent);
    assert.notInclude(log, payload);
    assert.notInclude(log, sig);
    assert.notInclude(log, h.proxy.url.split("//")[1]! + "/");
    await service.close();
  });

  it("serves /metrics and /ready on the operational port, bound to 127.0.0.1", async () => {
    const service = await createService(configFor(h.proxy.url, { PORT: "0", OPS_PORT: "0" }), {
      now: h.clock.now,
      logger: createLogger("silent"),
      database: h.database,
    });
    const running = await listen(service);
    try {
      assert.match(running.opsUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      await fetch(`${running.apiUrl}/health`);
      const metrics = await (await fetch(`${running.opsUrl}/metrics`)).text();
      assert.include(metrics, "http_requests_total");
      const ready = await fetch(`${running.opsUrl}/ready`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { ready: true, checks: { chain: true, contracts: true, store: true } });
      h.proxy.mode = "http-500";
      assert.equal((await fetch(`${running.opsUrl}/ready`)).status, 503);
      assert.equal((await fetch(`${running.apiUrl}/metrics`)).status, 404, "not on the public port");
    } finally {
      await running.close();
      await service.close();
    }
  });
});
