import { assert } from "chai";
import supertest from "supertest";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { nodesOf } from "../../src/chain/nodes.js";
import { paymentKeyOf } from "../../src/payments/verify.js";
import type { Service } from "../../src/service.js";
import { payIntent, type PayBlock } from "../helpers/payments.js";
import { RpcProxy } from "../helpers/rpc-proxy.js";
import { useService } from "../helpers/service.js";

/**
 * Issue 59, case 6: independence by host. Two URLs of one host (another port, path or key at one
 * provider) are one provider's word, and count once in a majority unless RPC_QUORUM_UNSAFE=1.
 */
describe("two URLs of one host count once in a majority", function () {
  this.timeout(90_000);
  const h = useService({}, { nodes: 2 });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  /** A second URL on node 0's host (another port): the same provider under another key. */
  let twin: RpcProxy | null = null;
  afterEach(async () => {
    for (const node of h.nodes) node.rewrite = null;
    await twin?.close();
    twin = null;
  });

  it("the tests' nodes each listen on their own loopback address", () => {
    const hosts = h.nodes.map((n) => new URL(n.url).hostname);
    assert.deepEqual(hosts, ["127.0.0.2", "127.0.0.3"]);
  });

  for (const unsafe of [false, true])
    it(`one host under two URLs forging a payment's Paid log, one honest host: ${unsafe ? "with RPC_QUORUM_UNSAFE=1 the two URLs outvote the honest host (what the operator accepted)" : "no majority for the forgery, B never verifies"}`, async () => {
      const create = async () => {
        const res = await supertest(h.service.app).post("/v1/payments").send({ recipient: merchant().address, amount: "3" });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body as { intent: string; reference: Hex; pay: PayBlock };
      };
      const a = await create();
      const b = await create();
      const paid = await payIntent(h.chain, buyer(), a.pay);
      await h.chain.mine(3);
      const liar = h.nodes[0]!;
      twin = await new RpcProxy(h.chain.rpcUrl!).start(0, new URL(liar.url).hostname);
      const splitter = h.service.deployment.contracts.Splitter.address.toLowerCase();
      const token = h.service.deployment.token.address;
      const key = paymentKeyOf(token, { recipient: merchant().address, amountUnits: BigInt(b.pay.amount_units), reference: b.reference });
      let lies = 0;
      // A's Paid log, served as B's (B's key and reference in its topics), by both URLs of the liar's host.
      const forge = (request: { method: string; params?: unknown[] }, result: unknown) => {
        if (request.method !== "eth_getTransactionReceipt" || String(request.params?.[0]).toLowerCase() !== paid.transactionHash.toLowerCase() || !result)
          return result;
        lies++;
        const receipt = result as { logs: { address: string; topics: Hex[] }[] };
        return {
          ...receipt,
          logs: receipt.logs.map((l) => (l.address.toLowerCase() === splitter ? { ...l, topics: [l.topics[0]!, key, b.reference, ...l.topics.slice(3)] } : l)),
        };
      };
      liar.rewrite = forge;
      twin.rewrite = forge;
      const s: Service = await h.another({
        RPC_URLS: [liar.url, twin.url, h.nodes[1]!.url].join(","),
        ...(unsafe ? { RPC_QUORUM_UNSAFE: "1" } : {}),
      });
      const nodes = nodesOf(s.client)!;
      assert.equal(nodes.quorum, 2, unsafe ? "a majority of 3 URLs" : "a majority of 2 hosts");
      const verdict = await supertest(s.app).post("/v1/payments/verify").send({ intent: b.intent, tx_hash: paid.transactionHash });
      assert.isAtLeast(lies, 2, "both URLs of the liar's host were asked, and forged");
      if (unsafe) assert.include(verdict.body, { valid: true }, "two URLs of one host outvote the honest one: why it is refused by default");
      else assert.notEqual(verdict.body.valid, true, JSON.stringify(verdict.body));
    });
});
