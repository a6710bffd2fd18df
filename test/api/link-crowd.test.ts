import { assert } from "chai";
import supertest from "supertest";
import { erc20Abi, parseEther, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";
import { allowCharges, subscribeThroughLink, visitLink } from "../helpers/link-subscribe.js";
import { walletTypedData, type ResolvedTerms } from "../helpers/recurring.js";
import { balanceOf, send } from "../helpers/tx.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/crowd`;
const MERCHANT_IP = "198.51.100.7";
const AMOUNT = 2_500_000n;

/** Issue 44: strangers cannot crowd a merchant through its subscription links. */
describe("subscription links: a subscriber costs the merchant nothing until it pays", function () {
  this.timeout(180_000);
  const receiver = new Receiver();
  const resolve = async (host: string) => {
    if (host !== RECEIVER_HOST) throw new Error(`no such host ${host}`);
    return [{ address: "127.0.0.1", family: 4 }];
  };
  const h = useService(
    { WEBHOOKS_ALLOW_LOOPBACK: "true", TRUST_PROXY: "1" },
    { deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) },
  );
  before(() => receiver.start());
  after(() => receiver.stop());

  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const funder = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const usdc = () => h.chain.deployment.token.address;
  const subscriptionWatches = async () => (await h.database.query("SELECT key FROM watches WHERE kind = 'subscription'")).length;

  /** A key a script makes: some ETH for gas, `units` of USDC. */
  async function freshKey(index: number, units: bigint): Promise<HDAccount> {
    const key = localAccount(index);
    await h.chain.testClient.setBalance({ address: key.address, value: parseEther("1") });
    if (units > 0n) await send(h.chain, funder(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [key.address, units] });
    return key;
  }

  async function createLink(api: supertest.Agent | ReturnType<typeof supertest> = h.api, extra: Record<string, unknown> = {}) {
    const res = await api
      .post("/v1/links")
      .set("X-Forwarded-For", MERCHANT_IP)
      .send({ recipient: merchant().address, amount: "2.50", period: 3600, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { link_id: Hex; link: string; manage_token: string; view_token: string; notify_url?: string };
  }

  it("one funded key subscribing 30 times, then taking its allowance back, leaves the merchant's next payment its watch (cap 20)", async () => {
    const capped = await h.another({ WEBHOOK_WATCH_CAP_PER_CALLER: "20", WEBHOOKS_ALLOW_LOOPBACK: "true", TRUST_PROXY: "1" });
    const api = supertest(capped.app);
    const link = await createLink(api, { notify_url: HOOK });
    assert.equal(link.notify_url, HOOK);
    // The key holds one charge and allows exactly that once.
    const stranger = await freshKey(60, AMOUNT);
    await allowCharges(h, stranger, AMOUNT);
    const answers: string[] = [];
    // Each resolve mints fresh terms: thirty subscriptions, from the stranger's own address (not the merchant's).
    for (let i = 0; i < 30; i++) {
      const { subscribed } = await visitLink(h, link.link, stranger, { api, settle: false });
      answers.push(subscribed.status === 200 ? subscribed.body.state : subscribed.body.error);
    }
    await allowCharges(h, stranger, 0n);
    await h.chain.mine(2);
    // The merchant lists (what asks after the pending ones), the watcher and deliveries run.
    const listed = await api.post("/v1/links/subscriptions").set("X-Forwarded-For", MERCHANT_IP).send({ manage_token: link.manage_token });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    await capped.webhooks.watcher.tick();
    await capped.webhooks.delivery.runDue();
    const payment = await api.post("/v1/payments").set("X-Forwarded-For", MERCHANT_IP).send({ recipient: merchant().address, amount: "1", notify_url: HOOK });
    assert.equal(payment.status, 200, JSON.stringify(payment.body));
    assert.equal(payment.body.notify_url, HOOK, "the merchant's payment is still watched");

    assert.equal(answers.filter((a) => a === "PENDING" || a === "ACTIVE").length, 1, `one subscription with one charge's money: ${answers.join(",")}`);
    assert.isAtMost(listed.body.subscriptions.length, 1, "at most the one that paid is listed");
    assert.isAtMost(await subscriptionWatches(), 1, "at most the one that paid is watched");
    assert.lengthOf(await h.database.query("SELECT 1 FROM link_subscriptions WHERE state = 'pending'"), 0, "nothing left pending");
  });

  it("keys that pass one balance around gain nothing: each listed subscriber paid its first charge", async () => {
    const link = await createLink(h.api, { notify_url: HOOK });
    const keys: HDAccount[] = [];
    for (let i = 0; i < 4; i++) keys.push(await freshKey(70 + i, i === 0 ? AMOUNT : 0n));
    const before = await balanceOf(h.chain, usdc(), merchant().address);
    const answers: string[] = [];
    for (const [i, key] of keys.entries()) {
      await allowCharges(h, key);
      const { subscribed } = await visitLink(h, link.link, key, { settle: false });
      answers.push(subscribed.status === 200 ? subscribed.body.state : subscribed.body.error);
      // Whatever it holds now goes on to the next key.
      const held = await balanceOf(h.chain, usdc(), key.address);
      const next = keys[i + 1];
      if (next && held > 0n) await send(h.chain, key, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [next.address, held] });
    }
    await h.chain.mine(2);
    const listed = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    await h.service.webhooks.watcher.tick();
    const received = (await balanceOf(h.chain, usdc(), merchant().address)) - before;
    const kept = listed.body.subscriptions.length as number;
    assert.equal(kept, 1, `one balance, one subscriber: ${answers.join(",")}`);
    // Less the fee and the network fee of each charge.
    assert.isTrue(received >= ((AMOUNT * 9n) / 10n) * BigInt(kept), `each listed subscriber's first charge reached the merchant: ${received}`);
    assert.equal(await subscriptionWatches(), kept, "only the paid ones are watched");
    const states = await h.api.post("/v1/links/subscribers").send({ view_token: link.view_token });
    assert.deepEqual(
      states.body.subscribers.map((s: { paid_count: number }) => s.paid_count),
      [1],
    );
  });

  /** Resolves the link to fresh terms and signs them; posting is left to the caller. */
  async function signedVisit(link: string, key: HDAccount) {
    const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: link });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    const signature = await key.signTypedData(walletTypedData(resolved.body as ResolvedTerms, key.address) as never);
    return () => h.api.post("/v1/links/subscribe").send({ setup_token: resolved.body.setup_token, payer: key.address, signature });
  }
  const pendingRows = async () => (await h.database.query("SELECT 1 FROM link_subscriptions WHERE state = 'pending'")).length;

  it("ten keys subscribing in the last minute of a period, funds approved for a moment: no place held, and a real subscriber goes through", async () => {
    const link = await createLink();
    const keys: HDAccount[] = [];
    const posts: Array<() => ReturnType<typeof h.api.post>> = [];
    for (let i = 0; i < 10; i++) {
      keys.push(await freshKey(120 + i, AMOUNT));
      posts.push(await signedVisit(link.link, keys[i]!));
    }
    // 30 s before the terms' first period closes: a charge sent now could be mined after it.
    h.clock.advance(3600 - 30);
    await h.chain.advanceTime(3600 - 30);
    await h.chain.mine(1);
    for (const [i, key] of keys.entries()) {
      await allowCharges(h, key);
      const answer = await posts[i]!();
      await allowCharges(h, key, 0n);
      assert.equal(answer.status, 409, JSON.stringify(answer.body));
      assert.equal(answer.body.error, "NOT_DUE");
      assert.isAtMost(answer.body.retry_after, 31, "ask again when the next period starts");
      assert.equal(answer.headers["retry-after"], String(answer.body.retry_after));
    }
    assert.equal(await pendingRows(), 0, "NOT_DUE keeps no place");
    // A setup older than its hour is refused: a place is taken with fresh terms only.
    const late = await freshKey(130, AMOUNT);
    await allowCharges(h, late);
    const stale = await signedVisit(link.link, late);
    h.clock.advance(3601);
    await h.chain.advanceTime(3601);
    await h.chain.mine(1);
    const refused = await stale();
    assert.equal(refused.body.error, "SETUP_TOKEN_EXPIRED", JSON.stringify(refused.body));
    assert.equal(await pendingRows(), 0);
    // A real subscriber with fresh terms takes a place and pays.
    const real = await freshKey(131, AMOUNT);
    await allowCharges(h, real);
    await subscribeThroughLink(h, link.link, real);
  });

  it("a first charge final after 600 s, with no checkout and no listing: the follower makes the subscriber active, subscription.created goes out, and the merchant's charge of that period answers ALREADY_CHARGED", async () => {
    const link = await createLink(h.api, { notify_url: HOOK });
    const payer = await freshKey(132, AMOUNT);
    await allowCharges(h, payer);
    const { subscribed } = await visitLink(h, link.link, payer, { settle: false });
    assert.equal(subscribed.body.state, "PENDING", JSON.stringify(subscribed.body));
    // The payer leaves; the charge turns final ten minutes later (a slow finality), and nobody asks.
    h.clock.advance(700);
    await h.chain.advanceTime(700);
    await h.chain.mine(3);
    receiver.received.length = 0;
    await h.service.follower.round();
    const [row] = await h.database.query<{ state: string }>("SELECT state FROM link_subscriptions WHERE subscription_id = $1", [
      subscribed.body.subscription_id,
    ]);
    assert.equal(row?.state, "active", "active from the Charged log the follower read");
    await h.service.webhooks.delivery.runDue();
    const created = receiver.received.filter((r) => r.headers["svc-event-type"] === "subscription.created");
    assert.lengthOf(created, 1);
    assert.include(created[0]!.body.data as object, { subscription_id: subscribed.body.subscription_id, link_id: link.link_id, state: "ACTIVE" });
    assert.equal(await subscriptionWatches(), 1, "watched from now on");
    const listed = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token });
    assert.deepEqual(
      listed.body.subscriptions.map((s: { subscription_id: Hex }) => s.subscription_id),
      [subscribed.body.subscription_id],
    );
    // The first period was charged by the service (its own charge, reported when the follower settled it), not by this call.
    const charged = await h.api.post("/v1/charges").send({ subscription: listed.body.subscriptions[0].subscription });
    assert.equal(charged.status, 200, JSON.stringify(charged.body));
    assert.include(charged.body, { status: "ALREADY_CHARGED", already_paid: true, period_index: 0 }, JSON.stringify(charged.body));
  });

  /** The node refuses every call to RecurringCharges (the charge's simulation): the funds checks still pass. */
  const refuseCharges = () => {
    const contract = h.chain.deployment.contracts.RecurringCharges.address.toLowerCase();
    h.proxy.refuse = (r) =>
      (r.method === "eth_call" || r.method === "eth_estimateGas") && (r.params?.[0] as { to?: string } | undefined)?.to?.toLowerCase() === contract;
  };

  it("a pending subscriber is not listed or watched; refused, past its time, or on a closed link it is dropped", async () => {
    const link = await createLink(h.api, { notify_url: HOOK });
    const payer = await freshKey(80, AMOUNT * 3n);
    await allowCharges(h, payer);
    // The node fails the charge's reads: the subscriber stays pending (asked again later).
    refuseCharges();
    const first = await visitLink(h, link.link, payer, { settle: false });
    h.proxy.refuse = null;
    assert.oneOf(first.subscribed.body.error, ["RPC_ERROR", "RPC_BUSY"], JSON.stringify(first.subscribed.body));
    assert.lengthOf(await h.database.query("SELECT 1 FROM link_subscriptions WHERE state = 'pending'"), 1, "kept pending");
    assert.equal(await subscriptionWatches(), 0, "a pending subscriber holds no watch");
    // One pending subscription per payer and link.
    const second = await visitLink(h, link.link, payer, { settle: false });
    assert.equal(second.subscribed.status, 429, JSON.stringify(second.subscribed.body));
    assert.equal(second.subscribed.body.error, "CONCURRENCY_LIMIT");
    // Its first charge cannot be made: the payer took its allowance back. The merchant's listing asks after it, and drops it.
    await allowCharges(h, payer, 0n);
    const listed = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token });
    assert.deepEqual(listed.body, { subscriptions: [], next: null });
    assert.lengthOf(await h.database.query("SELECT 1 FROM link_subscriptions"), 0, "dropped once its first charge is refused");

    // Pending past its time: dropped.
    await allowCharges(h, payer);
    refuseCharges();
    await visitLink(h, link.link, payer, { settle: false });
    h.proxy.refuse = null;
    assert.lengthOf(await h.database.query("SELECT 1 FROM link_subscriptions WHERE state = 'pending'"), 1);
    h.clock.advance(601);
    await h.chain.advanceTime(601); // the chain's time with the service's: the next visitor's terms are due
    await h.chain.mine(1);
    const other = await freshKey(81, AMOUNT);
    await allowCharges(h, other);
    await visitLink(h, link.link, other, { settle: false });
    assert.deepEqual(
      (await h.database.query<{ payer: string }>("SELECT payer FROM link_subscriptions WHERE state = 'pending'")).map((r) => r.payer),
      [other.address],
      "the first payer's row past its time is gone",
    );

    // Closing the link frees what its pending subscribers held.
    const closed = await h.api.post("/v1/links/close").send({ manage_token: link.manage_token });
    assert.equal(closed.body.closed, true);
    assert.lengthOf(await h.database.query("SELECT 1 FROM link_subscriptions WHERE state = 'pending'"), 0, "a closed link keeps no pending subscriber");
    assert.equal(await subscriptionWatches(), 0);
  });

  it("the merchant removes a subscriber with the manage token: no longer listed, its watch and its place freed; the view token cannot", async () => {
    const link = await createLink(h.api, { notify_url: HOOK });
    const payer = await freshKey(90, AMOUNT * 2n);
    await allowCharges(h, payer);
    const id = await subscribeThroughLink(h, link.link, payer);
    assert.equal(await subscriptionWatches(), 1);
    const byView = await h.api.post("/v1/links/subscribers/remove").send({ manage_token: link.view_token, subscription_id: id });
    assert.equal(byView.status, 400);
    assert.equal(byView.body.error, "WRONG_LINK_TOKEN");
    const removed = await h.api.post("/v1/links/subscribers/remove").send({ manage_token: link.manage_token, subscription_id: id });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.deepEqual(removed.body, { link_id: link.link_id, subscription_id: id, removed: true });
    assert.deepEqual((await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token })).body, { subscriptions: [], next: null });
    assert.equal(await subscriptionWatches(), 0, "its watch ended");
    const places = await h.database.query<{ active: string | number }>("SELECT active FROM watch_counts WHERE scope = 'total'");
    assert.equal(Number(places[0]!.active), 1, "only the link's own place is held");
    const again = await h.api.post("/v1/links/subscribers/remove").send({ manage_token: link.manage_token, subscription_id: id });
    assert.equal(again.body.removed, false);
  });

  it("tokens of the wrong kind are refused as such: a view token never charges or lists capabilities, a payment link's manage token has no subscribers", async () => {
    const link = await createLink();
    assert.match(link.view_token, /^lv\./);
    const payer = await freshKey(95, AMOUNT * 2n);
    await allowCharges(h, payer);
    await subscribeThroughLink(h, link.link, payer);

    // The view token reads the subscribers' states and payments, never a capability.
    const states = await h.api.post("/v1/links/subscribers").send({ view_token: link.view_token });
    assert.equal(states.status, 200, JSON.stringify(states.body));
    assert.lengthOf(states.body.subscribers, 1);
    assert.equal(states.body.subscribers[0].paid_count, 1);
    assert.notMatch(JSON.stringify(states.body), /\bsc\./);
    // It is obtainable with the manage token, and only with it.
    const viewed = await h.api.post("/v1/links/view-token").send({ manage_token: link.manage_token });
    assert.equal(viewed.status, 200, JSON.stringify(viewed.body));
    assert.match(viewed.body.view_token, /^lv\./);
    assert.equal((await h.api.post("/v1/links/subscribers").send({ view_token: viewed.body.view_token })).status, 200);
    const wrong = async (path: string, body: Record<string, unknown>) => {
      const res = await h.api.post(path).send(body);
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
      return res.body.error as string;
    };
    assert.equal(await wrong("/v1/links/view-token", { manage_token: link.view_token }), "WRONG_LINK_TOKEN");
    assert.equal(await wrong("/v1/links/subscriptions", { manage_token: link.view_token }), "WRONG_LINK_TOKEN", "no capability for the view token");
    assert.equal(await wrong("/v1/links/close", { manage_token: link.view_token }), "WRONG_LINK_TOKEN");
    const charge = await h.api.post("/v1/charges").send({ subscription: link.view_token });
    assert.equal(charge.status, 400, `a view token never charges: ${JSON.stringify(charge.body)}`);
    assert.equal(charge.body.action, "FIX_REQUEST");
    assert.equal(await wrong("/v1/links/subscribers", { view_token: link.manage_token }), "WRONG_LINK_TOKEN", "the page never takes the manage token");
    assert.equal(await wrong("/v1/links/subscribers", { view_token: link.link }), "INVALID_LINK_TOKEN");

    // A payment link's tokens at the subscription-link endpoints: refused as a payment link's, not 200 and an empty list.
    const paymentLink = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50" })).body;
    assert.match(paymentLink.view_token, /^lv\./);
    assert.equal(await wrong("/v1/links/subscriptions", { manage_token: paymentLink.manage_token }), "WRONG_LINK_TOKEN");
    assert.equal(await wrong("/v1/links/subscribers", { view_token: paymentLink.view_token }), "WRONG_LINK_TOKEN");
  });

  it("POST /v1/links/subscribers reads state once per block at most, whatever the number of callers", async () => {
    const link = await createLink();
    for (const index of [110, 111, 112]) {
      const payer = await freshKey(index, AMOUNT * 2n);
      await allowCharges(h, payer);
      await subscribeThroughLink(h, link.link, payer);
    }
    const read = () => h.api.post("/v1/links/subscribers").send({ view_token: link.view_token });
    await read();
    h.proxy.calls.clear();
    h.proxy.contractCalls.length = 0;
    // Twenty callers at once, then twenty more in the same block.
    const answers = [...(await Promise.all(Array.from({ length: 20 }, read))), ...(await Promise.all(Array.from({ length: 20 }, read)))];
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(h.proxy.contractCalls.length, 0, "the states of this block were read already");
    assert.equal(h.proxy.calls.get("eth_getBlockByNumber") ?? 0, 0, "the head read a moment ago answers them all");
    // The next block, a block interval on: the states once more, for every caller.
    await h.chain.mine(1);
    h.clock.advance(1);
    h.proxy.contractCalls.length = 0;
    h.proxy.calls.clear();
    h.proxy.requests = 0;
    await Promise.all(Array.from({ length: 20 }, read));
    assert.equal(h.proxy.contractCalls.length, 3, "one eth_call per subscriber, once");
    assert.equal(h.proxy.calls.get("eth_getBlockByNumber"), 1, "one head read");
    assert.isAtMost(h.proxy.requests, 4, `twenty callers: ${h.proxy.requests} round trips to the node`);
  });
});
