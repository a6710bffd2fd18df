import { assert } from "chai";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import * as R from "../../src/wire/index.js";
import { useService } from "../helpers/service.js";

describe("return_url on payments, links and subscriptions (extension): one rule", () => {
  const h = useService();
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const back = "http://127.0.0.1:3000/shop/thanks?order=42";

  it("a payment carries it in the intent token; resolve returns it; none given, none returned", async () => {
    const created = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1", return_url: back });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const resolved = await h.api.post("/v1/payments/resolve").send({ intent: created.body.intent });
    assert.equal(R.ResolvePaymentResponse.parse(resolved.body).return_url, back);
    const plain = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1" });
    assert.notProperty((await h.api.post("/v1/payments/resolve").send({ intent: plain.body.intent })).body, "return_url");
  });

  it("a link carries it in the link token and hands it to every payment it mints", async () => {
    const link = await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "1", return_url: back });
    assert.equal(link.status, 200, JSON.stringify(link.body));
    const resolved = R.ResolvePaymentResponse.parse((await h.api.post("/v1/payments/resolve").send({ intent: link.body.link })).body);
    assert.equal(resolved.return_url, back);
    const again = await h.api.post("/v1/payments/resolve").send({ intent: resolved.intent });
    assert.equal(again.body.return_url, back, "the minted intent carries it too");
  });

  it("a subscription carries it in the setup token; resolve returns it", async () => {
    const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "9.99", period: 3600, return_url: back });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
    assert.equal(R.ResolveSubscriptionResponse.parse(resolved.body).return_url, back);
  });

  it("refuses a bad return_url with INVALID_REQUEST on all three (credentials, other schemes, over 512 characters)", async () => {
    const bodies: Record<string, Record<string, unknown>> = {
      "/v1/payments": { recipient: merchant().address, amount: "1" },
      "/v1/links": { recipient: merchant().address, amount: "1" },
      "/v1/subscriptions": { recipient: merchant().address, amount: "9.99", period: 3600 },
    };
    for (const bad of [
      "http://u:p@127.0.0.1/x",
      "https://user:password@shop.example.com/",
      "javascript:alert(1)",
      "ftp://shop.example.com/",
      `http://localhost/${"a".repeat(520)}`,
    ]) {
      for (const [path, body] of Object.entries(bodies)) {
        const res = await h.api.post(path).send({ ...body, return_url: bad });
        assert.equal(res.status, 400, `${path} ${bad}`);
        assert.equal(res.body.error, "INVALID_REQUEST");
      }
    }
  });

  it("capabilities say whether this is the local chain", async () => {
    assert.isTrue(R.CapabilitiesResponse.parse((await h.api.get("/v1/capabilities")).body).local_chain);
  });
});
