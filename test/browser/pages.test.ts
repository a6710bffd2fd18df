import { assert } from "chai";
import type { Browser, Page } from "playwright-core";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { ARTIFACTS, SCREEN_SIZES, injectWallet, statusOf, useCheckoutSession } from "../helpers/browser.js";
import { payIntent } from "../helpers/payments.js";
import { readQrOnScreen } from "../helpers/qr.js";
import { sendPrepared } from "../helpers/recurring.js";

/**
 * Every route and state of the checkout as a buyer sees it, at phone and desktop size: what it says,
 * that it fits the screen (no horizontal scrolling), its title, and a screenshot in test-results/.
 */
for (const size of SCREEN_SIZES) {
  describe(`checkout pages at ${size.name} size (${size.width}×${size.height})`, function () {
    this.timeout(120_000);
    const h = useService({ PORT: "0", OPS_PORT: "0" });
    const ui = useCheckoutSession(() => h.service, {
      page: {
        viewport: { width: size.width, height: size.height },
        locale: size.locale,
        timezoneId: size.timezoneId,
        permissions: ["clipboard-read", "clipboard-write"],
      },
      noCapabilityInUrls: true,
    });
    let browser: Browser;
    let api: string;
    let page: Page;
    let cspViolations: string[];
    const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const post = async (path: string, body: object) => (await h.api.post(path).send(body)).body;
    const back = () => `${api}/shop/thanks?order=42`;
    /**
     * "Back to the merchant": the merchant's return_url with its own query kept and the payment's
     * tx_hash and reference added; the hash verifies valid for the intent. Returns the hash.
     */
    const assertWayBack = async (intent: string, reference: string): Promise<string> => {
      const href = new URL((await page.locator("#return-link").getAttribute("href"))!);
      assert.equal(`${href.origin}${href.pathname}`, `${api}/shop/thanks`);
      assert.equal(href.searchParams.get("order"), "42", "the merchant's own parameter is kept");
      assert.equal(href.searchParams.get("reference"), reference);
      const tx_hash = href.searchParams.get("tx_hash")!;
      assert.match(tx_hash, /^0x[0-9a-f]{64}$/);
      const verdict = await post("/v1/payments/verify", { intent, tx_hash });
      assert.include(verdict, { valid: true, tx_hash, reference });
      return tx_hash;
    };

    beforeEach(() => {
      ({ browser, page, api } = ui);
      cspViolations = [];
      page.on("console", (m) => {
        if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      });
    });

    /** Asserts the page fits its width with every fold open, then saves the screenshot (folds as the buyer left them). */
    async function check(name: string, title: RegExp): Promise<void> {
      assert.match(await page.title(), title);
      if (await page.locator("#wallet-notice").count()) await page.locator("#wallet-notice[data-ready]").waitFor();
      const widths = await page.evaluate<{ width: number; now: number }>(`(() => {
        const folds = [...document.querySelectorAll("details")].map((d) => [d, d.open]);
        for (const [d] of folds) d.open = true;
        const width = document.scrollingElement.scrollWidth;
        for (const [d, open] of folds) d.open = open;
        return { width, now: document.scrollingElement.scrollWidth };
      })()`);
      assert.isAtMost(widths.width, size.width, `${name}: ${widths.width} px wide with the details open`);
      assert.isAtMost(widths.now, size.width, `${name}: ${widths.now} px wide`);
      await page.screenshot({ path: `${ARTIFACTS}/page-${size.name}-${name}.png`, fullPage: true });
      assert.deepEqual(cspViolations, [], `${name}: nothing the CSP had to block (QR code, icons, favicon, styles)`);
    }

    async function settle(): Promise<string> {
      await page.locator('#status[data-state="wait"]', { hasText: "Confirming" }).waitFor({ timeout: 30_000 });
      await h.chain.mine(2);
      return statusOf(page, "ok");
    }

    it("pay, no wallet in the browser: phone-wallet links and a QR code of this very page, no pay button", async () => {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "12.5" });
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      await page.locator("#no-wallet").waitFor();
      assert.isFalse(await page.locator("#pay").isVisible());
      assert.equal(await page.locator("#amount").textContent(), "12.50 USDC");
      assert.equal(await page.locator("#network .network-name").textContent(), "Base Sepolia (test)");
      assert.isTrue(await page.locator("#test-badge").isVisible());
      assert.include(await page.locator("#network").textContent(), "local chain");
      assert.match(
        (await page.locator("#validity").textContent())!,
        size.name === "phone"
          ? /^Valid until \d+ \w{3} \d{4}, \d\d:\d\d (CET|CEST) · (\d+:\d\d|1 h 00 min) left$/
          : /^Valid until \w{3} \d+, \d{4}, \d\d:\d\d (AM|PM) (EST|EDT) · (\d+:\d\d|1 h 00 min) left$/,
      );
      assert.isNull(await page.locator("details.more").getAttribute("open"), "the reference is folded away");
      assert.isFalse(await page.locator("details.more dd").first().isVisible());
      const url = page.url();
      assert.equal(await page.locator("#open-in-metamask").getAttribute("href"), `https://link.metamask.io/dapp/${url.replace(/^http:\/\//, "")}`);
      // Wallet links whose format would send the page URL (token included) to a third party's server are not offered.
      assert.equal(await page.locator("#open-in-coinbase, #open-in-trust").count(), 0);
      assert.equal(await page.locator("#copy-link").textContent(), "Copy link");
      assert.equal(await page.locator("#qr-note").textContent(), "The code opens this same page on your phone.");
      assert.include(await page.locator("#local-note").textContent(), "a phone cannot reach it");
      assert.isTrue(await page.locator("#handoff svg.qr").isVisible());
      assert.isAbove(Number(await page.locator("#handoff svg.qr").getAttribute("data-modules")), 20, "a QR code big enough for the URL");
      await check("pay-no-wallet", /^Pay 12\.50 USDC · Checkout$/);
      // The code on screen, read back as a phone camera held close would see it: the very SVG the page
      // shows, drawn 880 px wide on white with a quiet zone (a camera fills its frame with the code).
      const shot = `${ARTIFACTS}/page-${size.name}-pay-no-wallet-qr.png`;
      assert.equal(
        await readQrOnScreen(browser, page.locator("#handoff svg.qr"), shot),
        url,
        "the QR code on screen reads back as this page, fragment included",
      );
    });

    it("pay, wallet on another chain: said before paying; paid: explorer word and the way back to the merchant", async () => {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "12.34", return_url: back() });
      await injectWallet(page, h.chain, buyer(), { startChainId: 1, unknownChain: true });
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      assert.equal(await page.locator("#other-chain").textContent(), "Your wallet is on Ethereum. It will be asked to switch to Base Sepolia (test).");
      assert.isTrue(await page.locator("#pay").isVisible());
      assert.isNull(await page.locator("#handoff").getAttribute("open"), "the phone-wallet path is there, folded");
      await check("pay-other-chain", /^Pay 12\.34 USDC · Checkout$/);
      await page.click("#pay");
      assert.match(await settle(), /^Paid\./);
      assert.equal(await page.locator("#no-explorer").textContent(), "local chain: no explorer");
      const hash = await assertWayBack(intent.intent, intent.reference);
      assert.equal(await page.locator("#tx code").getAttribute("title"), hash, "the transaction the page shows");
      assert.equal(await page.locator("#validity").count(), 0, "no countdown once paid");
      await check("pay-paid", /^Paid · Checkout$/);
      await page.reload();
      await page.locator("h1", { hasText: "Paid" }).waitFor();
      assert.equal(await page.locator("#amount").textContent(), "12.34 USDC");
      assert.equal(await page.locator("#tx code").getAttribute("title"), hash, "a reload shows the transaction this tab sent");
      assert.equal(await assertWayBack(intent.intent, intent.reference), hash, "the same way back after a reload");
      const stored = await page.evaluate<Array<[string, string]>>("Object.entries(sessionStorage)");
      assert.isTrue(
        stored.every(([k, v]) => !k.includes(intent.intent) && !v.includes(intent.intent)),
        "the intent is never stored",
      );
      await check("pay-paid-reload", /^Paid · Checkout$/);
    });

    it("pay, refused in the wallet: says so, nothing sent, the button stays to try again", async () => {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
      const wallet = await injectWallet(page, h.chain, buyer(), { refuse: true });
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      await page.locator('#wallet-notice[data-ready="1"]').waitFor();
      await page.click("#pay");
      assert.equal(await statusOf(page, "error"), "You declined the request in your wallet. Nothing was sent or signed; you can try again.");
      assert.notInclude(wallet.requests, "eth_sendTransaction");
      assert.isTrue(await page.locator("#pay").isEnabled());
      await check("pay-refused", /^Pay 1\.00 USDC · Checkout$/);
    });

    it("pay, expired and already paid", async () => {
      const late = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
      h.clock.advance(3601);
      await page.goto(`${api}/checkout/#/pay/${late.intent}`);
      assert.include(await statusOf(page, "error"), "expired");
      await check("pay-expired", /^Expired · Checkout$/);
      const paid = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
      await payIntent(h.chain, buyer(), paid.pay);
      await h.chain.mine(2); // settled: resolve says PAYMENT_CONFIRMING above the finality head
      await page.goto(`${api}/checkout/#/pay/${paid.intent}`);
      await page.reload();
      assert.include(await statusOf(page, "ok"), "already made");
      await check("pay-already-paid", /^Paid · Checkout$/);
    });

    it("pay, the countdown runs out while the page is open: the button goes, the page says expired", async () => {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
      await page.clock.install({ time: h.clock.ms });
      await injectWallet(page, h.chain, buyer());
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      await page.locator("#pay").waitFor();
      assert.match((await page.locator("#countdown").textContent())!, /^(1 h 00 min|59:\d\d) left$/);
      await page.clock.fastForward("58:00");
      assert.match((await page.locator("#countdown").textContent())!, /^[12]:\d\d left$/);
      await page.clock.fastForward("02:05");
      assert.include(await statusOf(page, "error"), "expired");
      assert.equal(await page.locator("#pay").count(), 0);
      await check("pay-expired-open", /^Expired · Checkout$/);
    });

    it("pay on a real network: the transaction links to Sepolia Basescan", async () => {
      // The service here runs on the local chain; the page is told otherwise, as on Base Sepolia.
      await page.route("**/v1/capabilities", async (route) => {
        const real = await (await route.fetch()).json();
        await route.fulfill({ json: { ...real, local_chain: false } });
      });
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
      await injectWallet(page, h.chain, buyer());
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      assert.notInclude(await page.locator("#network").textContent(), "local chain");
      await page.click("#pay");
      await settle();
      const hash = await page.locator("#tx code").getAttribute("title");
      assert.equal(await page.locator("#explorer-link").getAttribute("href"), `https://sepolia.basescan.org/tx/${hash}`);
      assert.equal(await page.locator("#explorer-link").textContent(), "View on Sepolia Basescan");
      assert.equal(await page.locator("#return-link").count(), 0, "no way back when the merchant gave none");
      await check("pay-paid-explorer", /^Paid · Checkout$/);
    });

    it("link: a reload shows the same payment; once paid, a reload shows Paid with the transaction and the way back", async () => {
      const link = await post("/v1/links", { recipient: merchant().address, amount: "3", return_url: back() });
      await injectWallet(page, h.chain, buyer());
      const url = link.url.replace(/^http:\/\/[^/]+/, api);
      await page.goto(url);
      const reference = (await page.locator("details.more dd .hex-value").first().textContent()) as Hex;
      assert.isTrue(reference.startsWith(link.link_id));
      await page.reload();
      assert.equal(await page.locator("details.more dd .hex-value").first().textContent(), reference, "the same payment, not a new one");
      const stored = await page.evaluate<Array<[string, string]>>("Object.entries(sessionStorage)");
      assert.isTrue(
        stored.every(([k, v]) => !k.includes(link.link) && !v.includes(link.link)),
        "the link token is never stored in clear",
      );
      await page.click("#pay");
      await settle();
      // The link's payment: the way back carries its hash and reference; the merchant verifies them
      // with the intent the link minted (the payment.settled event's intent, read with the manage token).
      const kept = await page.evaluate<string[]>("Object.values(sessionStorage)");
      const minted = kept.map((v) => JSON.parse(v) as { intent?: string }).find((v) => v.intent)!.intent!;
      const linkHref = new URL((await page.locator("#return-link").getAttribute("href"))!);
      assert.equal(linkHref.searchParams.get("order"), "42");
      assert.equal(linkHref.searchParams.get("reference"), reference);
      const paidHash = linkHref.searchParams.get("tx_hash");
      assert.equal(paidHash, await page.locator("#tx code").getAttribute("title"));
      assert.include(await post("/v1/payments/verify", { intent: minted, tx_hash: paidHash }), { valid: true, reference });
      await page.reload();
      await page.locator("h1", { hasText: "Paid" }).waitFor();
      assert.equal(await page.locator("#amount").textContent(), "3.00 USDC");
      assert.equal(await page.locator("#tx code").getAttribute("title"), paidHash);
      assert.equal(await page.locator("#return-link").getAttribute("href"), linkHref.href, "the same way back after a reload");
      assert.notExists(
        await page
          .locator("#pay")
          .elementHandle({ timeout: 100 })
          .catch(() => null),
        "never offered to pay again",
      );
      await check("link-paid-reload", /^Paid · Checkout$/);
    });

    it("two wallets in the browser: the buyer chooses, and the chosen one pays", async () => {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "2" });
      const first = await injectWallet(page, h.chain, buyer());
      const second = await injectWallet(page, h.chain, buyer(), {
        second: { name: "Second Wallet", uuid: "00000000-0000-4000-8000-000000000002", rdns: "second.wallet" },
      });
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      assert.equal(await page.locator("#several-wallets").textContent(), "2 wallets found: you will choose one.");
      await page.click("#pay");
      await page.locator("#wallet-chooser").waitFor();
      assert.deepEqual(await page.locator("#wallet-chooser .wallet-option").allTextContents(), ["Test Wallet", "Second Wallet"]);
      await check("chooser", /^Pay 2\.00 USDC · Checkout$/);
      await page.click('#wallet-chooser .wallet-option[data-rdns="second.wallet"]');
      await settle();
      assert.include(second.requests, "eth_sendTransaction");
      assert.notInclude(first.requests, "eth_requestAccounts", "the other wallet was never asked");
    });

    it("subscribe, approve, cancel and refund pages read well and fit", async () => {
      const setup = await post("/v1/subscriptions", { recipient: merchant().address, amount: "9.99", period: 86_400 * 30 });
      await injectWallet(page, h.chain, buyer());
      await page.goto(`${api}/checkout/#/subscribe/${setup.setup_token}`);
      assert.equal(await page.locator("#amount").textContent(), "9.99 USDC");
      await check("subscribe", /^Subscribe 9\.99 USDC every 30 days · Checkout$/);

      const resolved = await post("/v1/subscriptions/resolve", { setup_token: setup.setup_token });
      const { walletTypedData } = await import("../helpers/recurring.js");
      const signature = await buyer().signTypedData(walletTypedData(resolved, buyer().address) as never);
      const { subscription } = await post("/v1/subscriptions/finalize", { setup_token: setup.setup_token, payer: buyer().address, signature });
      await sendPrepared(h, buyer(), await post("/v1/allowances/revoke/prepare", {}));
      const approve = await post("/v1/subscriptions/approve/session", { subscription });
      await page.goto(`${api}/checkout/#/approve/${approve.approve_token}`);
      await page.reload();
      assert.equal(await page.locator("#amount").textContent(), "9.99 USDC");
      // The page names what it acts on: amount, period in words, the signed recipient, the next charge.
      const short = `${merchant().address.slice(0, 6)}…${merchant().address.slice(-4)}`;
      assert.equal(await page.locator("#subscription").textContent(), `9.99 USDC every 30 days to ${short}, next charge due now`);
      await check("approve", /^Restore allowance · Checkout$/);
      await page.click("#approve");
      await statusOf(page, "ok");

      // Charged for this period: the cancel page names the next charge's day, in the buyer's own time zone.
      assert.equal((await post("/v1/charges", { subscription })).status, "CONFIRMING");
      await h.chain.mine(2);
      assert.equal((await post("/v1/charges", { subscription })).status, "CHARGED");
      const cancel = await post("/v1/subscriptions/revoke/session", { subscription });
      const prepared = await post("/v1/subscriptions/revoke/prepare", { subscription: cancel.cancel_token });
      const next = new Date(prepared.terms.next_charge_at * 1000);
      assert.equal(prepared.terms.next_charge_at, resolved.start + 86_400 * 30, "the next period's start");
      const day = new Intl.DateTimeFormat(size.locale, {
        day: "numeric",
        month: "short",
        timeZone: size.timezoneId,
        ...(next.getUTCFullYear() === new Date().getUTCFullYear() ? {} : { year: "numeric" }),
      }).format(next);
      await page.goto(`${api}/checkout/#/cancel/${cancel.cancel_token}`);
      await page.reload();
      await page.locator("#cancel").waitFor();
      assert.equal(await page.locator("#subscription").textContent(), `9.99 USDC every 30 days to ${short}, next charge on ${day}`);
      // Addresses in full, in groups of four that never break, each with a copy button.
      const to = page.locator("dd.hex").first();
      assert.equal(await to.locator(".hex-value").textContent(), merchant().address, "every digit, no spaces in the text");
      assert.deepEqual(
        await to.locator(".hex-group").allTextContents(),
        merchant()
          .address.replace(/^0x/, "")
          .match(/.{4}/g)!
          .map((g, i) => (i === 0 ? `0x${g}` : g)),
      );
      const groupHeights = await to.locator(".hex-group").evaluateAll((groups) => groups.map((g) => g.getClientRects().length));
      assert.deepEqual([...new Set(groupHeights)], [1], "no group is cut across lines");
      await to.locator("button.copy").click();
      assert.equal(await page.evaluate("navigator.clipboard.readText()"), merchant().address);
      await check("cancel", /^Cancel subscription · Checkout$/);
      await page.click("#cancel");
      assert.include(await statusOf(page, "ok"), "Subscription cancelled");
      await check("cancel-done", /^Cancel subscription · Checkout$/);

      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "8" });
      const receipt = await payIntent(h.chain, buyer(), intent.pay);
      await h.chain.mine(2);
      const refund = await post("/v1/refunds/prepare", { intent: intent.intent, tx_hash: receipt.transactionHash, amount: "8000000" });
      await page.goto(`${api}/checkout/#/refund/${refund.refund_token}`);
      await page.reload();
      assert.equal(await page.locator("#amount").textContent(), "8.00 USDC");
      await check("refund", /^Refund 8\.00 USDC · Checkout$/);
    });

    it("the landing page, a bad token and an expired subscription link", async () => {
      const res = await page.goto(`${api}/checkout/`);
      await page.locator("h1").waitFor();
      await check("landing", /^Checkout$/);
      const icon = await page.request.get(`${api}/checkout/favicon.svg`);
      assert.equal(icon.status(), 200);
      assert.equal(await page.locator('link[rel="icon"]').getAttribute("href"), "favicon.svg");
      assert.include(res!.headers()["content-security-policy"]!, "img-src 'self' data:");
      await page.goto(`${api}/checkout/#/pay/not-a-token`);
      await page.reload();
      assert.include(await statusOf(page, "error"), "not valid");
      await check("pay-invalid", /^Payment · Checkout$/);
      const setup = await post("/v1/subscriptions", { recipient: merchant().address, amount: "5", period: 3600 });
      h.clock.advance(24 * 3600);
      await page.goto(`${api}/checkout/#/subscribe/${setup.setup_token}`);
      await page.reload();
      assert.include(await statusOf(page, "error"), "expired");
      await check("subscribe-expired", /^Subscription: expired · Checkout$/);
    });
  });
}
