import { assert } from "chai";
import supertest from "supertest";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { nodesOf } from "../../src/chain/nodes.js";
import type { Service } from "../../src/service.js";
import type { RpcProxy } from "../helpers/rpc-proxy.js";
import { depositSettlement } from "../helpers/deposits.js";
import { useService } from "../helpers/service.js";

/**
 * Issue 59, case 2: no node's error stops a log read another node can serve. Three nodes in front of
 * one chain, the one read first refusing log reads: always, or past a range cap of its own.
 */
describe("a node's errors stop no log read the others serve", function () {
  this.timeout(120_000);
  const h = useService({}, { nodes: 3 });
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let built: Service | null = null;
  // Each test sets every node's latency it needs; the harness clears each node's lies before every test.
  /** A service whose reads go first to `first` (the others answer 20 ms slower). */
  async function readFirst(first: RpcProxy) {
    for (const node of h.nodes) node.latencyMs = node === first ? 0 : 20;
    built = await h.another();
    return built;
  }

  /** A deposit's settlement sent by the follower's rounds after it, mined, and verified valid. */
  async function depositSettles(s: Service): Promise<void> {
    const { intent, settlement } = await depositSettlement(h, s, merchant().address);
    await h.chain.mine(3);
    const verdict = await supertest(s.app).post("/v1/payments/verify").send({ intent, tx_hash: settlement });
    assert.include(verdict.body, { valid: true }, JSON.stringify(verdict.body));
  }

  it("the node read first answering -32005 (more than 10000 results) to every eth_getLogs: the next node serves each read, a deposit settles, and the refusals count in its standing", async () => {
    const liar = h.nodes[0]!;
    let refused = 0;
    liar.refuse = (request) => request.method === "eth_getLogs" && ++refused > 0;
    const s = await readFirst(liar);
    await s.follower.round();
    await depositSettles(s);
    assert.isAtLeast(refused, 1, "the refusing node was asked, and refused");
    const nodes = nodesOf(s.client)!;
    assert.isAbove(nodes.nodes[0]!.errorRate, 0, "its refusals count in its standing");
    assert.notEqual(nodes.ranked()[0]!.position, 0, "it is no longer read first");
  });

  it("a node taking at most 2 blocks per eth_getLogs: its ranges shrink for it alone, and it still answers whole reads", async () => {
    const capped = h.nodes[0]!;
    const spans: bigint[] = [];
    capped.refuse = (request) => {
      if (request.method !== "eth_getLogs") return false;
      const filter = request.params?.[0] as { fromBlock?: Hex; toBlock?: Hex };
      if (!filter.fromBlock?.startsWith("0x") || !filter.toBlock?.startsWith("0x")) return false;
      const span = BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n;
      spans.push(span);
      return span > 2n;
    };
    const s = await readFirst(capped);
    await s.follower.round();
    await depositSettles(s);
    const nodes = nodesOf(s.client)!;
    assert.isTrue(
      spans.some((x) => x > 2n),
      "the capped node was asked a wider range, and refused it",
    );
    assert.equal(nodes.nodes[0]!.logSpanCap !== null && nodes.nodes[0]!.logSpanCap <= 2n, true, "its cap learned");
    assert.isNull(nodes.nodes[1]!.logSpanCap, "the others' ranges are their own");
    assert.isNull(nodes.nodes[2]!.logSpanCap, "the others' ranges are their own");
    assert.isTrue(
      spans.some((x) => x <= 2n),
      "and asked again in pieces within its cap",
    );
  });
});
