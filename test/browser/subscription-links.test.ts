import { assert } from "chai";
import type { Browser } from "playwright-core";
import { erc20Abi, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { listen } from "../../src/service.js";
import { useService } from "../helpers/service.js";
import { ARTIFACTS, injectWallet, launchBrowser, statusOf } from "../helpers/browser.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/subscriptions`;

describe("subscription links in the hosted checkout (Chromium)", function () {
  this.timeout(180_000);
  const receiver = new Receiver();
  const resolve = async (host: string) => {
    if (host !== RECEIVER_HOST) throw new Error(`no such host ${host}`);
    return [{ address: "127.0.0.1", family: 4 }];
  };
  const h = useService(
    { PORT: "0", OPS_PORT: "0", WEBHOOKS_ALLOW_LOOPBACK: "true" },
    { deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) },
  );
  let browser: Browser;
  before(async () => {
    await receiver.start();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await receiver.stop();
  });
  afterEach(() => assert.deepEqual(receiver.mismatches.splice(0), [], "every webhook body matches its event's wire schema"));

  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const post = async (path: string, body: object) => (await h.api.post(path).send(body)).body;
  const drain = async () => {
    await h.service.webhooks.watcher.tick();
    await h.service.webhooks.delivery.runDue();
  };
  const recurringAllowance = (payer: Address) =>
    h.chain.publicClient.readContract({
      address: h.service.deployment.token.address,
      abi: erc20Abi,
      functionName: "allowance",
      args: [payer, h.service.deployment.contracts.RecurringCharges.address],
    });

  it("two payers subscribe through one link (phone and desktop); the merchant lists and charges both; events carry link_id; once closed a third visitor cannot subscribe and the first two are still charged", async () => {
    const running = await listen(h.service);
    try {
      const returnUrl = `${running.apiUrl}/shop/thanks`;
      const link = await post("/v1/links", { recipient: merchant().address, amount: "4.99", period: 3600, notify_url: HOOK, return_url: returnUrl });
      assert.match(link.url, /\/checkout\/#\/subscribe\/lk\./);
      // The link as the merchant shares it, on this test's port.
      const url = `${running.apiUrl}/checkout/#/subscribe/${link.link}`;
      const visit = async (payer: HDAccount, viewport: { width: number; height: number }, name: string) => {
        const page = await browser.newPage({ viewport });
        try {
          await injectWallet(page, h.chain, payer);
          // What the service sees when the page posts: the allowance must already be mined (else 400).
          const allowanceAtPost: bigint[] = [];
          await page.route("**/v1/links/subscribe", async (route) => {
            allowanceAtPost.push(await recurringAllowance(payer.address));
            await route.continue();
          });
          await page.goto(url);
          assert.equal(await page.locator("#amount").textContent(), "4.99 USDC");
          assert.equal(await page.locator("#period").textContent(), "every hour");
          await page.fill("#periods", "2");
          await page.click("#subscribe");
          // The service's first charge settles as blocks come (the page asks again until it is ACTIVE).
          await page.locator("#status", { hasText: "Your first charge is confirming" }).waitFor();
          const miner = setInterval(() => void h.chain.mine(1).catch(() => undefined), 500);
          const status = await statusOf(page, "ok").finally(() => clearInterval(miner));
          await page.screenshot({ path: `${ARTIFACTS}/checkout-subscription-link-${name}.png`, fullPage: true });
          assert.match(status, /^Subscribed: 4\.99 USDC every hour\./);
          assert.equal(await page.locator("#return-link").getAttribute("href"), returnUrl, "the way back to the merchant, no hand-back needed");
          assert.equal(page.url(), url, "the page stays: the link flow hands nothing back");
          assert.notInclude(await page.content(), "sc.", "the capability never reaches the browser");
          assert.equal(await recurringAllowance(payer.address), 4_990_000n, "the two periods the payer chose, less the first, charged");
          assert.isAtLeast(allowanceAtPost.length, 2, "posted, then asked again while the first charge confirmed");
          assert.equal(allowanceAtPost[0], 4_990_000n * 2n, "the page posts after its allowance is mined");
          // A phone's width holds the page: nothing scrolls sideways.
          assert.isAtMost(await page.evaluate<number>("document.scrollingElement.scrollWidth"), viewport.width);
          return status;
        } finally {
          await page.close();
        }
      };
      const [p1, p2, p3] = [LOCAL_ROLES.firstUser, LOCAL_ROLES.firstUser + 2, LOCAL_ROLES.firstUser + 3].map((i) => h.chain.accounts[i]!);
      await visit(p1!, { width: 390, height: 844 }, "phone");
      await visit(p2!, { width: 1280, height: 800 }, "desktop");

      const listed = (await post("/v1/links/subscriptions", { manage_token: link.manage_token })) as {
        subscriptions: Array<{ subscription_id: Hex; subscription: string; payer: Address }>;
        next: string | null;
      };
      assert.deepEqual(
        listed.subscriptions.map((s) => s.payer),
        [p1!.address, p2!.address],
      );
      assert.isNull(listed.next);
      // Their first periods were charged by the service before they were listed.
      for (const s of listed.subscriptions) assert.equal((await post("/v1/charges", { subscription: s.subscription })).status, "ALREADY_CHARGED");
      await drain();
      const events = receiver.received.map((r) => r.body as { type: string; data: { link_id: Hex | null; subscription_id: Hex } });
      const ids = listed.subscriptions.map((s) => s.subscription_id);
      // Watched from the moment the first charge settled: subscription.created (ACTIVE, paid_count 1) says so.
      assert.sameMembers(
        events.filter((e) => e.type === "subscription.created").map((e) => e.data.subscription_id),
        ids,
      );
      for (const e of events) assert.equal(e.data.link_id, link.link_id, `${e.type} carries link_id`);

      assert.equal((await post("/v1/links/close", { manage_token: link.manage_token })).closed, true);
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      try {
        await injectWallet(page, h.chain, p3!);
        // The link as a payment link's URL would carry it (#/link/): the checkout still opens it as a subscription link.
        await page.goto(url.replace("#/subscribe/", "#/link/"));
        assert.equal(await statusOf(page, "error"), "This link is closed or expired.");
        assert.equal(await page.locator("#subscribe").count(), 0, "nothing to sign");
        await page.screenshot({ path: `${ARTIFACTS}/checkout-subscription-link-closed.png`, fullPage: true });
      } finally {
        await page.close();
      }
      assert.lengthOf((await post("/v1/links/subscriptions", { manage_token: link.manage_token })).subscriptions, 2);

      receiver.received.length = 0;
      await h.chain.advanceTime(3600);
      for (const s of listed.subscriptions) {
        const charged = await post("/v1/charges", { subscription: s.subscription });
        assert.equal(charged.status, "CONFIRMING", JSON.stringify(charged));
        assert.equal(charged.period_index, 1);
      }
      await h.chain.mine(2);
      await drain();
      assert.sameMembers(
        receiver.received.filter((r) => r.body.type === "subscription.charged").map((r) => (r.body.data as { subscription_id: Hex }).subscription_id),
        ids,
        "the closed link's subscriptions are still charged, and still announced",
      );
    } finally {
      await running.close();
    }
  });
});
