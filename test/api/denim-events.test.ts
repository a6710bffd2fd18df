import { assert } from "chai";
import supertest from "supertest";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { createLogger } from "../../src/logger.js";
import { createService, type Service } from "../../src/service.js";
import { PaymentSettledEvent } from "../../src/wire/index.js";
import { configFor, useService } from "../helpers/service.js";
import { payIntent, type PayBlock } from "../helpers/payments.js";
import { Receiver } from "../helpers/receiver.js";

type RpcBlock = { number: Hex; timestamp: Hex; timestampMs?: Hex };

/**
 * Webhook events on Base after Denim: blocks every 200 ms, about five sharing one whole-second
 * timestamp, each with its own `timestampMs`. Blocks are sealed by hand (`mine()` on a paused node).
 */
describe("webhook events on the Denim node", function () {
  this.timeout(120_000);
  const receiver = new Receiver();
  const h = useService({}, { chain: { sameSecondBlocks: true } });
  before(() => receiver.start());
  after(() => receiver.stop());
  let node: BaseNode | undefined;
  let service: Service | undefined;
  afterEach(async () => {
    await service?.close();
    await node?.close();
    service = undefined;
    node = undefined;
  });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const HOOK = "https://hooks.merchant.example.com/denim";

  async function start() {
    node = await startBaseNode(h.chain, { latencyMs: 0, paused: true });
    service = await createService(configFor(node.url, { WEBHOOKS_ALLOW_LOOPBACK: "true" }), {
      now: h.clock.now,
      logger: createLogger("silent"),
      webhookTransport: { resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port },
    });
    await node.mine();
    await service.follower.round();
    return { node, service };
  }
  const rpc = <T>(method: string, params: unknown[]) => fetchRpc<T>(node!.url, method, params);

  /** Pays a new payment, sealing blocks until its transaction is in one; the receipt. */
  async function pay(s: Service, n: BaseNode, seal: () => Promise<unknown> = () => n.mine()) {
    const created = await supertest(s.app).post("/v1/payments").send({ recipient: merchant().address, amount: "2", notify_url: HOOK });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    let done = false;
    const paid = payIntent(h.chain, buyer(), created.body.pay as Required<PayBlock>).finally(() => (done = true));
    // A block is sealed only once a transaction waits in the pool (read from the chain behind the
    // node, whose `pending` is the pool): the payments' blocks stay few and within one second.
    while (!done) {
      const pool = (await h.chain.direct.request({ method: "eth_getBlockByNumber", params: ["pending", false] })) as { transactions: Hex[] };
      if (pool.transactions.length > 0) await seal();
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { reference: created.body.reference as Hex, receipt: await paid };
  }
  const settledEvents = async (s: Service) =>
    (await s.database.query<{ payload: unknown }>("SELECT payload FROM webhook_deliveries WHERE event_type = 'payment.settled'")).map((r) =>
      PaymentSettledEvent.parse(typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload),
    );

  it("payment.settled carries timestamp_ms: its block's timestampMs, within created_at's second", async () => {
    const { node: n, service: s } = await start();
    const { reference, receipt } = await pay(s, n);
    await n.mine(3);
    await s.follower.round();
    await n.mine(1);
    await s.follower.round();
    const [event] = (await settledEvents(s)).filter((e) => e.data.reference === reference);
    assert.ok(event, "payment.settled");
    const block = await rpc<RpcBlock>("eth_getBlockByNumber", [`0x${receipt.blockNumber.toString(16)}`, false]);
    assert.isString(block.timestampMs);
    assert.equal(event!.data.timestamp_ms, Number(BigInt(block.timestampMs!)));
    assert.equal(event!.created_at, Number(BigInt(block.timestamp)));
    assert.equal(Math.floor(event!.data.timestamp_ms! / 1000), event!.created_at);
  });

  it("blocks that share a timestamp: payments in consecutive blocks of one second are each settled and announced once, in block order", async () => {
    const { node: n, service: s } = await start();
    // Every block sealed in one second (each a millisecond after the one before), as Base's five a
    // second share one timestamp: the payments' blocks (approve, pay; approve, pay) among them.
    const second0 = Number(BigInt((await rpc<RpcBlock>("eth_getBlockByNumber", ["latest", false])).timestamp)) + 2;
    const sameSecond = async () => {
      await rpc("evm_setNextBlockTimestamp", [second0]);
      return n.mine();
    };
    const first = await pay(s, n, sameSecond);
    const second = await pay(s, n, sameSecond);
    const [a, b] = await Promise.all([first, second].map((p) => rpc<RpcBlock>("eth_getBlockByNumber", [`0x${p.receipt.blockNumber.toString(16)}`, false])));
    assert.isBelow(Number(first.receipt.blockNumber), Number(second.receipt.blockNumber));
    assert.equal(a!.timestamp, b!.timestamp, "both payments' blocks share one second");
    // Finality and the follower's rounds within the same second too: block numbers, never times, order them.
    for (let i = 0; i < 3; i++) {
      await sameSecond();
      await sameSecond();
      await s.follower.round();
    }
    const head = await rpc<RpcBlock>("eth_getBlockByNumber", ["latest", false]);
    assert.equal(Number(BigInt(head.timestamp)), second0, "every block in one second");
    const events = await settledEvents(s);
    const of = (reference: Hex) => events.filter((e) => e.data.reference === reference);
    assert.lengthOf(of(first.reference), 1);
    assert.lengthOf(of(second.reference), 1);
    assert.equal(of(first.reference)[0]!.created_at, of(second.reference)[0]!.created_at);
    assert.isBelow(of(first.reference)[0]!.data.timestamp_ms!, of(second.reference)[0]!.data.timestamp_ms!, "the milliseconds tell the blocks apart");
  });
});

async function fetchRpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T };
  return body.result;
}
