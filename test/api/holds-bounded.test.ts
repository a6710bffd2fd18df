import { assert } from "chai";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { HOLD_LIST_MAX_READS } from "../../src/holds/hold-list.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";

const WEEK = 7 * 86_400;
/** The provider's cap: it refuses any log range wider than this. */
const CAP = 10_000n;

/**
 * A hold's reads are bounded (DESIGN v8, "Holds' reads and terms"): its state, capture and refund read
 * the receipts of the service's own calls and the escrow's ledger, never a log range from the hold's
 * block to the head, so a hold made a week of chain time ago answers behind a provider that refuses
 * ranges over 10,000 blocks.
 */
describe("holds: reads within a provider's range cap", function () {
  this.timeout(120_000);
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const nowSeconds = () => Math.floor(h.clock.now() / 1000);

  async function post(path: string, body: object, status = 200) {
    const res = await h.api.post(path).send(body);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  async function settle(sent: { tx_hash: Hex }) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash });
    await h.chain.mine(3);
    await h.service.holdOperator!.follow();
  }

  it("a hold authorized a week of chain time ago answers /state, capture, void and refund, each read within the cap", async () => {
    const created = await post("/v1/holds", {
      recipient: merchant().address,
      amount: "10.00",
      capture_before: nowSeconds() + WEEK + 86_400,
      refund_before: nowSeconds() + 4 * WEEK,
    });
    const resolved = await post("/v1/holds/resolve", { hold: created.checkout_token, payer: buyer().address });
    await settle(
      await post("/v1/holds/authorize", { hold: created.checkout_token, payer: buyer().address, signature: signWithMetaMask(buyer(), resolved.typed_data) }),
    );

    // A week later, 100,000 blocks on: ten times what the provider answers in one range.
    await h.chain.mine(100_000);
    await h.chain.advanceTime(WEEK - 100_000);
    h.clock.advance(WEEK);
    const refused: string[] = [];
    h.proxy.refuse = (r) => {
      if (r.method !== "eth_getLogs") return false;
      const [filter] = r.params as [{ fromBlock: Hex; toBlock: Hex }];
      const wide = BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n > CAP;
      if (wide) refused.push(`${filter.fromBlock}-${filter.toBlock}`);
      return wide;
    };
    const logReads = h.proxy.count("eth_getLogs");

    assert.deepInclude(await post("/v1/holds/state", { hold: created.hold }), { state: "AUTHORIZED", payer: buyer().address, capturable_units: "10000000" });
    await settle(await post("/v1/holds/capture", { hold: created.hold, amount: "4.00" }));
    const prepared = await post("/v1/holds/refund", { hold: created.hold, amount: "1.00" });
    assert.deepInclude(prepared, { status: "PREPARED", payer: buyer().address, refund_amount_units: "1000000" });
    await settle(await post("/v1/holds/void", { hold: created.hold }));
    assert.deepInclude(await post("/v1/holds/state", { hold: created.hold }), { state: "VOIDED", captured_units: "4000000", voided_units: "6000000" });
    assert.deepEqual(refused, [], "no read asked the provider for a range over its cap");
    assert.equal(h.proxy.count("eth_getLogs") - logReads, 0, "no log range read at all: the receipts of the service's own calls");

    // The list pages back a few ranges at a time (LOG_RANGE_SECONDS), each within the cap, down to the hold.
    const listReads = h.proxy.count("eth_getLogs");
    let page = await post("/v1/holds/list", { recipient: merchant().address });
    const pages = [page];
    while (page.holds.length === 0 && page.next_before_block !== null) {
      page = await post("/v1/holds/list", { recipient: merchant().address, before_block: page.next_before_block });
      pages.push(page);
    }
    assert.deepInclude(page.holds[0], { hold_id: created.hold_id, state: "VOIDED", captured_units: "4000000", capturable_units: "0" });
    assert.isAbove(pages.length, 1, "100,000 blocks are more than one page's ranges");
    for (const [i, p] of pages.slice(1).entries())
      assert.equal(BigInt(p.as_of_block) >= BigInt(pages[i]!.next_before_block), true, "each page starts below the last");
    assert.deepEqual(refused, [], "no list read over the cap either");
    assert.isAtMost(h.proxy.count("eth_getLogs") - listReads, pages.length * HOLD_LIST_MAX_READS);
    console.log(`      (the list: ${pages.length} pages, ${h.proxy.count("eth_getLogs") - listReads} log reads, each within ${CAP} blocks)`);
  });
});
