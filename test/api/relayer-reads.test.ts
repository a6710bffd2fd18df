import { assert } from "chai";
import supertest from "supertest";
import { erc20Abi, numberToHex, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import type { PayBlock } from "../helpers/payments.js";
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

  /** A plain transfer to a new payment's address, a round that sends its settlement; the settlement's receipt. */
  async function settle(s: Service) {
    const res = await supertest(s.app).post("/v1/payments").send({ recipient: merchant().address, amount: "2" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { pay } = res.body as { pay: Required<PayBlock> };
    const buyer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const hash = await h.chain.wallet(buyer).writeContract({
      account: buyer,
      chain: h.chain.chain,
      address: pay.token,
      abi: erc20Abi,
      functionName: "transfer",
      args: [pay.deposit_address, BigInt(pay.amount_units)],
    });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    await s.follower.round();
    h.clock.advance(3);
    await s.follower.round();
    const [watch] = await s.database.query<{ tx_hash: Hex | null; nonce: string | null }>(
      "SELECT tx_hash, nonce FROM deposit_watches WHERE deposit_address = $1",
      [pay.deposit_address.toLowerCase()],
    );
    assert.isNotNull(watch?.tx_hash ?? null, "the settlement sent");
    return { watch: watch!, receipt: await h.chain.publicClient.waitForTransactionReceipt({ hash: watch!.tx_hash!, timeout: 10_000 }) };
  }

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
    const { watch, receipt } = await settle(built);
    assert.isAtLeast(lies.length, 1, "the liar was asked the pending nonce, and lied");
    assert.equal(receipt.status, "success");
    assert.equal(Number(watch.nonce), Number(BigInt(lies.at(-1)!)), "the nonce a majority holds, not the liar's");
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
    const { receipt } = await settle(built);
    assert.isAtLeast(lies, 1, "the liar was asked the estimate, and lied");
    assert.equal(receipt.status, "success", "enough gas: the majority's estimate");
    assert.isAbove(Number(receipt.gasUsed), 25_200, "the call needs more than the liar's 21,000 (+20%)");
  });
});
