import { assert } from "chai";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { ARTIFACTS, SCREEN_SIZES, injectWallet, statusOf, useCheckoutSession } from "../helpers/browser.js";
import { payIntent } from "../helpers/payments.js";
import { approve } from "../helpers/tx.js";
import { walletTypedData, type ResolvedTerms } from "../helpers/recurring.js";

/** The checkout's merchant page (#/merchant/<address>) in Chromium, at phone and desktop size, with screenshots. */
for (const size of SCREEN_SIZES) {
  describe(`merchant page at ${size.name} size (${size.width}×${size.height})`, function () {
    this.timeout(120_000);
    const h = useService({ PORT: "0", OPS_PORT: "0" });
    const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
    const post = async (path: string, body: object) => (await h.api.post(path).send(body)).body;

    const ui = useCheckoutSession(() => h.service, {
      page: { viewport: { width: size.width, height: size.height }, locale: size.locale, timezoneId: size.timezoneId, acceptDownloads: true },
      noCapabilityInUrls: true,
    });
    let page: Page;
    let api: string;
    beforeEach(() => {
      ({ page, api } = ui);
    });

    /** The page fits its width (nothing scrolls sideways), then its screenshot. */
    async function check(name: string): Promise<void> {
      assert.match(await page.title(), /^Payments received · Checkout$/);
      assert.isAtMost(await page.evaluate<number>("document.scrollingElement.scrollWidth"), size.width, `${name}: fits`);
      await page.screenshot({ path: `${ARTIFACTS}/merchant-${size.name}-${name}.png`, fullPage: true });
    }

    async function paid(amount: string) {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount });
      const receipt = await payIntent(h.chain, buyer(), intent.pay);
      return { reference: intent.reference as Hex, hash: receipt.transactionHash, block: receipt.blockNumber };
    }

    it("shows each payment's amount, fee, payer and a link to its transaction, newest first, with the range's total; Download CSV names the tx_hash", async () => {
      // The service runs on the local chain; the page is told otherwise, as on Base Sepolia, for its explorer links.
      await page.route("**/v1/capabilities", async (route) => route.fulfill({ json: { ...(await (await route.fetch()).json()), local_chain: false } }));
      const first = await paid("12.5");
      const second = await paid("3");
      await h.chain.mine(2);
      await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
      await page.locator("#total").waitFor();
      const rows = page.locator("#payments li.payment");
      assert.deepEqual(await rows.evaluateAll((li) => li.map((l) => l.getAttribute("data-tx"))), [second.hash, first.hash]);
      assert.equal(await rows.nth(1).locator(".amount").textContent(), "12.50 USDC");
      assert.equal(await rows.nth(1).locator(".fee").textContent(), "0.25 USDC (net 12.25 USDC)");
      assert.equal(await rows.nth(1).locator(".explorer-link").getAttribute("href"), `https://sepolia.basescan.org/tx/${first.hash}`);
      assert.equal(await rows.nth(1).locator(".payer code").textContent(), `${buyer().address.slice(0, 6)}…${buyer().address.slice(-4)}`);
      const block = await h.chain.publicClient.getBlock({ blockNumber: first.block });
      const when = new Intl.DateTimeFormat(size.locale, {
        day: "numeric",
        month: "short",
        year: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        timeZoneName: "short",
        timeZone: size.timezoneId,
      }).format(new Date(Number(block.timestamp) * 1000));
      assert.equal(await rows.nth(1).locator(".when").textContent(), when, "in the merchant's own time zone");
      assert.equal(await page.locator("#total").textContent(), "2 payments, total 15.50 USDC (fees 0.31 USDC, net 15.19 USDC)");
      await check("payments");

      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#csv")]);
      const path = `${ARTIFACTS}/merchant-${size.name}-payments.csv`;
      await download.saveAs(path);
      const lines = readFileSync(path, "utf8").trimEnd().split("\r\n");
      assert.equal(lines[0], "timestamp_utc,timestamp_ms,amount,fee,net,payer,reference,tx_hash,block_number,settled_by");
      assert.equal(
        lines[2],
        [
          new Date(Number(block.timestamp) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
          (block as { timestampMs?: string }).timestampMs !== undefined ? BigInt((block as { timestampMs?: string }).timestampMs!).toString() : "",
          "12.500000",
          "0.250000",
          "12.250000",
          buyer().address,
          first.reference,
          first.hash,
          first.block.toString(),
          "pay",
        ].join(","),
      );
      assert.include(lines[1], second.hash);
    });

    it("Load older reads the next range, named by its date, and adds its payments to the list and the total", async () => {
      const old = await paid("2");
      await h.chain.mine(20_000);
      const recent = await paid("1");
      await h.chain.mine(2);
      // A provider that refuses log ranges over 1,000 blocks: a page's reads cover fewer blocks than lie between the two.
      h.proxy.refuse = (r) => {
        if (r.method !== "eth_getLogs") return false;
        const [filter] = r.params as [{ fromBlock?: string; toBlock?: string }];
        if (!filter.fromBlock?.startsWith("0x") || !filter.toBlock?.startsWith("0x")) return false; // the service's own follower
        return BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n > 1_000n;
      };
      await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
      await page.locator("#total").waitFor();
      assert.equal(await page.locator("#payments li.payment").count(), 1);
      assert.notInclude(await page.locator("#range").textContent(), "(all)");
      assert.notInclude(await page.locator("#range").textContent(), "block", "dates, never block numbers");
      assert.match((await page.locator("#older").textContent()) ?? "", /^Load payments before \S/);
      await page.click("#older");
      const rows = page.locator("#payments li.payment");
      await rows.nth(1).waitFor();
      assert.deepEqual(await rows.evaluateAll((li) => li.map((l) => l.getAttribute("data-tx"))), [recent.hash, old.hash]);
      assert.equal(await page.locator("#total").textContent(), "2 payments, total 3.00 USDC (fees 0.06 USDC, net 2.94 USDC)");
      if (!(await page.locator("#range").textContent())?.includes("(all)")) await page.click("#older");
      await page.locator("#range", { hasText: "(all)" }).waitFor();
      assert.equal(await page.locator("#older").count(), 0, "nothing older to load");
      h.proxy.refuse = null;
    });

    it("a connected recipient wallet refunds a payment from its row (part of it, on the refund page), and the refund verifies", async () => {
      const p = await paid("10");
      await h.chain.mine(2);
      await injectWallet(page, h.chain, merchant());
      await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
      await page.locator("#total").waitFor();
      assert.equal(await page.locator("button.refund").count(), 0, "no refund before the recipient's wallet is connected");
      await page.click("#connect");
      await page.locator('#wallet-line[data-recipient="true"]').waitFor();
      await page.click("#refund-0");
      assert.equal(await page.locator("#refund-amount-0").inputValue(), "10");
      await page.fill("#refund-amount-0", "2.5");
      await check("refund-form");
      await page.click("#refund-prepare-0");
      await page.locator("#refund").waitFor();
      assert.match(page.url(), /#\/refund\/rt\./);
      assert.equal(await page.locator("#amount").textContent(), "2.50 USDC");
      await page.click("#refund");
      assert.include(await statusOf(page, "ok"), "Refund sent.");
      const refundHash = (await page.locator("#tx code").getAttribute("title")) as Hex;
      await h.chain.mine(2);
      const verified = await post("/v1/refunds/verify", { tx_hash: p.hash, reference: p.reference, refund_amount: "2500000", refund_tx_hash: refundHash });
      assert.deepInclude(verified, { status: "REFUNDED", refund_amount: "2500000", payer: buyer().address, merchant: merchant().address });
    });

    it("another wallet connected: no refund offered; a stranger's address: the empty state", async () => {
      await paid("1");
      await h.chain.mine(2);
      await injectWallet(page, h.chain, stranger());
      await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
      await page.locator("#total").waitFor();
      await page.click("#connect");
      await page.locator('#wallet-line[data-recipient="false"]').waitFor();
      assert.equal(await page.locator("button.refund").count(), 0);
      await page.goto(`${api}/checkout/#/merchant/${stranger().address}`);
      await page.reload();
      assert.equal(await page.locator("#empty").textContent(), "No payments to this address yet.");
      assert.equal(await page.locator("#csv").count(), 0, "nothing to download");
      await check("empty");
    });

    it("with no address: connecting the wallet fills it", async () => {
      await injectWallet(page, h.chain, merchant());
      await page.goto(`${api}/checkout/#/merchant`);
      await page.click("#connect");
      await page.locator("#empty").waitFor();
      assert.equal(page.url(), `${api}/checkout/#/merchant/${merchant().address}`);
    });

    it("a pasted view token lists the link's subscribers with state and last charge; a manage token is refused; a token handed in the URL is taken out of it and its history", async () => {
      const link = await post("/v1/links", { recipient: merchant().address, amount: "4.99", period: 3600 });
      const payer = buyer();
      await approve(h.chain, payer, h.chain.deployment.token.address, h.chain.deployment.contracts.RecurringCharges.address, 10n ** 9n);
      const resolved = await post("/v1/subscriptions/resolve", { setup_token: link.link });
      const signature = await payer.signTypedData(walletTypedData(resolved as ResolvedTerms, payer.address) as never);
      await post("/v1/links/subscribe", { setup_token: resolved.setup_token, payer: payer.address, signature });
      await h.chain.mine(2);
      // The service's first charge settled: the subscriber is listed from here.
      assert.equal((await post("/v1/links/subscribe", { setup_token: resolved.setup_token, payer: payer.address, signature })).state, "ACTIVE");

      await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
      await page.locator("#empty").waitFor(); // a charge is no Paid: the payments list has none
      await page.click("#subscribers-box summary");
      // The manage token is refused before it is sent anywhere.
      await page.fill("#view-token", link.manage_token);
      await page.click("#show-subscribers");
      await page.locator('#subscribers-status[data-state="error"]').waitFor();
      assert.match((await page.locator("#subscribers-status").textContent()) ?? "", /not a view token/);
      assert.isNull(await page.evaluate(`sessionStorage.getItem("merchant-view-token")`));
      await page.fill("#view-token", link.view_token);
      await page.click("#show-subscribers");
      const row = page.locator("#subscribers li.subscriber");
      await row.waitFor();
      assert.equal(await row.locator(".state").textContent(), "ACTIVE");
      assert.include(await row.textContent(), "4.99 USDC every hour · 1 charge · last charge for the period from");
      assert.equal(page.url(), `${api}/checkout/#/merchant/${merchant().address}`, "never in the URL");
      assert.equal(await page.evaluate(`sessionStorage.getItem("merchant-view-token")`), link.view_token);
      assert.notMatch(await page.content(), /sc\.k1\./, "no subscription capability reaches the page");
      await check("subscribers");
      // A reload of the bare page finds the token in this tab's sessionStorage.
      await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
      await page.reload();
      await page.locator("#subscribers li.subscriber").waitFor();
      // Handed in the fragment: read, then taken out of the URL and of this history entry.
      await page.evaluate(`sessionStorage.clear()`);
      await page.goto(`${api}/checkout/#/merchant/${merchant().address}/${link.view_token}`);
      await page.reload();
      await page.locator("#subscribers li.subscriber").waitFor();
      assert.equal(page.url(), `${api}/checkout/#/merchant/${merchant().address}`, "taken out of the URL once read");
      assert.notInclude(await page.evaluate<string>("location.href"), "lv.", "nor left in the history entry");
    });
  });
}
