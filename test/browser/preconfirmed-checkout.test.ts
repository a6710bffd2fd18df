import { assert } from "chai";
import type { Page } from "playwright-core";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { useService } from "../helpers/service.js";
import { ARTIFACTS, injectWallet, statusOf, useCheckoutSession } from "../helpers/browser.js";

/**
 * The hosted checkout on a chain that preconfirms like Base's Flashblocks (dev/localchain/base-node.ts,
 * driven by hand): the buyer sees "Received, confirming" as soon as the payment is preconfirmed,
 * before its block is sealed, and Paid only once verify says valid (finality counted in sealed blocks).
 */
describe("hosted checkout with preconfirmations, in Chromium", function () {
  this.timeout(120_000);
  const h = useService({ PORT: "0", OPS_PORT: "0" });
  let node: BaseNode | null = null;
  const ui = useCheckoutSession(() => h.service, {
    beforeClose: async (_test, { page }) => {
      try {
        await page.screenshot({ path: `${ARTIFACTS}/checkout-preconfirmed.png`, fullPage: true });
      } finally {
        await node?.close();
        node = null;
      }
    },
  });
  let page: Page;
  let api: string;
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;

  beforeEach(() => {
    ({ page, api } = ui);
  });

  it('pay: the page says "Received, confirming" once the payment is preconfirmed, before its block is sealed, and Paid only at finality', async () => {
    const intent = (await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "12.5" })).body;
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    assert.equal(await page.locator("#amount").textContent(), "12.50 USDC");
    // Flashblocks built by the test; no block is sealed until it says so.
    node = await startBaseNode(h.chain, { latencyMs: 0, manual: true });
    const sealedBefore = await h.chain.publicClient.getBlockNumber({ cacheTime: 0 });
    await page.click("#pay");
    await page.locator('#status[data-state="wait"]', { hasText: "Payment sent" }).waitFor({ timeout: 30_000 });

    // A Flashblock every 200 ms until the page says the payment was received.
    const received = page.locator('#status[data-state="wait"]', { hasText: "Received, confirming" });
    const deadline = Date.now() + 30_000;
    while (!(await received.isVisible())) {
      assert.isBelow(Date.now(), deadline, "the page says Received within 30 s of Flashblocks");
      await node.flashblock();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const hash = (await page.locator("#tx code").getAttribute("title")) as Hex;
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    assert.equal(receipt.blockNumber, sealedBefore + 1n, "preconfirmed for the next block");
    assert.equal(await h.chain.publicClient.getBlockNumber({ cacheTime: 0 }), sealedBefore, "said before that block was sealed");
    assert.notInclude((await page.locator("#status").textContent()) ?? "", "Paid");

    // Sealed, then the finality depth (2 blocks): Paid.
    await node.seal();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.notInclude((await page.locator("#status").textContent()) ?? "", "Paid", "not Paid on the sealed block alone");
    await node.seal();
    await node.seal();
    assert.match(await statusOf(page, "ok"), /^Paid\.Transaction /);
  });
});
