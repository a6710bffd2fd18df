import { assert } from "chai";
import { numberToHex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import { depositSettlement } from "../helpers/deposits.js";
import { useService } from "../helpers/service.js";

/**
 * Issue 59, case 5: the relayer's reads that decide a send (its simulation and gas, the pending
 * nonce) stand on a majority of the nodes, never on the node read first.
 */
describe("the relayer's reads that decide a send stand on a majority", function () {
  this.timeout(90_000);
  const h = useService({}, { nodes: 3 });
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let built: Service | null = null;
  afterEach(() => {
    built = null;
    for (const node of h.nodes) {
      node.latencyMs = 0;
      node.rewrite = null;
    }
  });

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
});
