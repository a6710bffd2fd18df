import { assert } from "chai";
import supertest from "supertest";
import { numberToHex, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { nodesOf } from "../../src/chain/nodes.js";
import type { Service } from "../../src/service.js";
import { payIntent, type PayBlock } from "../helpers/payments.js";
import { useService } from "../helpers/service.js";

/**
 * Issue 59: the door has no seams. Three nodes in front of one chain, one lying about what the old
 * door never compared; every answer is built from what a majority said.
 */
describe("the door hands back what a majority said, never one node's copy", function () {
  this.timeout(90_000);
  const h = useService({}, { nodes: 3 });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let built: Service | null = null;
  // Each test sets every node's latency it needs; the harness clears each node's lies before every test.

  it("a fast node shifting a receipt's transaction hash, block and gas in the door's cross-check: payments verify names the true transaction and block, and the liar is the one set aside", async () => {
    const created = await supertest(h.service.app).post("/v1/payments").send({ recipient: merchant().address, amount: "2" });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { intent, pay } = created.body as { intent: string; pay: PayBlock };
    const paid = await payIntent(h.chain, buyer(), pay);
    await h.chain.mine(3);
    // Node 2 answers first; the first read of the receipt it answers truly (the claim), every later
    // one (the door asking each node) with another transaction's hash, the next block and more gas.
    for (const node of h.nodes) node.latencyMs = node === h.nodes[2] ? 0 : 30;
    const forgedHash = `0x${"ab".repeat(32)}` as Hex;
    const lies: string[] = [];
    let asked = 0;
    h.nodes[2]!.rewrite = (request, result) => {
      if (request.method !== "eth_getTransactionReceipt" || !result || String(request.params?.[0]).toLowerCase() !== paid.transactionHash.toLowerCase())
        return result;
      if (asked++ === 0) return result;
      const r = result as { blockNumber: Hex; gasUsed: Hex };
      lies.push("receipt shifted");
      return { ...r, transactionHash: forgedHash, blockNumber: numberToHex(BigInt(r.blockNumber) + 1n), gasUsed: numberToHex(BigInt(r.gasUsed) + 1n) };
    };
    built = await h.another();
    const verified = await supertest(built.app).post("/v1/payments/verify").send({ intent, tx_hash: paid.transactionHash });
    assert.isAtLeast(lies.length, 1, "the liar was asked by the door and lied");
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.include(verified.body, { valid: true, tx_hash: paid.transactionHash.toLowerCase(), block_number: paid.blockNumber.toString() });
    const nodes = nodesOf(built.client)!;
    await waitFor(() => nodes.nodes[2]!.asideFor === "disagreed", "node 2 set aside as disagreeing");
    assert.isNull(nodes.nodes[0]!.asideFor, "node 0 answered truly");
    assert.isNull(nodes.nodes[1]!.asideFor, "node 1 answered truly");
  });
  it("the node read first altering a settled payment's Paid log in every log read (another amount): recover never refuses on its word, and recovers the payment valid", async () => {
    const created = await supertest(h.service.app).post("/v1/payments").send({ recipient: merchant().address, amount: "2" });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { intent, pay } = created.body as { intent: string; pay: PayBlock };
    const paid = await payIntent(h.chain, buyer(), pay);
    await h.chain.mine(3);
    const splitter = h.service.deployment.contracts.Splitter.address.toLowerCase();
    let lies = 0;
    h.nodes[0]!.rewrite = (request, result) => {
      if (request.method !== "eth_getLogs" || !Array.isArray(result)) return result;
      return (result as Array<{ address: string; data: Hex }>).map((l) => {
        if (l.address.toLowerCase() !== splitter) return l;
        lies++;
        // The Paid log's amount (its data's third word) one unit more.
        const words = l.data.slice(2).match(/.{64}/g)!;
        words[2] = (BigInt(`0x${words[2]}`) + 1n).toString(16).padStart(64, "0");
        return { ...l, data: `0x${words.join("")}` };
      });
    };
    for (const node of h.nodes) node.latencyMs = node === h.nodes[0] ? 0 : 30;
    built = await h.another();
    const recover = () => supertest(built!.app).post("/v1/payments/recover").send({ intent });
    const first = await recover();
    assert.isAtLeast(lies, 1, "the liar was read, and altered the Paid log");
    assert.notInclude(first.body, { code: "PAYMENT_MISMATCH" }, JSON.stringify(first.body));
    // The liar, that alone answered the altered log, is set aside: the next ask reads the others.
    const again = await recover();
    assert.include(again.body, { found: true, valid: true, tx_hash: paid.transactionHash }, JSON.stringify(again.body));
  });
});

/** Polls `done` (a set-aside decided once every node has answered) until it holds, at most 5 s. */
async function waitFor(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after 5 s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
