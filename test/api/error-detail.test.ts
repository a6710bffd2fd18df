import { assert } from "chai";
import { readFileSync } from "node:fs";
import { useService } from "../helpers/service.js";

interface Operation {
  tags?: string[];
  requestBody?: { content: { "application/json": { schema: { $ref: string }; example: Record<string, unknown> } } };
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
}

/** Every POST endpoint with a body, its example body (valid for its schema) and the body's fields. */
function endpoints() {
  const doc = JSON.parse(readFileSync("docs/openapi.json", "utf8")) as Document;
  return Object.entries(doc.paths).flatMap(([path, methods]) => {
    const body = methods.post?.requestBody?.content["application/json"];
    // The x402 facilitator answers in x402's shapes (x402-facilitator.test.ts checks its refusals).
    if (!body || methods.post?.tags?.includes("x402")) return [];
    const schema = doc.components.schemas[body.schema.$ref.split("/").pop()!]!;
    return [{ path, example: body.example, fields: Object.keys(schema.properties ?? {}), required: schema.required ?? [] }];
  });
}

/** A value nobody may see echoed: if it ever shows in a header, the detail leaks what was sent. */
const SECRET = "sk.secret.0xdeadbeefcafe";

/**
 * `svc-error-detail` on every INVALID_REQUEST: which field and which rule, for every field of every
 * endpoint, and never the value sent (a wrong type, a wrong string, a missing field, an unknown one).
 */
describe("svc-error-detail: the failing field, never the value", () => {
  const h = useService({ RATE_LIMIT_PER_MINUTE: "100000" });
  const all = endpoints();

  it("covers every endpoint that takes a body", () => {
    assert.isAtLeast(all.length, 20);
  });

  for (const { path, example, fields, required } of all) {
    it(`${path}: each field broken in turn is named, with its rule`, async () => {
      const refused = async (body: unknown) => {
        const res = await h.api.post(path).send(body as object);
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" }, "the body is unchanged");
        const detail = res.headers["svc-error-detail"] as string | undefined;
        assert.isString(detail, "the detail header is there");
        assert.notInclude(detail!, SECRET, "never the value sent");
        assert.notInclude(detail!, "deadbeef");
        return detail!;
      };
      for (const field of fields) {
        // A wrong type carrying a secret, and (for string fields) a wrong string that is the secret.
        assert.match(await refused({ ...example, [field]: { value: SECRET } }), new RegExp(`^${field}: `), `${path} ${field} (wrong type)`);
        const asString = await h.api.post(path).send({ ...example, [field]: SECRET });
        if (asString.status === 400 && asString.body.error === "INVALID_REQUEST") {
          const detail = String(asString.headers["svc-error-detail"]);
          assert.notInclude(detail, SECRET);
          assert.notInclude(detail, "deadbeef");
        }
      }
      for (const field of required) {
        const { [field]: _dropped, ...rest } = example;
        assert.equal(await refused(rest), `${field}: required`);
      }
      assert.equal(await refused({ ...example, zz_unknown: 1 }), "zz_unknown: unknown field");
      // A key that is itself a value (it could be a token) is not repeated.
      assert.equal(await refused({ ...example, [SECRET]: 1 }), "(body): unknown field");
    });
  }

  it("names the body itself when it is not JSON, not an object, or the wrong content type", async () => {
    const notJson = await h.api.post("/v1/payments").set("content-type", "application/json").send(`{"recipient": "${SECRET}"`);
    assert.equal(notJson.headers["svc-error-detail"], "(body): not valid JSON");
    const text = await h.api.post("/v1/payments").set("content-type", "text/plain").send(SECRET);
    assert.equal(text.headers["svc-error-detail"], "(body): content-type must be application/json");
  });

  it("names the field a domain rule refused (recipient, period), still without its value", async () => {
    const zero = await h.api.post("/v1/payments").send({ recipient: "0x0000000000000000000000000000000000000000", amount: "1" });
    assert.equal(zero.headers["svc-error-detail"], "recipient: the zero address");
    const short = await h.api.post("/v1/subscriptions").send({ recipient: h.chain.accounts[6]!.address, amount: "1", period: 1 });
    assert.match(String(short.headers["svc-error-detail"]), /^period: /);
  });

  it("adds no detail header to other errors", async () => {
    const res = await h.api.post("/v1/payments/resolve").send({ intent: "not-a-token" });
    assert.equal(res.body.error, "INVALID_INTENT");
    assert.isUndefined(res.headers["svc-error-detail"]);
  });
});
