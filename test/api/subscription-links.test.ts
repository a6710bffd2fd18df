import { assert } from "chai";
import supertest from "supertest";
import { parseEther, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";
import { sendPrepared, walletTypedData, type ResolvedTerms } from "../helpers/recurring.js";
import { approve } from "../helpers/tx.js";
import { allowCharges, visitLink } from "../helpers/link-subscribe.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/subscriptions`;

for (const store of ["pglite", "postgres"] as const)
  describe(`subscription links (POST /v1/links with period, /v1/links/subscribe, /v1/links/subscriptions; ${store})`, function () {
    this.timeout(120_000);
    const receiver = new Receiver();
    const resolve = async (host: string) => {
      if (host !== RECEIVER_HOST) throw new Error(`no such host ${host}`);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const h = useService({ WEBHOOKS_ALLOW_LOOPBACK: "true" }, { store, deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) });
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.received.length = 0;
    });
    afterEach(() => assert.deepEqual(receiver.mismatches.splice(0), [], "every webhook body matches its event's wire schema"));

    const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const payers = () => [h.chain.accounts[LOCAL_ROLES.firstUser]!, h.chain.accounts[LOCAL_ROLES.firstUser + 2]!, h.chain.accounts[LOCAL_ROLES.firstUser + 3]!];
    const drain = async () => {
      await h.service.webhooks.watcher.tick();
      await h.service.webhooks.delivery.runDue();
    };

    async function createLink(extra: Record<string, unknown> = {}) {
      const res = await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50", period: 3600, notify_url: HOOK, ...extra });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { link_id: Hex; link: string; url: string; manage_token: string; period: number; end: number; notify_url?: string };
    }

    const allow = (payer: HDAccount) => allowCharges(h, payer);
    const visit = (link: string, payer: HDAccount, api?: ReturnType<typeof supertest>) => visitLink(h, link, payer, api ? { api } : {});

    it("creates a subscription link whose answer repeats period and end and opens the subscribe page; refuses what POST /v1/subscriptions refuses", async () => {
      const chainNow = Number((await h.chain.publicClient.getBlock()).timestamp);
      const link = await createLink({ end: chainNow + 86_400 });
      assert.equal(link.period, 3600);
      assert.equal(link.end, chainNow + 86_400);
      assert.equal(link.notify_url, HOOK);
      assert.match(link.url, /\/#\/subscribe\/lk\./);
      const noEnd = await createLink();
      assert.equal(noEnd.end, 0);
      const payment = await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50" });
      assert.notProperty(payment.body, "period", "a payment link's answer is unchanged");
      assert.match(payment.body.url, /\/#\/link\//);

      const refused = async (body: Record<string, unknown>) => (await h.api.post("/v1/links").send({ recipient: merchant().address, ...body })).body.error;
      assert.equal(await refused({ amount: "0.10", period: 3600 }), "AMOUNT_OUT_OF_BOUNDS", "below the subscription floor 0.102041");
      assert.equal(await refused({ amount: "0.102041", period: 3600 }), undefined, "the floor itself is accepted");
      assert.equal(await refused({ amount: "1", period: 59 }), "INVALID_REQUEST", "below min_period");
      assert.equal(await refused({ amount: "1", period: 3600, end: chainNow - 10 }), "INVALID_REQUEST", "end in the past");
    });

    it("resolves a subscription link's token to a fresh setup per visitor; kinds never cross: a payment link is not a setup, a subscription link is not a payment", async () => {
      const link = await createLink();
      const a = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: link.link });
      const b = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: link.link });
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.body.link_id, link.link_id);
      assert.match(a.body.setup_token, /^st\./);
      assert.notEqual(a.body.setup_token, b.body.setup_token);
      assert.notEqual(a.body.salt, b.body.salt, "each visitor signs their own terms");
      assert.equal(a.body.amount, "2.500000");
      assert.equal(a.body.period, 3600);
      // The setup it hands out resolves as any setup (what the checkout's page shows).
      const again = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: a.body.setup_token });
      assert.equal(again.body.salt, a.body.salt);
      assert.notProperty(again.body, "link_id");

      const asPayment = await h.api.post("/v1/payments/resolve").send({ intent: link.link });
      assert.equal(asPayment.status, 400);
      assert.equal(asPayment.body.error, "INVALID_INTENT");
      const paymentLink = await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50" });
      const asSetup = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: paymentLink.body.link });
      assert.equal(asSetup.status, 400);
      assert.equal(asSetup.body.error, "INVALID_SETUP_TOKEN");
    });

    it("keeps each subscriber's capability against the link: subscribe answers no capability, is idempotent, checks the signature as finalize; finalize refuses a link's setup", async () => {
      const link = await createLink();
      const [first] = payers();
      await allow(first!);
      const { resolved, signature, subscribed } = await visit(link.link, first!);
      assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
      assert.deepEqual(Object.keys(subscribed.body).sort(), ["amount", "end", "link_id", "period", "state", "subscription_id"]);
      assert.equal(subscribed.body.state, "ACTIVE", "its first charge settled");
      assert.equal(subscribed.body.link_id, link.link_id);
      assert.deepEqual([subscribed.body.amount, subscribed.body.period, subscribed.body.end], ["2.500000", 3600, 0]);

      // Kept once, the same post answers the same, even with the allowance since withdrawn.
      await approve(h.chain, first!, h.chain.deployment.token.address, h.chain.deployment.contracts.RecurringCharges.address, 0n);
      const again = await h.api.post("/v1/links/subscribe").send({ setup_token: resolved.setup_token, payer: first!.address, signature });
      assert.deepEqual(again.body, subscribed.body, "the same signature again: the same answer");

      const forged = await h.api.post("/v1/links/subscribe").send({ setup_token: resolved.setup_token, payer: payers()[1]!.address, signature });
      assert.equal(forged.body.error, "INVALID_SIGNATURE");
      const finalize = await h.api.post("/v1/subscriptions/finalize").send({ setup_token: resolved.setup_token, payer: first!.address, signature });
      assert.equal(finalize.status, 400);
      assert.equal(finalize.body.error, "INVALID_SETUP_TOKEN", "a link's setup never yields a capability to whoever holds the link");
      const plain = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "1", period: 3600 });
      const plainSubscribe = await h.api.post("/v1/links/subscribe").send({ setup_token: plain.body.setup_token, payer: first!.address, signature });
      assert.equal(plainSubscribe.body.error, "INVALID_SETUP_TOKEN");

      const listed = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.lengthOf(listed.body.subscriptions, 1, "one row per subscriber, however often they post");
      assert.isNull(listed.body.next);
      const [row] = listed.body.subscriptions;
      assert.equal(row.subscription_id, subscribed.body.subscription_id);
      assert.equal(row.payer, first!.address);
      assert.match(row.subscription, /^sc\./);
      assert.closeTo(row.created_at, Math.floor(h.clock.ms / 1000), 1);
      const stored = await h.database.query<{ capability_sealed: string }>("SELECT capability_sealed FROM link_subscriptions");
      assert.lengthOf(stored, 1);
      assert.notInclude(stored[0]!.capability_sealed, row.subscription.split(".")[2], "sealed at rest, not the token in the clear");
      const bad = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.link });
      assert.equal(bad.body.error, "INVALID_LINK_TOKEN");
    });

    it("refuses a payer that could never pay its first charge: nothing listed, stored, watched or delivered for it", async () => {
      const link = await createLink();
      // A fresh key: no USDC, no allowance, no ETH (what a script makes by the thousand for free).
      const fresh = localAccount(40);
      const refused = await visit(link.link, fresh);
      assert.equal(refused.subscribed.status, 400, JSON.stringify(refused.subscribed.body));
      assert.deepEqual(refused.subscribed.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" });
      // The allowance set, no USDC.
      const approvedOnly = localAccount(41);
      await h.chain.testClient.setBalance({ address: approvedOnly.address, value: parseEther("1") });
      await allow(approvedOnly);
      const empty = await visit(link.link, approvedOnly);
      assert.equal(empty.subscribed.status, 400);
      assert.deepEqual(empty.subscribed.body, { error: "INSUFFICIENT_BALANCE", action: "ASK_PAYER" });
      // USDC held, no allowance.
      const [funded] = payers();
      const unapproved = await visit(link.link, funded!);
      assert.equal(unapproved.subscribed.status, 400);
      assert.deepEqual(unapproved.subscribed.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" });

      await h.chain.mine(2);
      await drain();
      assert.deepEqual(
        (await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token })).body,
        { subscriptions: [], next: null },
        "nothing listed",
      );
      assert.lengthOf(await h.database.query("SELECT 1 FROM link_subscriptions"), 0, "nothing stored");
      assert.lengthOf(await h.database.query("SELECT 1 FROM watches WHERE kind = 'subscription'"), 0, "nothing watched");
      assert.lengthOf(await h.database.query("SELECT 1 FROM webhook_deliveries"), 0, "nothing enqueued");
      assert.deepEqual(receiver.received, [], "nothing delivered");
      assert.deepEqual((await h.api.post("/v1/events").send({ manage_token: link.manage_token })).body.events, [], "nothing to read back");

      // The same payer once it has allowed the charge: kept, watched and announced.
      await allow(funded!);
      const kept = await visit(link.link, funded!);
      assert.equal(kept.subscribed.status, 200, JSON.stringify(kept.subscribed.body));
    });

    it("a link's subscribers take places under the link caller's watch caps, and a subscriber's watch ends when its subscription is revoked", async () => {
      // Room for the link and one subscriber.
      const capped = await h.another({ WEBHOOK_WATCH_CAP_PER_CALLER: "2" });
      const api = supertest(capped.app);
      const created = await api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50", period: 3600, notify_url: HOOK });
      assert.equal(created.body.notify_url, HOOK);
      const subscribeThrough = async (payer: HDAccount) => {
        await allow(payer);
        const { subscribed } = await visit(created.body.link, payer, api);
        assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
        assert.equal(subscribed.body.state, "ACTIVE");
        return subscribed.body.subscription_id as Hex;
      };
      const watched = async () =>
        (await h.database.query<{ key: string }>("SELECT key FROM watches WHERE kind = 'subscription' ORDER BY key")).map((r) => r.key);
      const [p1, p2, p3] = payers();
      const first = await subscribeThrough(p1!);
      const second = await subscribeThrough(p2!);
      assert.deepEqual(await watched(), [first], "the second subscriber found no room: kept, not watched");
      await capped.webhooks.delivery.runDue();
      assert.deepEqual(
        receiver.received.map((r) => [r.body.type, (r.body.data as { subscription_id: Hex }).subscription_id]),
        [["subscription.created", first]],
        "announced only where watched",
      );
      const listed = (await api.post("/v1/links/subscriptions").send({ manage_token: created.body.manage_token })).body.subscriptions as {
        subscription_id: Hex;
        subscription: string;
      }[];
      assert.deepEqual(
        listed.map((s) => s.subscription_id),
        [first, second],
        "both listed",
      );

      // The first payer revokes: announced, then its watch ends and its place is given back.
      const cancel = (await api.post("/v1/subscriptions/revoke/session").send({ subscription: listed[0]!.subscription })).body.cancel_token;
      const prepared = (await api.post("/v1/subscriptions/revoke/prepare").send({ subscription: cancel })).body;
      await sendPrepared(h, p1!, prepared);
      await h.chain.mine(2);
      await capped.webhooks.watcher.tick();
      await capped.webhooks.delivery.runDue();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["subscription.created", "subscription.charged", "subscription.revoked"],
        "its first charge too: watched from the block it settled in",
      );
      const seconds = 600 + 60; // the prune margin
      await h.chain.advanceTime(seconds);
      await h.chain.mine(3);
      h.clock.advance(seconds);
      await capped.webhooks.watcher.tick();
      assert.deepEqual(await capped.webhooks.prune(), { watches: 1, deliveries: 0 }, "the revoked subscription's watch is pruned");
      assert.deepEqual(await watched(), []);
      const third = await subscribeThrough(p3!);
      assert.deepEqual(await watched(), [third], "its place taken by the next subscriber");
    });

    it("pages subscribers 100 at a time, oldest first, with next as the cursor", async () => {
      const link = await createLink({ notify_url: undefined });
      const [payer] = payers();
      await allow(payer!);
      const ids: Hex[] = [];
      for (let i = 0; i < 101; i++) {
        const { subscribed } = await visit(link.link, payer!);
        assert.equal(subscribed.status, 200, `${i} ${JSON.stringify(subscribed.body)}`);
        ids.push(subscribed.body.subscription_id);
      }
      const first = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token });
      assert.lengthOf(first.body.subscriptions, 100);
      assert.isString(first.body.next);
      const second = await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token, after: first.body.next });
      assert.lengthOf(second.body.subscriptions, 1);
      assert.isNull(second.body.next);
      assert.deepEqual(
        [...first.body.subscriptions, ...second.body.subscriptions].map((s: { subscription_id: Hex }) => s.subscription_id),
        ids,
      );
      const other = await createLink();
      assert.deepEqual(
        (await h.api.post("/v1/links/subscriptions").send({ manage_token: other.manage_token })).body,
        { subscriptions: [], next: null },
        "another link's list is its own",
      );
    });

    it("two payers through one link: listed, charged with their capabilities, events carry link_id; once closed a third visitor is refused and the first two are still charged", async () => {
      const link = await createLink();
      const [p1, p2, p3] = payers();
      const ids: Hex[] = [];
      for (const payer of [p1!, p2!]) {
        await allow(payer);
        const { subscribed } = await visit(link.link, payer);
        assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
        ids.push(subscribed.body.subscription_id);
      }
      const listed = (await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token })).body as {
        subscriptions: Array<{ subscription_id: Hex; subscription: string; payer: Address }>;
      };
      assert.deepEqual(
        listed.subscriptions.map((s) => [s.subscription_id, s.payer]),
        [
          [ids[0], p1!.address],
          [ids[1], p2!.address],
        ],
      );
      for (const s of listed.subscriptions) {
        const charged = await h.api.post("/v1/charges").send({ subscription: s.subscription });
        assert.equal(charged.status, 200, JSON.stringify(charged.body));
        assert.equal(charged.body.status, "ALREADY_CHARGED", "the service made the first charge before listing them");
      }
      await h.chain.mine(2);
      await drain();
      const events = receiver.received.map((r) => r.body as { type: string; data: { link_id: Hex; subscription_id: Hex; state: string } });
      const of = (type: string) => events.filter((e) => e.type === type);
      assert.sameMembers(
        of("subscription.created").map((e) => e.data.subscription_id),
        ids,
      );
      assert.sameMembers(
        of("subscription.charged").map((e) => e.data.subscription_id),
        ids,
      );
      for (const e of events) assert.equal(e.data.link_id, link.link_id, `${e.type} carries the link id`);
      assert.deepEqual(
        of("subscription.created").map((e) => e.data.state),
        ["ACTIVE", "ACTIVE"],
      );
      // The link's events read back with its manage token (POST /v1/events): the same ids as delivered, created included.
      const readBack = await h.api.post("/v1/events").send({ manage_token: link.manage_token });
      assert.equal(readBack.status, 200, JSON.stringify(readBack.body));
      assert.sameMembers(
        (readBack.body.events as { id: string }[]).map((e) => e.id),
        receiver.received.map((r) => (r.body as { id: string }).id),
      );
      // And a subscriber's with its capability: its own created and charged events.
      const own = await h.api.post("/v1/events").send({ subscription: listed.subscriptions[0]!.subscription });
      assert.sameMembers(
        (own.body.events as { type: string }[]).map((e) => e.type),
        ["subscription.created", "subscription.charged"],
      );

      // A visitor who resolved before the close cannot subscribe after it; nor can a new one resolve.
      const early = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: link.link });
      const closed = await h.api.post("/v1/links/close").send({ manage_token: link.manage_token });
      assert.equal(closed.body.closed, true);
      const late = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: link.link });
      assert.equal(late.status, 400);
      assert.equal(late.body.error, "LINK_CLOSED");
      const signature = await p3!.signTypedData(walletTypedData(early.body as ResolvedTerms, p3!.address) as never);
      const refused = await h.api.post("/v1/links/subscribe").send({ setup_token: early.body.setup_token, payer: p3!.address, signature });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, "LINK_CLOSED");
      assert.equal(refused.body.action, "STOP");
      assert.lengthOf((await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token })).body.subscriptions, 2);

      // The next period: both existing subscriptions still charge, and their events still arrive.
      receiver.received.length = 0;
      await h.chain.advanceTime(3600);
      h.clock.advance(3600);
      for (const s of listed.subscriptions) {
        const charged = await h.api.post("/v1/charges").send({ subscription: s.subscription });
        assert.equal(charged.status, 200, JSON.stringify(charged.body));
        assert.oneOf(charged.body.status, ["CHARGED", "CONFIRMING"], "sent (settled once mined deep enough)");
        assert.equal(charged.body.period_index, 1);
      }
      await h.chain.mine(2);
      await drain();
      assert.sameMembers(
        receiver.received.filter((r) => r.body.type === "subscription.charged").map((r) => (r.body.data as { subscription_id: Hex }).subscription_id),
        ids,
      );
    });
  });
