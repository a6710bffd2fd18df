import { assert } from "chai";
import supertest from "supertest";
import { numberToHex, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { nodesOf } from "../../src/chain/nodes.js";
import { SET_ASIDE_MS } from "../../src/chain/nodes.js";
import { useService } from "../helpers/service.js";
import type { RpcProxy } from "../helpers/rpc-proxy.js";
import { headsRead, SLOWER_MS, serviceReadingFirst } from "../helpers/read-first.js";
import { sentSettlement, transferPayment } from "../helpers/deposits.js";
import type { Service } from "../../src/service.js";

/** What a lying node claims: its head this far ahead of the chain. */
const AHEAD = 5_000n;

/**
 * Three nodes in front of one chain, the one read first lying: a head far ahead, no logs. The
 * follower reads the head a quorum reached and logs two nodes hold, so the liar blinds nothing.
 */
describe("several nodes, the one read first lying about the head and the logs", function () {
  this.timeout(120_000);
  const h = useService({}, { nodes: 3 });
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let built: Service | null = null;
  afterEach(() => {
    built = null;
    for (const node of h.nodes) node.latencyMs = 0;
  });
  /**
   * A service whose reads would go first to `liar` (the others answer 200 ms slower). A liar whose head
   * is true ranks first, asserted; one claiming a head far ahead is met by the start's head reads and
   * set aside for it, asserted too, so either way the test meets its lie.
   */
  async function readFirst(liar: RpcProxy, ahead: bigint) {
    if (ahead === 0n) {
      built = await serviceReadingFirst(h, liar);
      return built;
    }
    for (const node of h.nodes) node.latencyMs = node === liar ? 0 : SLOWER_MS;
    built = await h.another();
    await headsRead(built);
    assert.isAtLeast(liar.lied("eth_blockNumber", "eth_getBlockByNumber"), 1, "the start was served the liar's head");
    await built.client.getBlockNumber({ cacheTime: 0 });
    assert.equal(nodesOf(built.client)!.nodes[h.nodes.indexOf(liar)]!.asideFor, "ahead", "and set it aside for it");
    return built;
  }
  function claimAhead(node: RpcProxy, withhold: boolean, ahead = AHEAD) {
    node.rewrite = (request, result) => {
      if (request.method === "eth_blockNumber" && typeof result === "string") return numberToHex(BigInt(result) + ahead);
      if (request.method === "eth_getBlockByNumber" && request.params?.[0] === "latest" && result)
        return { ...(result as object), number: numberToHex(BigInt((result as { number: Hex }).number) + ahead) };
      if (request.method === "eth_getLogs" && withhold) return [];
      return result;
    };
  }

  it("a head claimed 5,000 blocks ahead is set aside as one far behind is: the head read is the quorum's, and the node's estimate recovers once it answers true", async () => {
    await h.chain.mine(5);
    const liar = h.nodes[0]!;
    claimAhead(liar, false);
    const s = await readFirst(liar, AHEAD);
    const nodes = nodesOf(s.client)!;
    const real = await h.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    const head = await s.client.getBlockNumber({ cacheTime: 0 });
    assert.isTrue(head <= real + 1n, `the head a quorum reached (${real}), not the liar's: ${head}`);
    assert.equal(nodes.nodes[0]!.asideFor, "ahead");
    assert.equal(nodes.quorumHead(), real);
    // The node answers true again: once its time aside is over, its head is what it says now.
    liar.rewrite = null;
    h.clock.advance(SET_ASIDE_MS / 1000 + 1);
    await nodes.probeHeads();
    assert.isFalse(nodes.isAhead(nodes.nodes[0]!));
    assert.equal(nodes.nodes[0]!.head, await h.chain.publicClient.getBlockNumber({ cacheTime: 0 }));
  });

  for (const ahead of [AHEAD, 0n])
    it(`${ahead > 0n ? "claiming 5,000 blocks ahead and " : "its head true, "}answering every eth_getLogs with no logs: a plain transfer to a payment address is settled by the next round and verifies valid: true; 30 s later a second one too`, async () => {
      const liar = h.nodes[0]!;
      claimAhead(liar, true, ahead);
      const s = await readFirst(liar, ahead);
      await s.follower.round();
      for (let payment = 0; payment < 2; payment++) {
        const { intent, pay } = await transferPayment(h, s, merchant().address);
        h.clock.advance(3);
        const withheld = liar.lied("eth_getLogs");
        await s.follower.round(); // the round that reads the transfer's block sends the settlement
        if (ahead === 0n) assert.isAbove(liar.lied("eth_getLogs"), withheld, `payment ${payment}: the round was served the liar's empty logs`);
        const { settlement } = await sentSettlement(h, s, pay.deposit_address, `payment ${payment}: the settlement sent in the first round after the transfer`);
        await h.chain.mine(3);
        const verdict = await supertest(s.app).post("/v1/payments/verify").send({ intent, tx_hash: settlement });
        assert.include(verdict.body, { valid: true }, JSON.stringify(verdict.body));
        h.clock.advance(30);
      }
    });
});
