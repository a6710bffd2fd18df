import { assert } from "chai";
import supertest from "supertest";
import { numberToHex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import { depositSettlement } from "../helpers/deposits.js";
import { approveThroughSession, subscribe } from "../helpers/recurring.js";
import { useService } from "../helpers/service.js";

/**
 * Issue 59, case 5: the relayer's reads that decide a send (its simulation and gas, the pending
 * nonce) stand on a majority of the nodes, never on the node read first.
 */
describe("the relayer's reads that decide a send stand on a majority", function () {
  this.timeout(90_000);
  const h = useService({}, { nodes: 3 });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let built: Service | null = null;
  // Each test sets every node's latency it needs; the harness clears each node's lies before every test.

  it("the node read first answering a pending nonce 5 ahead: the settlement takes the majority's nonce and is mined", async () => {
    const liar = h.nodes[0]!;
    const lies: string[] = [];
    liar.rewrite = (request, result) => {
      if (request.method !== "eth_getTransactionCount" || request.params?.[1] !== "pending" || typeof result !== "string") return result;
      lies.push(result);
      return numberToHex(BigInt(result) + 5n);
    };
    for (const node of h.nodes) node.latencyMs = node === liar ? 0 : 20;
    built = await h.another();
    const { nonce, receipt } = await depositSettlement(h, built, merchant().address);
    assert.isAtLeast(lies.length, 1, "the liar was asked the pending nonce, and lied");
    assert.equal(receipt.status, "success");
    assert.equal(Number(nonce), Number(BigInt(lies.at(-1)!)), "the nonce a majority holds, not the liar's");
  });

  it("the node read first answering 21,000 gas for every estimate: the settlement's gas is the majority's, and it does not run out", async () => {
    const liar = h.nodes[0]!;
    let lies = 0;
    liar.rewrite = (request, result) => {
      if (request.method !== "eth_estimateGas" || typeof result !== "string") return result;
      lies++;
      return numberToHex(21_000n);
    };
    for (const node of h.nodes) node.latencyMs = node === liar ? 0 : 20;
    built = await h.another();
    const { receipt } = await depositSettlement(h, built, merchant().address);
    assert.isAtLeast(lies, 1, "the liar was asked the estimate, and lied");
    assert.equal(receipt.status, "success", "enough gas: the majority's estimate");
    assert.isAbove(Number(receipt.gasUsed), 25_200, "the call needs more than the liar's 21,000 (+20%)");
  });
  it("the node read first answering every simulation of the recurring contract with a revert: the charge is simulated on the majority, sent, and charged", async () => {
    const s = await subscribe(h, buyer(), { recipient: merchant().address, amount: "10", period: 3600 });
    await approveThroughSession(h, buyer(), s.subscription);
    const recurring = h.service.deployment.contracts.RecurringCharges.address.toLowerCase();
    const liar = h.nodes[0]!;
    let reverted = 0;
    liar.refusal = { code: 3, message: "execution reverted" };
    liar.refuse = (request) => {
      const call = request.params?.[0] as { to?: string } | undefined;
      const refused = request.method === "eth_call" && call?.to?.toLowerCase() === recurring;
      if (refused) reverted++;
      return refused;
    };
    for (const node of h.nodes) node.latencyMs = node === liar ? 0 : 20;
    built = await h.another();
    const first = await supertest(built.app).post("/v1/charges").send({ subscription: s.subscription });
    assert.isAtLeast(reverted, 1, "the liar was asked to simulate the charge, and answered a revert");
    assert.include(first.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(first.body));
    await h.chain.mine(3);
    const charged = await supertest(built.app).post("/v1/charges").send({ subscription: s.subscription });
    assert.include(charged.body, { status: "CHARGED", period_index: 0 }, JSON.stringify(charged.body));
  });
});
