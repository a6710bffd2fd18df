import { assert } from "chai";
import { erc20Abi, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { payIntent } from "../helpers/payments.js";
import { send } from "../helpers/tx.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";

/**
 * JSON-RPC calls per request, counted at the proxy in front of the chain: calls by method, and
 * round trips (a JSON-RPC batch is one HTTP request). The ceilings are the issue's.
 */
describe("JSON-RPC calls per request", function () {
  this.timeout(60_000);
  const receiver = new Receiver();
  const h = useService(
    { WEBHOOKS_ALLOW_LOOPBACK: "true" },
    { deps: () => ({ webhookTransport: { resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port } }) },
  );
  before(() => receiver.start());
  after(() => receiver.stop());
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const post = (path: string, body: object) => h.api.post(path).send(body);

  async function paid(amount = "10", extra: object = {}) {
    const created = (await post("/v1/payments", { recipient: merchant().address, amount, ...extra })).body;
    const receipt = await payIntent(h.chain, buyer(), created.pay);
    return { intent: created.intent as string, tx_hash: receipt.transactionHash as Hex };
  }

  it("verify: at most 2 calls (the finality head, then the receipt), settled or not", async () => {
    const p = await paid();
    h.proxy.reset();
    assert.equal((await post("/v1/payments/verify", p)).body.code, "PAYMENT_CONFIRMING");
    assert.isAtMost(h.proxy.count(), 2, JSON.stringify(Object.fromEntries(h.proxy.calls)));
    await h.chain.mine(2);
    h.proxy.reset();
    const verdict = await post("/v1/payments/verify", p);
    assert.equal(verdict.body.valid, true, JSON.stringify(verdict.body));
    assert.isAtMost(h.proxy.count(), 2, JSON.stringify(Object.fromEntries(h.proxy.calls)));
    assert.isAtMost(h.proxy.requests, 2);
  });

  it("refunds/verify: at most 3 calls in 2 round trips (the head, then both receipts in one batch); prepare at most 2", async () => {
    const p = await paid();
    await h.chain.mine(2);
    h.proxy.reset();
    assert.equal((await post("/v1/refunds/prepare", { ...p, amount: "1000000" })).status, 200);
    assert.isAtMost(h.proxy.count(), 2);
    const refund = (
      await send(h.chain, merchant(), {
        address: h.service.deployment.token.address,
        abi: erc20Abi,
        functionName: "transfer",
        args: [buyer().address, 1_000_000n],
      })
    ).transactionHash;
    await h.chain.mine(2);
    h.proxy.reset();
    const verified = await post("/v1/refunds/verify", { ...p, refund_amount: "1000000", refund_tx_hash: refund });
    assert.equal(verified.body.status, "REFUNDED", JSON.stringify(verified.body));
    assert.isAtMost(h.proxy.count(), 3, JSON.stringify(Object.fromEntries(h.proxy.calls)));
    assert.equal(h.proxy.requests, 2);
  });

  it("the watcher reads the blocks of matched events in one batch, whatever their number", async () => {
    const hook = `https://${RECEIVER_HOST}/h`;
    for (const amount of ["1", "2", "3", "4", "5"]) await paid(amount, { notify_url: hook });
    await h.chain.mine(2);
    h.proxy.reset();
    const tick = await h.service.webhooks.watcher.tick();
    assert.equal(tick!.enqueued, 5);
    assert.equal(h.proxy.count("eth_getBlockByNumber"), 1 + 5, "the range's last block, each matched block once (a first tick: no cursor block)");
    assert.isAtMost(h.proxy.requests, 3, "head; logs with the last block; the matched blocks (and subscription states) in one batch");
  });
});
