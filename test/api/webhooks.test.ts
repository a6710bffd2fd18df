import { assert } from "chai";
import supertest from "supertest";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { Deliveries } from "../../src/webhooks/deliveries.js";
import { RETRY_SCHEDULE_SECONDS } from "../../src/webhooks/delivery.js";
import { useService } from "../helpers/service.js";
import { payIntent } from "../helpers/payments.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";
import { approveThroughSession, sendPrepared, walletTypedData } from "../helpers/recurring.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/payments?shop=1`;

for (const store of ["pglite", "postgres"] as const) {
  describe(`webhooks and payment links (${store})`, function () {
    this.timeout(120_000);
    const receiver = new Receiver();
    /** DNS as the test wants it: RECEIVER_HOST → 127.0.0.1 unless a test says otherwise. */
    const dns = { lookups: 0, answers: [] as string[][] };
    const resolve = async (host: string) => {
      dns.lookups++;
      const next = dns.answers.length > 1 ? dns.answers.shift()! : (dns.answers[0] ?? ["127.0.0.1"]);
      if (host !== RECEIVER_HOST) throw new Error(`no such host ${host}`);
      return next.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };
    const h = useService(
      { WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_TIMEOUT_MS: "400", TRUST_PROXY: "1" },
      { store, deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) },
    );
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.received.length = 0;
      receiver.behave = { status: 200 };
      dns.lookups = 0;
      dns.answers = [];
    });
    afterEach(() => {
      assert.deepEqual(receiver.mismatches.splice(0), [], "every webhook body matches its event's wire schema");
    });
    const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const deliveries = () => new Deliveries(h.database).all();
    const drain = async () => {
      await h.service.webhooks.watcher.tick();
      return h.service.webhooks.delivery.runDue();
    };

    async function paidWithHook(amount = "5", notify_url = HOOK) {
      const created = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount, notify_url });
      assert.equal(created.body.notify_url, notify_url, "accepted");
      const receipt = await payIntent(h.chain, buyer(), created.body.pay);
      return { created: created.body, receipt };
    }

    it("announces a settled payment once it is at the finality head: POST JSON with svc-event-id/-type; the event verifies", async () => {
      const { created, receipt } = await paidWithHook();
      await drain();
      assert.equal(receiver.received.length, 0, "not before finality");
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);
      const [hook] = receiver.received;
      assert.equal(hook!.path, "/hooks/payments?shop=1");
      assert.equal(hook!.headers["svc-event-type"], "payment.settled");
      assert.match(String(hook!.headers["svc-event-id"]), /^evt_[0-9a-f]{32}$/);
      assert.equal(hook!.body.id, hook!.headers["svc-event-id"]);
      assert.equal(hook!.body.type, "payment.settled");
      const data = hook!.body.data as { intent: string; tx_hash: Hex; reference: Hex };
      assert.deepEqual(Object.keys(data).sort(), ["intent", "reference", "tx_hash"]);
      assert.equal(data.tx_hash, receipt.transactionHash);
      const verdict = await h.api.post("/v1/payments/verify").send({ intent: data.intent, tx_hash: data.tx_hash });
      assert.equal(verdict.body.valid, true);
      assert.equal(verdict.body.reference, created.reference);
      assert.deepEqual(
        (await deliveries()).map((d) => d.status),
        ["delivered"],
      );
      await drain();
      assert.equal(receiver.received.length, 1, "delivered once");
    });

    it("announces only the watched payment, never a look-alike of its reference (another recipient, amount or token)", async () => {
      const created = (await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "5", notify_url: HOOK })).body;
      const griefer = h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
      await payIntent(h.chain, griefer, created.pay, { amount: 1n });
      await payIntent(h.chain, griefer, created.pay, { recipient: griefer.address, amount: 5_000_000n });
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 0, "no look-alike is announced");
      const receipt = await payIntent(h.chain, buyer(), created.pay);
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);
      assert.equal((receiver.received[0]!.body.data as { tx_hash: string }).tx_hash, receipt.transactionHash);
    });

    it("never announces a payment that was reorged out", async () => {
      const snapshot = await h.chain.snapshot();
      await paidWithHook();
      await drain();
      await h.chain.revert(snapshot);
      await h.chain.mine(5);
      await drain();
      assert.equal(receiver.received.length, 0);
      assert.deepEqual(await deliveries(), []);
    });

    it("retries after 1 m, 5 m, 30 m, 2 h, 6 h, 12 h (fake clock), always with the same event id, then drops", async () => {
      receiver.behave = { status: 500 };
      await paidWithHook();
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);
      for (const [i, seconds] of RETRY_SCHEDULE_SECONDS.entries()) {
        h.clock.advance(seconds - 1);
        assert.equal(await h.service.webhooks.delivery.runDue(), 0, `not before ${seconds} s (retry ${i + 1})`);
        h.clock.advance(1);
        assert.equal(await h.service.webhooks.delivery.runDue(), 1, `retry ${i + 1} after ${seconds} s`);
      }
      h.clock.advance(7 * 24 * 3600);
      assert.equal(await h.service.webhooks.delivery.runDue(), 0, "dropped");
      assert.equal(receiver.received.length, 7);
      assert.equal(new Set(receiver.received.map((r) => r.headers["svc-event-id"])).size, 1);
      const [row] = await deliveries();
      assert.include(row!, { status: "dropped", attempts: 7, lastError: "HTTP 500" });
    });

    it("retries a receiver that is down, slow (over the timeout) or redirecting; any 2xx acknowledges", async () => {
      await paidWithHook();
      await h.chain.mine(2);
      const port = receiver.port;
      await receiver.stop();
      await drain();
      assert.match((await deliveries())[0]!.lastError ?? "", /ECONNREFUSED/);
      await receiver.start(port);

      receiver.behave = { status: 200, delayMs: 1500 };
      h.clock.advance(60);
      await h.service.webhooks.delivery.runDue();
      assert.equal((await deliveries())[0]!.lastError, "timeout");

      receiver.behave = { status: 302, location: `https://${RECEIVER_HOST}/elsewhere` };
      h.clock.advance(300);
      await h.service.webhooks.delivery.runDue();
      assert.equal((await deliveries())[0]!.lastError, "HTTP 302");
      assert.isFalse(
        receiver.received.some((r) => r.path === "/elsewhere"),
        "redirect not followed",
      );

      receiver.behave = { status: 204 };
      h.clock.advance(1800);
      await h.service.webhooks.delivery.runDue();
      assert.equal((await deliveries())[0]!.status, "delivered");
    });

    it("loses nothing when the service restarts mid-queue, and a crashed instance's lease runs out", async () => {
      await paidWithHook();
      await h.chain.mine(2);
      await h.service.webhooks.watcher.tick(); // enqueued, not delivered: then "killed"
      const restarted = await h.another();
      assert.equal(await restarted.webhooks.delivery.runDue(), 1);
      assert.equal(receiver.received.length, 1);

      await paidWithHook("6");
      await h.chain.mine(2);
      await restarted.webhooks.watcher.tick();
      const leased = await new Deliveries(h.database).leaseDue(h.clock.now(), 60_000, 10); // taken, then the taker dies
      assert.equal(leased.length, 1);
      const other = await h.another();
      assert.equal(await other.webhooks.delivery.runDue(), 0, "held by the lease");
      h.clock.advance(61);
      assert.equal(await other.webhooks.delivery.runDue(), 1);
      assert.equal(receiver.received.length, 2);
    });

    it("two instances draining one queue at once send every event exactly once", async () => {
      for (const amount of ["1", "2", "3", "4", "5", "6"]) await paidWithHook(amount);
      await h.chain.mine(2);
      await h.service.webhooks.watcher.tick();
      const [a, b] = [await h.another(), await h.another()];
      const counts = await Promise.all([a.webhooks.delivery.runDue(), b.webhooks.delivery.runDue(), h.service.webhooks.delivery.runDue()]);
      assert.equal(
        counts.reduce((x, y) => x + y, 0),
        6,
      );
      const ids = receiver.received.map((r) => String(r.headers["svc-event-id"]));
      assert.equal(ids.length, 6);
      assert.equal(new Set(ids).size, 6);
    });

    it("prunes a watch once the watcher has read past its end, and frees its place under the cap", async () => {
      const capped = await h.another({ WEBHOOK_WATCH_CAP_PER_CALLER: "1" });
      const api = supertest(capped.app);
      const create = () => api.post("/v1/payments").send({ recipient: merchant().address, amount: "1", notify_url: HOOK });
      assert.equal((await create()).body.notify_url, HOOK);
      assert.notProperty((await create()).body, "notify_url", "the cap is full");
      const seconds = 3600 + 3600 + 600 + 60; // intent TTL + watch grace + prune margin
      await capped.webhooks.watcher.tick();
      assert.deepEqual(await capped.webhooks.prune(), { watches: 0, deliveries: 0 }, "the watcher has not read past it");
      await h.chain.advanceTime(seconds);
      await h.chain.mine(3);
      h.clock.advance(seconds);
      await capped.webhooks.watcher.tick();
      assert.deepEqual(await capped.webhooks.prune(), { watches: 1, deliveries: 0 });
      assert.equal((await create()).body.notify_url, HOOK, "room again");
    });

    it("enqueues an event once even when blocks are read again (same event id)", async () => {
      await paidWithHook();
      await h.chain.mine(2);
      await h.service.webhooks.watcher.tick();
      await h.database.query("DELETE FROM watcher_cursor");
      await h.service.webhooks.watcher.tick(); // reads the same blocks again
      const rows = await deliveries();
      assert.equal(rows.length, 1);
    });

    it("refuses targets that resolve to private addresses, and connects to the address it checked", async () => {
      dns.answers = [["10.0.0.5"]];
      await paidWithHook();
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 0);
      assert.match((await deliveries())[0]!.lastError ?? "", /non-public address \(10\.0\.0\.5\)/);

      // DNS that changes between the check and the connection: the first answer is the one used.
      dns.answers = [["127.0.0.1"], ["10.0.0.1"]];
      dns.lookups = 0;
      h.clock.advance(60);
      await h.service.webhooks.delivery.runDue();
      assert.equal(receiver.received.length, 1);
      assert.equal(dns.lookups, 1, "resolved once");
      assert.equal((await deliveries())[0]!.status, "delivered");
    });

    it("caps watches per caller and in total: past the cap the payment is created without notify_url", async () => {
      const capped = await h.another({ WEBHOOK_WATCH_CAP_PER_CALLER: "2", WEBHOOK_WATCH_CAP_TOTAL: "3" });
      const api = supertest(capped.app);
      const create = (ip: string) => api.post("/v1/payments").set("X-Forwarded-For", ip).send({ recipient: merchant().address, amount: "1", notify_url: HOOK });
      assert.equal((await create("198.51.100.1")).body.notify_url, HOOK);
      assert.equal((await create("198.51.100.1")).body.notify_url, HOOK);
      const third = await create("198.51.100.1");
      assert.equal(third.status, 200);
      assert.notProperty(third.body, "notify_url", "per-caller cap");
      assert.equal((await create("198.51.100.2")).body.notify_url, HOOK);
      const total = await create("198.51.100.3");
      assert.equal(total.status, 200);
      assert.notProperty(total.body, "notify_url", "total cap");
    });

    it("refuses notify_url everywhere when the deployment has webhooks disabled", async () => {
      const api = supertest((await h.another({ WEBHOOKS_ENABLED: "false" })).app);
      for (const [path, body] of [
        ["/v1/payments", { recipient: merchant().address, amount: "1", notify_url: HOOK }],
        ["/v1/links", { recipient: merchant().address, amount: "1", notify_url: HOOK }],
        ["/v1/subscriptions", { recipient: merchant().address, amount: "1", period: 3600, notify_url: HOOK }],
      ] as const) {
        const res = await api.post(path).send(body);
        assert.deepEqual(res.body, { error: "INVALID_REQUEST", action: "FIX_REQUEST" }, path);
      }
    });

    it("links: each resolve mints a fresh reference that starts with the link id; payments are announced with link_id; close stops it", async () => {
      const created = await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "3", notify_url: HOOK });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const link = created.body;
      assert.match(link.link_id, /^0x[0-9a-f]{32}$/);
      assert.match(link.link, /^lk\./);
      assert.match(link.manage_token, /^lm\./);
      assert.equal(link.url, `http://127.0.0.1:8787/checkout/#/link/${link.link}`);
      assert.include(link, { amount: "3.000000", recipient: merchant().address, notify_url: HOOK, expires_at: Math.floor(h.clock.ms / 1000) + 7 * 24 * 3600 });

      const first = await h.api.post("/v1/payments/resolve").send({ intent: link.link });
      const second = await h.api.post("/v1/payments/resolve").send({ intent: link.link });
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.link_id, link.link_id);
      assert.isTrue(first.body.reference.startsWith(link.link_id));
      assert.notEqual(first.body.reference, second.body.reference);
      assert.match(first.body.intent, /^pi\./);
      assert.include(first.body, { amount: "3.000000", amount_units: "3000000", recipient: merchant().address, chain_id: 84532 });

      const pay = {
        chain_id: 84532,
        splitter: first.body.splitter,
        token: first.body.token,
        recipient: first.body.recipient,
        amount_units: first.body.amount_units,
        reference: first.body.reference,
      };
      const receipt = await payIntent(h.chain, buyer(), pay);
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);
      const data = receiver.received[0]!.body.data as Record<string, string>;
      assert.equal(data.link_id, link.link_id);
      assert.equal(data.tx_hash, receipt.transactionHash);
      const verdict = await h.api.post("/v1/payments/verify").send({ intent: data.intent, tx_hash: data.tx_hash });
      assert.isTrue(verdict.body.valid && verdict.body.reference.startsWith(link.link_id));

      const closed = await h.api.post("/v1/links/close").send({ manage_token: link.manage_token });
      assert.deepEqual(closed.body, { link_id: link.link_id, closed: true });
      assert.deepEqual((await h.api.post("/v1/payments/resolve").send({ intent: link.link })).body, { error: "LINK_CLOSED", action: "STOP" });
      // A payment minted before the close is no longer watched.
      await payIntent(h.chain, buyer(), { ...pay, reference: second.body.reference });
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);

      assert.deepEqual((await h.api.post("/v1/links/close").send({ manage_token: link.link })).body, { error: "INVALID_LINK_TOKEN", action: "FIX_REQUEST" });
      assert.equal((await h.api.post("/v1/payments/verify").send({ intent: link.link, tx_hash: receipt.transactionHash })).body.error, "INVALID_INTENT");
    });

    it("links: anonymous resolves store nothing (no watch row per resolve), and a look-alike of a link payment is not announced", async () => {
      const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "3", notify_url: HOOK })).body;
      const countWatches = async () => Number((await h.database.query<{ n: string | number }>("SELECT count(*) AS n FROM watches"))[0]!.n);
      assert.equal(await countWatches(), 1, "the link's own watch");
      const resolved = [];
      for (let i = 0; i < 5; i++) resolved.push((await h.api.post("/v1/payments/resolve").send({ intent: link.link })).body);
      assert.equal(await countWatches(), 1, "resolving a link creates no watch");
      const pay = {
        chain_id: 84532,
        splitter: resolved[0].splitter,
        token: resolved[0].token,
        recipient: resolved[0].recipient,
        amount_units: resolved[0].amount_units,
        reference: resolved[0].reference,
      };
      await payIntent(h.chain, buyer(), pay, { amount: 1n });
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 0, "a look-alike of a link payment is not announced");
      const receipt = await payIntent(h.chain, buyer(), { ...pay, reference: resolved[4].reference });
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);
      const data = receiver.received[0]!.body.data as Record<string, string>;
      assert.deepEqual([data.tx_hash, data.reference, data.link_id], [receipt.transactionHash, resolved[4].reference, link.link_id]);
      assert.equal((await h.api.post("/v1/payments/verify").send({ intent: data.intent, tx_hash: data.tx_hash })).body.valid, true);
    });

    it("links expire (LINK_CLOSED), and refuse a bad expiry or amount", async () => {
      const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "3", expires_at: Math.floor(h.clock.ms / 1000) + 60 })).body;
      assert.notProperty(link, "notify_url");
      assert.equal((await h.api.post("/v1/payments/resolve").send({ intent: link.link })).status, 200);
      h.clock.advance(60);
      assert.equal((await h.api.post("/v1/payments/resolve").send({ intent: link.link })).body.error, "LINK_CLOSED");
      assert.equal((await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "3", expires_at: 1 })).body.error, "INVALID_REQUEST");
      assert.equal((await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "0.001" })).body.error, "AMOUNT_OUT_OF_BOUNDS");
    });

    it("announces subscription.charged and subscription.revoked with state and paid_count", async () => {
      const created = await h.api.post("/v1/subscriptions").send({ recipient: merchant().address, amount: "10", period: 3600, notify_url: HOOK });
      assert.equal(created.body.notify_url, HOOK);
      const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      const signature = await buyer().signTypedData(walletTypedData(resolved.body, buyer().address) as never);
      const finalized = (await h.api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer: buyer().address, signature }))
        .body;
      await approveThroughSession(h, buyer(), finalized.subscription);
      const charged = await h.api.post("/v1/charges").send({ subscription: finalized.subscription });
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 1);
      assert.equal(receiver.received[0]!.headers["svc-event-type"], "subscription.charged");
      assert.deepEqual(receiver.received[0]!.body.data, {
        link_id: null,
        subscription_id: finalized.subscription_id,
        payer: buyer().address,
        state: "ACTIVE",
        paid_count: 1,
        period_index: 0,
        tx_hash: charged.body.tx_hash,
      });

      const cancel = (await h.api.post("/v1/subscriptions/revoke/session").send({ subscription: finalized.subscription })).body.cancel_token;
      const prepared = (await h.api.post("/v1/subscriptions/revoke/prepare").send({ subscription: cancel })).body;
      await sendPrepared(h, buyer(), prepared);
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[1]!.headers["svc-event-type"], "subscription.revoked");
      assert.deepEqual(receiver.received[1]!.body.data, {
        link_id: null,
        subscription_id: finalized.subscription_id,
        payer: buyer().address,
        state: "REVOKED",
        paid_count: 1,
      });
    });

    it("does not announce a payment settled after its watch ended (intent expiry plus one hour)", async () => {
      const created = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "2", notify_url: HOOK });
      await h.chain.advanceTime(2 * 3600 + 10);
      await payIntent(h.chain, buyer(), created.body.pay);
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 0);
      assert.equal((await h.api.post("/v1/payments/recover").send({ intent: created.body.intent })).body.found, true, "recover still finds it");
    });
  });
}
