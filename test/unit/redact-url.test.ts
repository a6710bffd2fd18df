import { assert } from "chai";
import { maskPath, redactUrl } from "../../src/logger.js";

describe("redactUrl (what npm start prints of RPC_URL)", () => {
  it("hides user name and password, every query value, and key-shaped path segments; keeps scheme, host, port", () => {
    const cases: Array<[string, string]> = [
      ["https://user:s3cret-pass@rpc.example.com:8443/", "https://***:***@rpc.example.com:8443/"],
      ["https://base-sepolia.g.alchemy.com/v2/AbCdEf0123456789AbCdEf0123456789", "https://base-sepolia.g.alchemy.com/v2/***"],
      ["https://base-sepolia.infura.io/v3/0123456789abcdef0123456789abcdef", "https://base-sepolia.infura.io/v3/***"],
      ["https://rpc.example.com/base?apikey=k-1234&network=sepolia", "https://rpc.example.com/base?apikey=***&network=***"],
      ["http://127.0.0.1:8545", "http://127.0.0.1:8545/"],
    ];
    for (const [input, expected] of cases) assert.equal(redactUrl(input), expected, input);
    assert.equal(redactUrl("not a url with secret"), "[unparsable URL]");
  });

  it("maskPath masks capability-shaped and long opaque path segments, and keeps the rest", () => {
    assert.equal(maskPath("/v1/payments/pi.k1.eyJyZWNpcGllbnQiOiIweDEyMyJ9.c2lnbmF0dXJl"), "/v1/payments/[masked]");
    assert.equal(maskPath("/checkout/pay/pi.k1.a.b"), "/checkout/pay/[masked]");
    assert.equal(maskPath("/v1/eyJyZWNpcGllbnQiOiIweDEyMyJ9/c2lnbmF0dXJlc2lnbmF0dXJlc2ln"), "/v1/[masked]/[masked]");
    assert.equal(maskPath("/v1/payments/verify"), "/v1/payments/verify");
    assert.equal(maskPath("/checkout/assets/main.js"), "/checkout/assets/main.js");
  });
});
