import { assert } from "chai";
import type { Page } from "playwright-core";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { ARTIFACTS, injectWallet, statusOf, useCheckoutSession } from "../helpers/browser.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";
import { balanceOf } from "../helpers/tx.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/holds`;

/** A hold in the hosted checkout (#/hold/<checkout_token>) and on the merchant page, in Chromium with a local wallet. */
describe("holds in the checkout", function () {
  this.timeout(120_000);
  const receiver = new Receiver();
  const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const h = useService(
    { PORT: "0", OPS_PORT: "0", WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_TIMEOUT_MS: "400" },
    { deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) },
  );
  before(() => receiver.start());
  after(() => receiver.stop());
  const ui = useCheckoutSession(() => h.service, { noCapabilityInUrls: true });
  let page: Page;
  let api: string;
  beforeEach(() => {
    ({ page, api } = ui);
    receiver.received.length = 0;
  });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const token = () => h.service.deployment.token.address;
  const nowSeconds = () => Math.floor(h.clock.now() / 1000);
  async function post(path: string, body: object) {
    const res = await h.api.post(path).send(body);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  /** Mines an operator call and the blocks the service's finality needs, and follows it to its end. */
  async function settle(hash: Hex) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    await h.chain.mine(3);
    await h.service.holdOperator!.follow();
  }
  async function create() {
    return post("/v1/holds", {
      recipient: merchant().address,
      amount: "50.00",
      capture_before: nowSeconds() + 3600,
      refund_before: nowSeconds() + 86_400,
      notify_url: HOOK,
    });
  }
  async function eventTypes(hold: string) {
    await h.service.webhooks.holdWatcher!.tick();
    return ((await post("/v1/events", { hold })).events as Array<{ type: string }>).map((e) => e.type);
  }

  it("Done when: a hold of 50.00 authorized with the buyer's wallet, captured 30.00 then 15.00, the rest voided; balances, events and the merchant page", async () => {
    const feeCollector = h.service.deployment.parameters.feeCollector;
    const before = await Promise.all([buyer().address, merchant().address, feeCollector].map((a) => balanceOf(h.chain, token(), a)));
    const created = await create();
    const wallet = await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/hold/${created.checkout_token}`);
    assert.equal(await page.locator("#amount").textContent(), "50.00 USDC");
    assert.equal(await page.locator("#hold-state").getAttribute("data-state"), "AWAITING_AUTHORIZATION");
    await page.click("#authorize");
    assert.match(await statusOf(page, "wait", /^Authorization sent/), /^Authorization sent: waiting for it to be final…$/);
    assert.include(wallet.requests, "eth_signTypedData_v4", "the buyer signed; the service sent");
    assert.notInclude(wallet.requests, "eth_sendTransaction");
    // The operator's authorize, mined (automine), not final: the hold's first step, still confirming.
    const state = await post("/v1/holds/state", { hold: created.hold });
    const authorizing = (state.in_flight ?? state.steps[0]) as { tx_hash: Hex };
    await settle(authorizing.tx_hash);
    assert.match(await statusOf(page, "ok"), /^Authorized/);
    await page.screenshot({ path: `${ARTIFACTS}/hold-authorized.png`, fullPage: true });
    for (const amount of ["30.00", "15.00"]) await settle((await post("/v1/holds/capture", { hold: created.hold, amount })).tx_hash);
    await settle((await post("/v1/holds/void", { hold: created.hold })).tx_hash);
    const after = await Promise.all([buyer().address, merchant().address, feeCollector].map((a) => balanceOf(h.chain, token(), a)));
    const fee = ((30_000_000n + 15_000_000n) * BigInt(h.service.deployment.parameters.feeBps)) / 10_000n;
    assert.equal(before[0]! - after[0]!, 45_000_000n, "5.00 went back to the buyer");
    assert.equal(after[1]! - before[1]!, 45_000_000n - fee, "the recipient: 45.00 less the fee");
    assert.equal(after[2]! - before[2]!, fee, "the fee collector: the fee");
    assert.deepEqual(await eventTypes(created.hold), ["hold.authorized", "hold.captured", "hold.captured", "hold.voided"]);
    await page.goto(`${api}/checkout/#/merchant/${merchant().address}`);
    const row = page.locator(`#holds li[data-hold="${created.hold_id}"]`);
    await row.waitFor();
    assert.equal(await row.getAttribute("data-state"), "VOIDED");
    assert.include(await row.textContent(), "45.00 USDC captured");
    await page.screenshot({ path: `${ARTIFACTS}/hold-merchant.png`, fullPage: true });
  });

  it("a hold left past capture_before is reclaimed by the buyer from the checkout, with the buyer's own transaction", async () => {
    const created = await create();
    const before = await balanceOf(h.chain, token(), buyer().address);
    const resolved = await post("/v1/holds/resolve", { hold: created.checkout_token, payer: buyer().address });
    const signature = signWithMetaMask(buyer(), resolved.typed_data);
    await settle((await post("/v1/holds/authorize", { hold: created.checkout_token, payer: buyer().address, signature })).tx_hash);
    await h.chain.advanceTime(3600);
    h.clock.advance(3600);
    await injectWallet(page, h.chain, buyer());
    await page.goto(`${api}/checkout/#/hold/${created.checkout_token}`);
    assert.equal(await page.locator("#hold-state").getAttribute("data-state"), "EXPIRED");
    await page.click("#reclaim");
    assert.match(await statusOf(page, "ok"), /^Reclaimed/);
    await h.chain.mine(3);
    await page.locator('#hold-state[data-state="RECLAIMED"]').waitFor();
    assert.equal(await balanceOf(h.chain, token(), buyer().address), before, "every unit back");
    assert.deepEqual(await eventTypes(created.hold), ["hold.authorized", "hold.reclaimed"]);
  });
});
