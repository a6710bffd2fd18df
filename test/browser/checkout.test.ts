import { assert } from "chai";
import type { Browser, Page } from "playwright-core";
import { decodeFunctionData, erc20Abi, getAddress, maxUint256, parseEther, type Address, type Hex } from "viem";
import { recurringChargesAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { ARTIFACTS, injectWallet, statusOf, useCheckoutSession } from "../helpers/browser.js";
import { payIntent } from "../helpers/payments.js";
import { approve, balanceOf, send } from "../helpers/tx.js";
import { sendPrepared } from "../helpers/recurring.js";
import { readQrOnScreen } from "../helpers/qr.js";

describe("hosted checkout in Chromium", function () {
  this.timeout(120_000);
  const h = useService({ PORT: "0", OPS_PORT: "0" });
  const ui = useCheckoutSession(() => h.service, {
    // A phone; each test's screenshot is named after its title, up to the colon.
    beforeClose: async (test, { page }) => {
      const name = test!.title
        .split(":")[0]!
        .replace(/[^a-z0-9]+/gi, "-")
        .toLowerCase();
      await page.screenshot({ path: `${ARTIFACTS}/checkout-${name}.png`, fullPage: true });
    },
  });
  let browser: Browser;
  let api: string;
  let page: Page;
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const usdc = () => h.service.deployment.token.address;
  const post = async (path: string, body: object) => (await h.api.post(path).send(body)).body;
  const recurring = () => h.service.deployment.contracts.RecurringCharges.address;
  /** The payer's one allowance to the recurring contract, shared by all their subscriptions. */
  const recurringAllowance = () =>
    h.chain.publicClient.readContract({ address: usdc(), abi: erc20Abi, functionName: "allowance", args: [buyer().address, recurring()] });
  /** The amount of an approve the page sent to the recurring contract, with the status line the buyer saw as it went. */
  const approvals = (seen: Array<{ amount: bigint; status: string }>) => async (tx: { to: Address; data: Hex }) => {
    const call = decodeFunctionData({ abi: erc20Abi, data: tx.data });
    if (call.functionName === "approve") seen.push({ amount: call.args[1] as bigint, status: (await page.locator("#status").textContent()) ?? "" });
  };

  beforeEach(() => {
    ({ browser, page, api } = ui);
  });

  /** The Splitter's replay guard for one payment (its key binds token, recipient, amount and reference). */
  async function settledBlockOf(recipient: Address, amount: bigint, reference: Hex): Promise<bigint> {
    const splitter = h.service.deployment.contracts.Splitter.address;
    const read = h.chain.publicClient.readContract;
    const key = await read({ address: splitter, abi: splitterAbi, functionName: "paymentKey", args: [usdc(), recipient, amount, reference] });
    return read({ address: splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] });
  }

  /** Once the page's transaction is mined and it polls for settlement, mines the confirmations. */
  async function settle(): Promise<string> {
    await page.locator('#status[data-state="wait"]', { hasText: "Confirming" }).waitFor({ timeout: 30_000 });
    await h.chain.mine(2);
    return statusOf(page, "ok");
  }

  it("pay by the EIP-681 QR code, no browser wallet: the code on screen is read back, exactly the transfer it describes is sent from a fresh account, the service settles it, and the page says Paid", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "12.5", return_url: `${api}/shop/done?cart=7` });
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    await page.locator("#pay-by-transfer summary").click();
    assert.equal(
      await page.locator("#transfer-words").textContent(),
      "Send exactly 12.50 USDC on Base Sepolia (test) (chain id 84532) to this payment's own address, from any wallet or an exchange withdrawal. Only USDC on Base Sepolia (test) pays: another token or network does not.",
    );
    const scanned = await readQrOnScreen(browser, page.locator("#transfer-qr"), `${ARTIFACTS}/checkout-pay-by-transfer-qr.png`);
    // What a wallet app reads: an EIP-681 request for the token, on the chain, to the payment address, for the units.
    const request = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(scanned);
    assert.isNotNull(request, scanned);
    const [, token, chainId, to, units] = request!;
    assert.equal(getAddress(token!), usdc());
    assert.equal(chainId, "84532");
    assert.equal(getAddress(to!), intent.pay.deposit_address);
    assert.equal(units, "12500000");
    // A wallet that never touched this service (an exchange's, as far as the chain can tell) sends it.
    const sender = localAccount(940);
    await h.chain.testClient.setBalance({ address: sender.address, value: parseEther("1") });
    await send(h.chain, buyer(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [sender.address, 12_500_000n] });
    const merchantBefore = await balanceOf(h.chain, usdc(), merchant().address);
    await send(h.chain, sender, { address: getAddress(token!), abi: erc20Abi, functionName: "transfer", args: [getAddress(to!), BigInt(units!)] });
    // The running service's own rounds find the transfer and send the settlement: a round of the test's
    // own beside them would race them for it, and lose it to them on a busy machine.
    await page.locator('#status[data-state="wait"]', { hasText: "Payment received. Confirming" }).waitFor({ timeout: 30_000 });
    await h.chain.mine(2);
    assert.match(await statusOf(page, "ok"), /^Paid\.Transaction 0x[0-9a-f]{4}…[0-9a-f]{4} · local chain: no explorerBack to the merchant$/);
    assert.equal(await page.locator("#pay").count(), 0);
    assert.equal(await page.locator("#pay-by-transfer").count(), 0);
    assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 12_250_000n, "12.50 less the 2% fee");
    // Back to the merchant with the settlement's hash (the buyer's transfer verifies too), its own query kept.
    const back = new URL((await page.locator("#return-link").getAttribute("href"))!);
    assert.equal(back.searchParams.get("cart"), "7");
    assert.equal(back.searchParams.get("reference"), intent.reference);
    assert.include(await post("/v1/payments/verify", { intent: intent.intent, tx_hash: back.searchParams.get("tx_hash") }), {
      valid: true,
      reference: intent.reference,
    });
  });

  it("pay: resolves the intent, pays in one transaction (EIP-3009 signed by MetaMask's eth-sig-util V4), says Received, confirming once it is in a block, Paid once settled", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "12.5" });
    const wallet = await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    assert.equal(await page.locator("#amount").textContent(), "12.50 USDC");
    const merchantBefore = await balanceOf(h.chain, usdc(), merchant().address);
    await page.click("#pay");
    // In a block, not final yet: the block is the early signal (issue 43), Paid waits for finality.
    await page.locator('#status[data-state="wait"]', { hasText: "Received, confirming" }).waitFor({ timeout: 30_000 });
    assert.match(await settle(), /^Paid\.Transaction 0x[0-9a-f]{4}…[0-9a-f]{4} · local chain: no explorer$/);
    assert.match((await page.locator("#tx code").getAttribute("title"))!, /^0x[0-9a-f]{64}$/);
    assert.include(wallet.requests, "eth_signTypedData_v4");
    assert.equal(wallet.requests.filter((m) => m === "eth_sendTransaction").length, 1, "one transaction");
    assert.isAbove(Number(await settledBlockOf(merchant().address, 12_500_000n, intent.reference)), 0);
    assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 12_250_000n);
  });

  it("pay: someone else submits the buyer's signed authorization first; the checkout asks recover and shows Paid, not a failure", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "4" });
    const someoneElse = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
    let frontRun: Hex | undefined;
    await injectWallet(page, h.chain, buyer(), {
      beforeSend: async (tx) => {
        // A watcher of the mempool copies the call and gets it mined first.
        frontRun = await h.chain.wallet(someoneElse).sendTransaction({ account: someoneElse, chain: h.chain.chain, to: tx.to, data: tx.data });
        await h.chain.publicClient.waitForTransactionReceipt({ hash: frontRun });
      },
    });
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    await page.click("#pay");
    assert.match(await settle(), /^Paid\.Transaction /);
    assert.equal(await page.locator("#tx code").getAttribute("title"), frontRun);
    assert.equal(await page.locator('#status[data-state="error"]').count(), 0);
  });

  it("pay with a smart wallet (Safe 1.4.1, 2 owners): one signature sent as bytes through payWithAuthorizationSignature", async () => {
    const { createSafe, deploySafeInfrastructure, safeMessageSignature } = await import("../helpers/safe.js");
    const { TypedDataUtils, SignTypedDataVersion } = await import("@metamask/eth-sig-util");
    const owners = [buyer(), h.chain.accounts[LOCAL_ROLES.firstUser + 3]!];
    const infra = await deploySafeInfrastructure(h.chain, buyer());
    const safe = await createSafe(h.chain, infra, buyer(), owners, 2);
    const { send } = await import("../helpers/tx.js");
    await send(h.chain, buyer(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [safe, 10_000_000n] });
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "6" });
    const wallet = await injectWallet(page, h.chain, buyer(), {
      // The Safe app hashes the typed data the page asked for (as eth_signTypedData_v4 does) and its owners sign that hash's SafeMessage.
      smartAccount: {
        address: safe,
        signTypedData: (typed) => safeMessageSignature(h.chain, safe, owners, `0x${TypedDataUtils.eip712Hash(typed, SignTypedDataVersion.V4).toString("hex")}`),
      },
    });
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    await page.click("#pay");
    assert.match(await settle(), /^Paid\.Transaction /);
    const hash = (await page.locator("#tx code").getAttribute("title")) as Hex;
    const tx = await h.chain.publicClient.getTransaction({ hash });
    assert.equal(decodeFunctionData({ abi: splitterAbi, data: tx.input }).functionName, "payWithAuthorizationSignature");
    assert.equal(wallet.requests.filter((m) => m === "eth_sendTransaction").length, 1, "one transaction");
    assert.equal(await balanceOf(h.chain, usdc(), safe), 4_000_000n);
    assert.isAbove(Number(await settledBlockOf(merchant().address, 6_000_000n, intent.reference)), 0);
  });

  it("pay fallback: a wallet without typed-data signing pays with approve + pay", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "2" });
    const wallet = await injectWallet(page, h.chain, buyer(), { noTypedData: true });
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    await page.click("#pay");
    await settle();
    assert.equal(wallet.requests.filter((m) => m === "eth_sendTransaction").length, 2, "approve, then pay");
  });

  for (const [signature, why] of [
    ["otherKey", "a signature the token refuses (the simulation reverts)"],
    ["long", "a signature longer than 65 bytes (a smart account's)"],
  ] as const) {
    it(`pay fallback: ${why} pays with approve + pay, and nothing reverts`, async () => {
      const intent = await post("/v1/payments", { recipient: merchant().address, amount: "2" });
      const wallet = await injectWallet(page, h.chain, buyer(), { typedDataSignature: signature });
      const merchantBefore = await balanceOf(h.chain, usdc(), merchant().address);
      await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
      await page.click("#pay");
      await settle();
      assert.include(wallet.requests, "eth_signTypedData_v4");
      assert.equal(wallet.requests.filter((m) => m === "eth_sendTransaction").length, 2, "approve, then pay: no doomed payWithAuthorization");
      assert.equal((await balanceOf(h.chain, usdc(), merchant().address)) - merchantBefore, 1_960_000n);
    });
  }

  it("pay on another chain: the wallet is asked to add the local chain with its own RPC URL (capabilities' chain_rpc_url), then to switch", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
    const wallet = await injectWallet(page, h.chain, buyer(), { startChainId: 1, unknownChain: true });
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    const rpcUrl = (await post("/v1/capabilities", {})).chain_rpc_url;
    assert.match(rpcUrl, /^http:\/\/127\.0\.0\.1:\d+/);
    const note = await page.locator("#local-rpc-note").textContent();
    await page.click("#pay");
    await settle();
    const order = wallet.requests.filter((m) => m.startsWith("wallet_"));
    assert.deepEqual(order, ["wallet_addEthereumChain", "wallet_switchEthereumChain"]);
    assert.deepEqual(wallet.addedChains, [
      { chainId: "0x14a34", chainName: "Base Sepolia (local)", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: [rpcUrl] },
    ]);
    assert.equal(
      note,
      `Local chain: your wallet is asked to add Base Sepolia (local) at ${rpcUrl}. A wallet that keeps one RPC per chain id: set its Base Sepolia network's RPC URL to ${rpcUrl} first, or it pays on the public testnet.`,
    );
  });

  it("pay states: already paid, expired, bad token", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
    await payIntent(h.chain, buyer(), intent.pay);
    await h.chain.mine(2); // settled: resolve says PAYMENT_CONFIRMING above the finality head
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    assert.include(await statusOf(page, "ok"), "already made");
    await page.goto(`${api}/checkout/#/pay/not-a-token`);
    await page.reload();
    assert.include(await statusOf(page, "error"), "not valid");
    h.clock.advance(3600);
    const late = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
    h.clock.advance(3600);
    await page.goto(`${api}/checkout/#/pay/${late.intent}`);
    await page.reload();
    assert.include(await statusOf(page, "error"), "expired");
  });

  it("pay confirming: resolve answers 409 PAYMENT_CONFIRMING; the page says so with no pay button and asks again until already paid", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
    await payIntent(h.chain, buyer(), intent.pay);
    await h.chain.mine(2); // settled: the real resolve, once asked, answers already paid
    let asked = 0;
    // The service answers PAYMENT_CONFIRMING while the payment is short of the finality head: the first two asks.
    await page.route("**/v1/payments/resolve", async (route) => {
      asked += 1;
      if (asked <= 2)
        return route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: "PAYMENT_CONFIRMING", action: "WAIT" }) });
      return route.continue();
    });
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    assert.include(await statusOf(page, "wait", "confirming"), "A payment for this is confirming…");
    assert.equal(await page.locator("#pay").count(), 0, "no pay button while a payment confirms");
    assert.include(await statusOf(page, "ok"), "already made");
    assert.equal(asked, 3);
    assert.equal(await page.locator("#pay").count(), 0);
  });

  it("pay: the page stops polling for the payment once it moves to another route (a link opened from it)", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
    const polls: string[] = [];
    page.on("request", (request) => {
      if (/\/v1\/payments\/(resolve|recover|verify)/.test(request.url())) polls.push(request.url());
    });
    await page.clock.install(); // the page's timers, run by hand below
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/pay/${intent.intent}`);
    await page.locator("#pay").waitFor();
    const isResolve = (request: { url(): string }) => request.url().endsWith("/v1/payments/resolve");
    const polled = page.waitForRequest(isResolve);
    await page.clock.runFor(3_100);
    await polled; // the arrival watch asks every 3 s while the page is shown
    await page.evaluate('location.hash = "#/"'); // another route of the checkout, as a link to it opens
    await page.locator("h1", { hasText: "Checkout" }).waitFor();
    const before = polls.length;
    await page.clock.runFor(60_000);
    const late = await page.waitForRequest(isResolve, { timeout: 1_000 }).catch(() => null);
    assert.isNull(late, "no poll after the route changed");
    assert.equal(polls.length, before, "nothing asked for the old route's payment");
  });

  it("link: each visit mints a fresh payment whose reference starts with the link id", async () => {
    const link = await post("/v1/links", { recipient: merchant().address, amount: "3" });
    await injectWallet(page, h.chain, buyer());
    assert.match(link.url, /\/checkout\/#\/link\/lk\./);
    await page.goto(link.url.replace(/^http:\/\/[^/]+/, api));
    await page.click("#pay");
    await settle();
    const reference = (await page.locator("details.more dd .hex-value").first().textContent()) as Hex;
    assert.isTrue(reference.startsWith(link.link_id));
    assert.isAbove(Number(await settledBlockOf(merchant().address, 3_000_000n, reference)), 0);
  });

  it("subscribe: shows the terms, signs, sets the allowance, hands back payer and signature; the merchant finalizes and charges", async () => {
    const setup = await post("/v1/subscriptions", { recipient: merchant().address, amount: "9.99", period: 3600, return_url: `${api}/shop/return` });
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/subscribe/${setup.setup_token}`);
    assert.equal(await page.locator("#amount").textContent(), "9.99 USDC");
    // The buyer reads what the allowance lets the contract take, and chooses how many periods.
    const words = page.locator("#allowance-words");
    assert.equal(await page.locator("#periods").inputValue(), "12", "twelve periods by default for a plan without an end");
    assert.include(await words.textContent(), "take up to 119.88 USDC from your wallet: one charge of 9.99 USDC per period, for 12 periods.");
    for (const phrase of ["one charge per period on chain", "nothing is taken now", "revoke the allowance at any time"])
      assert.include(await words.textContent(), phrase);
    await page.fill("#periods", "0");
    assert.include(await words.textContent(), "Choose from 1 to 1000 periods.");
    assert.isTrue(await page.locator("#subscribe").isDisabled(), "no allowance of zero periods");
    await page.fill("#periods", "3");
    assert.include(await words.textContent(), "take up to 29.97 USDC from your wallet: one charge of 9.99 USDC per period, for 3 periods.");
    await page.click("#subscribe");
    await statusOf(page, "ok");
    await page.screenshot({ path: `${ARTIFACTS}/checkout-subscribe-signed.png`, fullPage: true }); // before the hand-back redirect
    await page.waitForURL(/\/shop\/return#payer=/);
    const fragment = new URLSearchParams(new URL(page.url()).hash.slice(1));
    assert.equal(fragment.get("payer"), buyer().address);
    assert.notInclude(page.url(), "sc.", "the capability never reaches the browser");

    const finalized = await post("/v1/subscriptions/finalize", {
      setup_token: setup.setup_token,
      payer: fragment.get("payer"),
      signature: fragment.get("signature"),
    });
    assert.match(finalized.subscription, /^sc\./);
    const allowance = await h.chain.publicClient.readContract({
      address: usdc(),
      abi: erc20Abi,
      functionName: "allowance",
      args: [buyer().address, h.service.deployment.contracts.RecurringCharges.address],
    });
    assert.equal(allowance, 9_990_000n * 3n, "the three periods the buyer chose");
    assert.equal((await post("/v1/charges", { subscription: finalized.subscription })).status, "CONFIRMING");
    await h.chain.mine(2);
    assert.equal((await post("/v1/charges", { subscription: finalized.subscription })).status, "CHARGED");
  });

  it("subscribe in a popup: payer and signature are posted to the return URL's origin only, never to another opener or to '*'", async () => {
    const context = page.context();
    await injectWallet(context, h.chain, buyer());
    // The opener listens for whatever reaches it; the popup is the subscribe page.
    const openerAt = async (origin: string, returnUrl?: string) => {
      await page.goto(`${origin}/checkout/`);
      await page.evaluate(`window.__got = []; window.addEventListener("message", (e) => window.__got.push({ origin: e.origin, data: e.data }));`);
      const setup = await post("/v1/subscriptions", {
        recipient: merchant().address,
        amount: "1",
        period: 3600,
        ...(returnUrl ? { return_url: returnUrl } : {}),
      });
      const [popup] = await Promise.all([
        context.waitForEvent("page"),
        page.evaluate(`window.open(${JSON.stringify(`${api}/checkout/#/subscribe/${setup.setup_token}`)})`),
      ]);
      await popup.locator("#subscribe").click();
      await popup.locator('#status[data-state="ok"]').waitFor();
      // A marker posted after the page's own message: messages from one window arrive in order, so once
      // the marker is in, anything the page posted to this opener is in too.
      await popup.evaluate(`window.opener.postMessage("marker", "*")`);
      await page.waitForFunction(`window.__got.some((m) => m.data === "marker")`);
      const got = (await page.evaluate("window.__got")) as Array<{ origin: string; data: { type: string; payer: string; signature: string } | string }>;
      await popup.close();
      return got.filter((m) => m.data !== "marker") as Array<{ origin: string; data: { type: string; payer: string; signature: string } }>;
    };
    // The merchant's own page opened it and named a return URL on its origin: the message arrives there.
    const same = await openerAt(api, `${api}/shop/return`);
    assert.lengthOf(same, 1);
    assert.equal(same[0]!.data.type, "svc:subscription-signed");
    assert.equal(same[0]!.data.payer, buyer().address);
    assert.match(same[0]!.data.signature, /^0x[0-9a-f]{130}$/);
    // Another origin opened it (localhost is not 127.0.0.1): nothing reaches that opener.
    const other = api.replace("127.0.0.1", "localhost");
    assert.deepEqual(await openerAt(other, `${api}/shop/return`), [], "a page on another origin receives nothing");
    // No return URL: no known origin, so nothing is posted to anyone.
    assert.deepEqual(await openerAt(api), [], "without a return URL nothing is posted");
  });

  it("subscribe to two merchants with one wallet: the second subscription adds its share to the allowance, the first keeps its own", async () => {
    const merchantB = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
    await sendPrepared(h, buyer(), await post("/v1/allowances/revoke/prepare", {}));
    const seen: Array<{ amount: bigint; status: string }> = [];
    await injectWallet(page, h.chain, buyer(), { beforeSend: approvals(seen) });
    const share = async (setup: { setup_token: string }) => {
      const t = await post("/v1/subscriptions/resolve", { setup_token: setup.setup_token });
      return (BigInt(t.amount_units) + BigInt(t.max_gas_reimbursement)) * 12n; // no end: 12 periods
    };
    const signed = async (setup: { setup_token: string }) => {
      await page.goto(`${api}/checkout/#/subscribe/${setup.setup_token}`);
      await page.reload();
      await page.click("#subscribe");
      await statusOf(page, "ok");
      return post("/v1/subscriptions/finalize", {
        setup_token: setup.setup_token,
        payer: buyer().address,
        signature: await page.locator("#signature").inputValue(),
      });
    };

    const setupA = await post("/v1/subscriptions", { recipient: merchant().address, amount: "5", period: 3600 });
    const a = await signed(setupA);
    assert.equal(await recurringAllowance(), await share(setupA));
    const setupB = await post("/v1/subscriptions", { recipient: merchantB.address, amount: "1", period: 3600 });
    const b = await signed(setupB);
    assert.match(a.subscription, /^sc\./);
    assert.match(b.subscription, /^sc\./);
    const [shareA, shareB] = [await share(setupA), await share(setupB)];
    assert.equal(await recurringAllowance(), shareA + shareB, "A's share is kept: allowance = A's + B's");
    assert.deepEqual(
      seen.map((s) => s.amount),
      [shareA, shareA + shareB],
    );
    assert.include(seen[1]!.status, `adds ${shareB / 1_000_000n}.00 USDC for this subscription to your existing allowance of ${shareA / 1_000_000n}.00 USDC`);
    assert.include(seen[1]!.status, `up to ${(shareA + shareB) / 1_000_000n}.00 USDC in all`);
    assert.equal((await post("/v1/charges", { subscription: a.subscription })).status, "CONFIRMING");
    assert.equal((await post("/v1/charges", { subscription: b.subscription })).status, "CONFIRMING");
  });

  async function subscribed(): Promise<{ subscription: string; id: Hex }> {
    const setup = await post("/v1/subscriptions", { recipient: merchant().address, amount: "5", period: 3600 });
    const resolved = await post("/v1/subscriptions/resolve", { setup_token: setup.setup_token });
    const { walletTypedData } = await import("../helpers/recurring.js");
    const signature = await buyer().signTypedData(walletTypedData(resolved, buyer().address) as never);
    const finalized = await post("/v1/subscriptions/finalize", { setup_token: setup.setup_token, payer: buyer().address, signature });
    return { subscription: finalized.subscription, id: finalized.subscription_id };
  }

  it("approve: after the allowance was revoked, the approve page restores exactly what the charge needs", async () => {
    const { subscription } = await subscribed();
    await sendPrepared(h, buyer(), await post("/v1/allowances/revoke/prepare", {}));
    assert.equal((await post("/v1/charges", { subscription })).error, "INSUFFICIENT_ALLOWANCE");
    const session = await post("/v1/subscriptions/approve/session", { subscription });
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/approve/${session.approve_token}`);
    assert.equal(await page.locator("#amount").textContent(), "5.00 USDC");
    await page.click("#approve");
    assert.include(await statusOf(page, "ok"), "Allowance restored");
    assert.equal(
      await h.chain.publicClient.readContract({
        address: usdc(),
        abi: erc20Abi,
        functionName: "allowance",
        args: [buyer().address, h.service.deployment.contracts.RecurringCharges.address],
      }),
      5_000_000n,
    );
    assert.equal((await post("/v1/charges", { subscription })).status, "CONFIRMING");
  });

  it("approve on top of an existing allowance: the page adds required_units to what the payer's other subscriptions rely on", async () => {
    const { subscription } = await subscribed();
    await approve(h.chain, buyer(), usdc(), recurring(), 7_000_000n); // what the payer's other subscriptions rely on
    const session = await post("/v1/subscriptions/approve/session", { subscription });
    const seen: Array<{ amount: bigint; status: string }> = [];
    await injectWallet(page, h.chain, buyer(), { beforeSend: approvals(seen) });
    await page.goto(`${api}/checkout/#/approve/${session.approve_token}`);
    assert.equal(await page.locator("#amount").textContent(), "5.00 USDC");
    await page.click("#approve");
    assert.include(await statusOf(page, "ok"), "Allowance restored");
    assert.equal(await recurringAllowance(), 12_000_000n, "7 kept + 5 added, not replaced by 5");
    assert.deepEqual(
      seen.map((s) => s.amount),
      [12_000_000n],
    );
    assert.include(seen[0]!.status, "up to 12.00 USDC in all: this adds 5.00 USDC for this subscription to your existing allowance of 7.00 USDC");
  });

  it("approve with an unlimited allowance: nothing is sent, the allowance stays unlimited", async () => {
    const { subscription } = await subscribed();
    await approve(h.chain, buyer(), usdc(), recurring(), maxUint256);
    const session = await post("/v1/subscriptions/approve/session", { subscription });
    const wallet = await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/approve/${session.approve_token}`);
    await page.click("#approve");
    assert.include(await statusOf(page, "ok"), "already unlimited");
    assert.notInclude(wallet.requests, "eth_sendTransaction");
    assert.equal(await recurringAllowance(), maxUint256);
  });

  it("cancel: the payer sends the prepared revoke; the contract records it", async () => {
    const { subscription, id } = await subscribed();
    const session = await post("/v1/subscriptions/revoke/session", { subscription });
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/cancel/${session.cancel_token}`);
    await page.click("#cancel");
    assert.include(await statusOf(page, "ok"), "Subscription cancelled");
    const [, , revoked] = await h.chain.publicClient.readContract({
      address: h.service.deployment.contracts.RecurringCharges.address,
      abi: recurringChargesAbi,
      functionName: "subscriptions",
      args: [id],
    });
    assert.isTrue(revoked);
    assert.equal((await post("/v1/subscriptions/state", { subscription })).state, "REVOKED");
  });

  it("refund: the merchant's wallet pays back the payer the refund token names; verify says REFUNDED", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "8" });
    const receipt = await payIntent(h.chain, buyer(), intent.pay);
    await h.chain.mine(2);
    const prepared = await post("/v1/refunds/prepare", { intent: intent.intent, tx_hash: receipt.transactionHash, amount: "8000000" });
    await injectWallet(page, h.chain, merchant());
    await page.goto(`${api}/checkout/#/refund/${prepared.refund_token}`);
    assert.equal(await page.locator("#amount").textContent(), "8.00 USDC");
    const buyerBefore = await balanceOf(h.chain, usdc(), buyer().address);
    await page.click("#refund");
    assert.include(await statusOf(page, "ok"), "Refund sent.");
    const refundTx = (await page.locator("#tx code").getAttribute("title")) as Hex;
    assert.equal((await balanceOf(h.chain, usdc(), buyer().address)) - buyerBefore, 8_000_000n);
    await h.chain.mine(2);
    const verified = await post("/v1/refunds/verify", {
      intent: intent.intent,
      tx_hash: receipt.transactionHash,
      refund_amount: "8000000",
      refund_tx_hash: refundTx,
    });
    assert.equal(verified.status, "REFUNDED");
  });

  it("refund: another wallet than the merchant's is told to connect the merchant wallet", async () => {
    const intent = await post("/v1/payments", { recipient: merchant().address, amount: "1" });
    const receipt = await payIntent(h.chain, buyer(), intent.pay);
    await h.chain.mine(2);
    const prepared = await post("/v1/refunds/prepare", { intent: intent.intent, tx_hash: receipt.transactionHash, amount: "1000000" });
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/refund/${prepared.refund_token}`);
    await page.click("#refund");
    assert.include(await statusOf(page, "error"), `Connect the merchant wallet ${merchant().address}`);
  });

  it("is served with a strict Content-Security-Policy and no referrer, and loads nothing from elsewhere", async () => {
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    const res = await page.goto(`${api}/checkout/`);
    const csp = res!.headers()["content-security-policy"]!;
    assert.include(csp, "default-src 'none'");
    assert.include(csp, "script-src 'self'");
    assert.include(csp, "frame-ancestors 'none'");
    assert.equal(res!.headers()["referrer-policy"], "no-referrer");
    await page.locator("h1").waitFor();
    assert.isTrue(
      requests.every((u) => u.startsWith(api)),
      requests.join(", "),
    );
  });
});
