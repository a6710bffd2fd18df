import { assert } from "chai";
import { ConfigError, LOCAL_TOKEN_SECRET, loadConfig } from "../../src/config.js";

describe("config", () => {
  it("defaults to the embedded local stack", () => {
    const config = loadConfig({});
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.port, 8787);
    assert.equal(config.opsPort, 9464);
    assert.equal(config.chainId, 84532);
    assert.isNull(config.rpcUrl);
    // One second of Base's 200 ms blocks.
    assert.deepEqual(config.finality, { kind: "confirmations", confirmations: 5, seconds: 1 });
    assert.deepEqual(config.follow, { wsUrl: null, intervalMs: 3000, logRangeSeconds: 400, transferRangeSeconds: 20, backfillSeconds: 200 });
    assert.deepEqual(config.tokenKeys, [{ id: "local", secret: LOCAL_TOKEN_SECRET }]);
    assert.equal(config.payments.minUnits, 10_000n);
    assert.equal(config.payments.maxUnits, 1_000_000_000_000n);
    assert.equal(config.payments.intentTtlSeconds, 3600);
    assert.equal(config.checkoutUrl, "http://127.0.0.1:8787/checkout/");
    assert.equal(config.recurring.minPeriodSeconds, 60, "the embedded chain allows short periods");
    assert.equal(config.webhooksEnabled, true);
    assert.equal(config.webhooks.timeoutMs, 10_000);
    assert.equal(config.webhooks.allowLoopback, false);
    assert.isNull(config.databaseUrl);
    assert.equal(config.dataDir, ".data/pglite");
  });

  it("RELAYER_MAX_FEE_PER_GAS: unset is the relative default (null), a wei amount is a bigint, zero or a non-number is refused", () => {
    assert.isNull(loadConfig({}).relayer.maxFeePerGas);
    assert.equal(loadConfig({ RELAYER_MAX_FEE_PER_GAS: "5000000000" }).relayer.maxFeePerGas, 5_000_000_000n);
    assert.throws(() => loadConfig({ RELAYER_MAX_FEE_PER_GAS: "0" }), ConfigError, /RELAYER_MAX_FEE_PER_GAS/);
    assert.throws(() => loadConfig({ RELAYER_MAX_FEE_PER_GAS: "2 gwei" }), ConfigError, /RELAYER_MAX_FEE_PER_GAS/);
  });

  it("refuses the test-only loopback switch in production", () => {
    assert.throws(() => loadConfig({ CHAIN_ID: "8453", WEBHOOKS_ALLOW_LOOPBACK: "true" }), ConfigError, /WEBHOOKS_ALLOW_LOOPBACK/);
    assert.equal(loadConfig({ WEBHOOKS_ALLOW_LOOPBACK: "true" }).webhooks.allowLoopback, true);
    assert.throws(() => loadConfig({ CHAIN_ID: "8453", WEBHOOKS_RESOLVE: "hooks.demo-merchant.example.com=127.0.0.1" }), ConfigError, /WEBHOOKS_RESOLVE/);
    assert.deepEqual(loadConfig({ WEBHOOKS_RESOLVE: "a.example=127.0.0.1,b.example=127.0.0.2" }).webhooks.resolve, {
      "a.example": "127.0.0.1",
      "b.example": "127.0.0.2",
    });
  });

  it("reads webhook signing keys (kid:seed[@not_before], oldest first), generates one on the embedded default, demands them in production", () => {
    const seed = (byte: number) => Buffer.alloc(32, byte).toString("base64");
    const config = loadConfig({ WEBHOOK_SIGNING_KEYS: `a:${seed(1)},b:${seed(2)}@1800000000`, WEBHOOK_KEY_OVERLAP_SECONDS: "600" });
    assert.deepEqual(
      config.webhooks.signingKeys.map((k) => [k.kid, Buffer.from(k.seed).toString("base64"), k.notBefore]),
      [
        ["a", seed(1), 0],
        ["b", seed(2), 1800000000],
      ],
    );
    assert.equal(config.webhooks.keyOverlapSeconds, 600);
    assert.equal(config.webhooks.retentionSeconds, 30 * 24 * 3600, "30 days by default");
    const generated = loadConfig({}).webhooks.signingKeys;
    assert.equal(generated.length, 1);
    assert.equal(generated[0]!.seed.length, 32);
    assert.notDeepEqual(generated[0]!.seed, loadConfig({}).webhooks.signingKeys[0]!.seed, "a fresh key per start");
    assert.throws(() => loadConfig({ WEBHOOK_SIGNING_KEYS: `a:${seed(1)},b:${seed(2)}@5,c:${seed(3)}@5` }), ConfigError, /oldest first/);
    assert.throws(() => loadConfig({ WEBHOOK_SIGNING_KEYS: `a:${seed(1)},a:${seed(2)}@5` }), ConfigError, /each kid once/);
    assert.throws(() => loadConfig({ WEBHOOK_SIGNING_KEYS: "a:tooshort" }), ConfigError, /WEBHOOK_SIGNING_KEYS/);
    assert.throws(() => loadConfig({ CHAIN_ID: "8453" }), ConfigError, /WEBHOOK_SIGNING_KEYS/);
    assert.doesNotThrow(() => loadConfig({ CHAIN_ID: "8453", WEBHOOK_SIGNING_KEYS: `a:${seed(1)}` }));
  });

  it("uses the node's safe block with a real RPC, and demands real token keys there", () => {
    assert.throws(() => loadConfig({ RPC_URL: "https://sepolia.base.example" }), ConfigError, /TOKEN_KEYS/);
    const config = loadConfig({ RPC_URL: "https://sepolia.base.example", TOKEN_KEYS: `v2:${"s".repeat(32)},v1:${"t".repeat(32)}` });
    assert.deepEqual(config.finality, { kind: "safe" });
    assert.equal(config.recurring.minPeriodSeconds, 3600, "3600 s on a real chain");
    assert.throws(() => loadConfig({ CHAIN_ID: "8453", SUBSCRIPTION_MIN_PERIOD_SECONDS: "60" }), ConfigError, /3600/);
    assert.deepEqual(
      config.tokenKeys.map((k) => k.id),
      ["v2", "v1"],
    );
    assert.deepEqual(loadConfig({ FINALITY: "0" }).finality, { kind: "confirmations", confirmations: 0 });
    // FINALITY in seconds: blocks at the chain's block time (0.2 s on Base and Base Sepolia since Denim).
    assert.deepEqual(loadConfig({ FINALITY: "0.4s" }).finality, { kind: "confirmations", confirmations: 2, seconds: 0.4 });
    assert.deepEqual(loadConfig({ FINALITY: "3s", CHAIN_ID: "8453", WEBHOOKS_ENABLED: "false" }).finality, {
      kind: "confirmations",
      confirmations: 15,
      seconds: 3,
    });
    assert.deepEqual(loadConfig({ FINALITY: "0s" }).finality, { kind: "confirmations", confirmations: 0, seconds: 0 });
  });

  it("reads several nodes from RPC_URLS (over RPC_URL), with a majority quorum by default and RPC_QUORUM from 1 to the number of nodes", () => {
    const keys = { TOKEN_KEYS: `k1:${"s".repeat(32)}` };
    const three = "https://a.example/v2/key-a, https://b.example/?apikey=b,https://c.example";
    const config = loadConfig({ ...keys, RPC_URLS: three, RPC_URL: "https://ignored.example" });
    assert.deepEqual(config.rpcUrls, ["https://a.example/v2/key-a", "https://b.example/?apikey=b", "https://c.example"]);
    assert.equal(config.rpcUrl, "https://a.example/v2/key-a", "the first node");
    assert.equal(config.rpcQuorum, 2, "⌊3/2⌋+1");
    assert.equal(loadConfig({ ...keys, RPC_URLS: "https://a.example,https://b.example" }).rpcQuorum, 2, "⌊2/2⌋+1: both");
    assert.equal(loadConfig({ ...keys, RPC_URLS: `${three},https://d.example,https://e.example` }).rpcQuorum, 3);
    assert.deepEqual(loadConfig({ ...keys, RPC_URL: "https://one.example" }).rpcUrls, ["https://one.example"], "RPC_URL: a list of one");
    assert.equal(loadConfig({ ...keys, RPC_URL: "https://one.example" }).rpcQuorum, 1);
    assert.equal(loadConfig({ ...keys, RPC_URLS: three, RPC_QUORUM: "3" }).rpcQuorum, 3);
    assert.throws(() => loadConfig({ ...keys, RPC_URLS: three, RPC_QUORUM: "4" }), ConfigError, /RPC_QUORUM/);
    assert.throws(() => loadConfig({ ...keys, RPC_URLS: three, RPC_QUORUM: "0" }), ConfigError, /RPC_QUORUM/);
    assert.throws(() => loadConfig({ ...keys, RPC_URLS: "https://a.example,ftp://b.example" }), ConfigError, /RPC_URLS/);
    assert.throws(() => loadConfig({ RPC_URLS: three }), ConfigError, /TOKEN_KEYS/, "a real chain through RPC_URLS demands real token keys too");
    assert.isFalse(loadConfig({ ...keys, RPC_URLS: "http://127.0.0.1:8545,https://c.example" }).localChain, "one remote node: not a local chain");
    assert.isTrue(loadConfig({ ...keys, RPC_URLS: "http://127.0.0.1:8545,http://127.0.0.1:8545/?n=2" }).localChain);
  });

  it("stops the start on one node named twice (after scheme and host case, default port and trailing slash), by position, never printing a URL", () => {
    const keys = { TOKEN_KEYS: `k1:${"s".repeat(32)}` };
    for (const [list, positions] of [
      ["https://A.Example:443/v2/key/,https://a.example/v2/key,https://b.example", "0 and 1"],
      ["http://a.example:80,https://b.example,HTTP://a.example/", "0 and 2"],
    ] as const) {
      try {
        loadConfig({ ...keys, RPC_URLS: list });
        assert.fail(`${list}: accepted`);
      } catch (error) {
        assert.instanceOf(error, ConfigError);
        assert.match((error as Error).message, new RegExp(`RPC_URLS: positions ${positions} are the same node`));
        assert.notInclude((error as Error).message.toLowerCase(), "a.example", "a URL may carry a key: never printed");
      }
    }
    // Another path (another key at one provider) or another port is another URL, of one host all the same.
    assert.lengthOf(loadConfig({ ...keys, RPC_URLS: "https://a.example/v2/key-a,https://a.example/v2/key-b,https://a.example:8443/v2/key-a" }).rpcUrls, 3);
  });

  it("counts URLs of one host once in a majority (any port, path or key), unless RPC_QUORUM_UNSAFE=1", () => {
    const keys = { TOKEN_KEYS: `k1:${"s".repeat(32)}` };
    const twoHosts = "https://a.example/v2/key-a,https://a.example:8443/v2/key-b,https://b.example";
    assert.equal(loadConfig({ ...keys, RPC_URLS: twoHosts }).rpcQuorum, 2, "a majority of 2 hosts: both");
    assert.equal(loadConfig({ ...keys, RPC_URLS: twoHosts, RPC_QUORUM_UNSAFE: "1" }).rpcQuorum, 2, "a majority of 3 URLs");
    assert.throws(() => loadConfig({ ...keys, RPC_URLS: twoHosts, RPC_QUORUM: "3" }), ConfigError, /RPC_QUORUM: 3 is more than the 2 independent hosts/);
    assert.equal(loadConfig({ ...keys, RPC_URLS: twoHosts, RPC_QUORUM: "3", RPC_QUORUM_UNSAFE: "1" }).rpcQuorum, 3);
    const fourOnThree = "https://a.example/1,https://a.example/2,https://b.example,https://c.example";
    assert.equal(loadConfig({ ...keys, RPC_URLS: fourOnThree }).rpcQuorum, 2, "a majority of 3 hosts");
    assert.throws(() => loadConfig({ ...keys, RPC_URLS: fourOnThree, RPC_QUORUM: "1" }), ConfigError, /RPC_QUORUM: 1 is below a majority of the 3 nodes \(2\)/);
    assert.isTrue(loadConfig({ ...keys, RPC_URLS: "http://127.0.0.2:8545,http://127.0.0.3:8545" }).localChain, "all of 127.0.0.0/8 is this machine");
  });

  it("stops the start on RPC_QUORUM below a majority of the nodes, unless RPC_QUORUM_UNSAFE=1", () => {
    const keys = { TOKEN_KEYS: `k1:${"s".repeat(32)}` };
    const three = "https://a.example,https://b.example,https://c.example";
    const five = `${three},https://d.example,https://e.example`;
    assert.throws(() => loadConfig({ ...keys, RPC_URLS: three, RPC_QUORUM: "1" }), ConfigError, /RPC_QUORUM: 1 is below a majority of the 3 nodes \(2\)/);
    assert.throws(
      () => loadConfig({ ...keys, RPC_URLS: five, RPC_QUORUM: "2" }),
      ConfigError,
      /RPC_QUORUM: 2 is below a majority of the 5 nodes \(3\).*RPC_QUORUM_UNSAFE=1/,
    );
    assert.equal(loadConfig({ ...keys, RPC_URLS: three, RPC_QUORUM: "1", RPC_QUORUM_UNSAFE: "1" }).rpcQuorum, 1, "the operator says so");
    assert.equal(loadConfig({ ...keys, RPC_URLS: five, RPC_QUORUM: "2", RPC_QUORUM_UNSAFE: "1" }).rpcQuorum, 2);
    assert.equal(loadConfig({ ...keys, RPC_URLS: five, RPC_QUORUM: "3" }).rpcQuorum, 3);
    assert.equal(loadConfig({ ...keys, RPC_URL: "https://one.example", RPC_QUORUM: "1" }).rpcQuorum, 1, "one node: its word, as configured");
  });

  it("names every bad variable at once", () => {
    try {
      loadConfig({ PORT: "http", PAYMENT_MIN_AMOUNT: "1.1234567", FINALITY: "soon", TOKEN_KEYS: "short:abc", CHAIN_ID: "1" });
      assert.fail("expected a ConfigError");
    } catch (error) {
      assert.instanceOf(error, ConfigError);
      const message = (error as ConfigError).message;
      for (const name of ["PORT", "PAYMENT_MIN_AMOUNT", "FINALITY", "TOKEN_KEYS", "CHAIN_ID"]) assert.include(message, name);
    }
    assert.throws(() => loadConfig({ PAYMENT_MIN_AMOUNT: "10", PAYMENT_MAX_AMOUNT: "5" }), ConfigError, /PAYMENT_MIN_AMOUNT/);
  });
});
