import { assert } from "chai";
import { rpcRequestsOf } from "../helpers/metrics.js";
import { useService } from "../helpers/service.js";

describe("rpc_requests_total on the ops port's /metrics", function () {
  this.timeout(60_000);
  const h = useService();

  it("counts every JSON-RPC request the service makes, by method, each request of a batch counted: what the node received", async () => {
    // A settler round and a watcher round: single requests and batches (reads started together).
    await h.service.depositSettler.tick();
    await h.service.webhooks.watcher.tick();
    await Promise.all([h.service.client.getBlockNumber(), h.service.client.getChainId(), h.service.client.getBlockNumber()]);
    const counted = await rpcRequestsOf(h.service);
    const received = Object.fromEntries(h.proxy.calls);
    assert.isAbove(Object.keys(received).length, 2);
    assert.deepEqual(counted, received, "the metric is what the node received, method by method");
  });
});
