import { assert } from "chai";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { payIntent } from "../helpers/payments.js";
import type { ProxyMode } from "../helpers/rpc-proxy.js";

/** What each fault must map to: never a 500, never a verdict. */
const EXPECTED: Record<Exclude<ProxyMode, "pass">, { status: number; error: string }> = {
  "rpc-error": { status: 502, error: "RPC_ERROR" },
  "http-500": { status: 502, error: "RPC_ERROR" },
  "http-429": { status: 503, error: "RPC_BUSY" },
  hang: { status: 503, error: "RPC_BUSY" },
  garbage: { status: 502, error: "RPC_ERROR" },
  "bad-result": { status: 502, error: "RPC_ERROR" },
};

describe("RPC faults (through a fault-injecting proxy)", function () {
  this.timeout(60_000);
  const h = useService({ RPC_TIMEOUT_MS: "300" });

  async function paidIntent() {
    const created = await h.api.post("/v1/payments").send({ recipient: h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address, amount: "4" });
    const receipt = await payIntent(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser]!, created.body.pay);
    await h.chain.mine(2);
    return { intent: created.body.intent as string, hash: receipt.transactionHash };
  }

  for (const [mode, expected] of Object.entries(EXPECTED) as Array<[Exclude<ProxyMode, "pass">, { status: number; error: string }]>) {
    it(`${mode} → ${expected.status} ${expected.error} with Retry-After, on resolve, verify and recover`, async () => {
      const { intent, hash } = await paidIntent();
      h.proxy.mode = mode;
      for (const [path, body] of [
        ["/v1/payments/resolve", { intent }],
        ["/v1/payments/verify", { intent, tx_hash: hash }],
        ["/v1/payments/recover", { intent }],
      ] as const) {
        const res = await h.api.post(path).send(body);
        assert.equal(res.status, expected.status, `${path}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, { error: expected.error, action: "RETRY", retry_after: 5 }, path);
        assert.equal(res.headers["retry-after"], "5");
      }
      h.proxy.mode = "pass";
      assert.equal((await h.api.post("/v1/payments/verify").send({ intent, tx_hash: hash })).body.valid, true, "control: healthy again");
    });
  }

  it("a fault on only the second read of verify is still an error, never a verdict", async () => {
    const { intent, hash } = await paidIntent();
    h.proxy.mode = "rpc-error";
    h.proxy.faultMethods = new Set(["eth_getBlockByNumber", "eth_blockNumber"]);
    const res = await h.api.post("/v1/payments/verify").send({ intent, tx_hash: hash });
    assert.equal(res.status, 502);
    assert.equal(res.body.error, "RPC_ERROR");
  });

  it("a fault on the log query of recover is an error, not PAYMENT_NOT_FOUND", async () => {
    const { intent } = await paidIntent();
    h.proxy.mode = "http-429";
    h.proxy.faultMethods = new Set(["eth_getLogs"]);
    const res = await h.api.post("/v1/payments/recover").send({ intent });
    assert.equal(res.status, 503);
    assert.equal(res.body.error, "RPC_BUSY");
  });
});
