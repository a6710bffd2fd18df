import { assert } from "chai";
import { loadConfig } from "../../src/config.js";
import { returnUrlProblem } from "../../src/rules/return-url.js";

describe("return_url rules (an extension: where the checkout sends the buyer back)", () => {
  it("off the local chain: exactly notify_url's rules (https, default port, public DNS name, no credentials, ≤ 512)", () => {
    const real = { localChain: false };
    assert.isNull(returnUrlProblem("https://shop.example.com/thanks?order=42", real));
    assert.equal(returnUrlProblem("http://shop.example.com/thanks", real), "not https");
    assert.equal(returnUrlProblem("https://shop.example.com:8443/thanks", real), "not the default port");
    assert.equal(returnUrlProblem("https://127.0.0.1/thanks", real), "an IP address host");
    assert.equal(returnUrlProblem("https://localhost/thanks", real), "not a public DNS name");
    assert.equal(returnUrlProblem("https://user:pw@shop.example.com/", real), "carries a user name or password");
    assert.equal(returnUrlProblem(`https://shop.example.com/${"a".repeat(500)}`, real), "longer than 512 characters");
  });

  it("on the local chain: http and any host or port, still no credentials, no other scheme, ≤ 512", () => {
    const local = { localChain: true };
    assert.isNull(returnUrlProblem("http://127.0.0.1:3000/thanks", local));
    assert.isNull(returnUrlProblem("http://localhost:5173/", local));
    assert.isNull(returnUrlProblem("https://shop.example.com/", local));
    assert.equal(returnUrlProblem("javascript:alert(1)", local), "not http or https");
    assert.equal(returnUrlProblem("ftp://shop.example.com/", local), "not http or https");
    assert.equal(returnUrlProblem("http://a:b@localhost/", local), "carries a user name or password");
    assert.equal(returnUrlProblem("not a url", local), "not a URL");
    assert.equal(returnUrlProblem(`http://localhost/${"a".repeat(500)}`, local), "longer than 512 characters");
  });

  it("the local chain is the embedded one or a test-network RPC on this host, never Base", () => {
    assert.isTrue(loadConfig({}).localChain);
    assert.isTrue(loadConfig({ RPC_URL: "http://127.0.0.1:8545", TOKEN_KEYS: `k:${"a".repeat(40)}` }).localChain);
    assert.isFalse(loadConfig({ RPC_URL: "https://sepolia.base.org", TOKEN_KEYS: `k:${"a".repeat(40)}` }).localChain);
    assert.isFalse(loadConfig({ CHAIN_ID: "8453", RPC_URL: "http://127.0.0.1:8545", TOKEN_KEYS: `k:${"a".repeat(40)}`, WEBHOOKS_ENABLED: "false" }).localChain);
  });
});
