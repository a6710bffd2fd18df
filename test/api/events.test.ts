import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as ed from "@noble/ed25519";
import { assert } from "chai";
import supertest from "supertest";
import { Webhook } from "standardwebhooks";
import type { Hex } from "viem";
import { verifyWebhook, WebhookVerificationError, type WebhookPublicKey } from "../../client/src/index.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { createLogger } from "../../src/logger.js";
import { createService, type Service } from "../../src/service.js";
import { Deliveries } from "../../src/webhooks/deliveries.js";
import { RETRY_SCHEDULE_SECONDS } from "../../src/webhooks/delivery.js";
import { EVENTS_PAGE_SIZE } from "../../src/webhooks/events.js";
import { payIntent } from "../helpers/payments.js";
import { Receiver, RECEIVER_HOST, type Received } from "../helpers/receiver.js";
import { configFor, useService } from "../helpers/service.js";
import { approveThroughSession, walletTypedData } from "../helpers/recurring.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/events`;
const SEED = randomBytes(32);
const OTHER_SEED = randomBytes(32);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const header = (r: Received, name: string) => String(r.headers[name]);
const signatureOf = (value: string) => Buffer.from(value.replace(/^v1a,/, ""), "base64");

/** Checks one signed event with an ed25519 implementation independent of the service's and the client's. */
async function nobleVerifies(headers: Record<string, unknown>, body: string, publicKey: Uint8Array): Promise<boolean> {
  const message = new TextEncoder().encode(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`);
  return ed.verifyAsync(signatureOf(String(headers["webhook-signature"])), message, publicKey);
}

for (const store of ["pglite", "postgres"] as const) {
  describe(`signed events, read-back and inclusion hints (${store})`, function () {
    this.timeout(120_000);
    const receiver = new Receiver();
    const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
    const h = useService(
      { WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_TIMEOUT_MS: "400", WEBHOOK_SIGNING_KEYS: `k1:${b64(SEED)}` },
      { store, deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) },
    );
    before(() => receiver.start());
    after(() => receiver.stop());
    beforeEach(() => {
      receiver.received.length = 0;
      receiver.behave = { status: 200 };
    });
    afterEach(() => {
      assert.deepEqual(receiver.mismatches.splice(0), [], "every webhook body matches its event's wire schema");
    });
    const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const nowSeconds = () => Math.floor(h.clock.now() / 1000);
    const drain = async (service: Service = h.service) => {
      await service.webhooks.watcher.tick();
      return service.webhooks.delivery.runDue();
    };
    const keysOf = async (api = h.api) => {
      const answer = await api.get("/v1/webhooks/keys");
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.keys as WebhookPublicKey[];
    };
    async function paid(body: Record<string, unknown> = {}, api = h.api) {
      const created = await api.post("/v1/payments").send({ recipient: merchant().address, amount: "2", notify_url: HOOK, ...body });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      assert.equal(created.body.notify_url, HOOK);
      const receipt = await payIntent(h.chain, buyer(), created.body.pay);
      return { created: created.body, receipt };
    }

    it("signs every delivery (v1a ed25519 over id.timestamp.body): it verifies with the published key, by the client and by @noble/ed25519, and never with another key", async () => {
      const keys = await keysOf();
      assert.deepEqual(keys, [{ kid: "k1", alg: "ed25519", public_key: b64(await ed.getPublicKeyAsync(SEED)), not_before: 0, not_after: null }]);
      await paid();
      await paid({ amount: "3" });
      await h.chain.mine(2);
      h.clock.ms = Date.now(); // standardwebhooks checks the timestamp against the real clock
      assert.equal(await drain(), 2);
      assert.equal(receiver.received.length, 2);
      const otherKey: WebhookPublicKey = { kid: "x", alg: "ed25519", public_key: b64(await ed.getPublicKeyAsync(OTHER_SEED)) };
      for (const r of receiver.received) {
        assert.equal(header(r, "webhook-id"), r.body.id);
        assert.equal(header(r, "svc-event-id"), r.body.id);
        assert.equal(header(r, "svc-event-type"), "payment.settled");
        assert.equal(header(r, "webhook-timestamp"), String(nowSeconds()));
        assert.match(header(r, "webhook-signature"), /^v1a,[A-Za-z0-9+/]{86}==$/);
        const body = await verifyWebhook(r.headers, r.raw, keys, { now: nowSeconds() });
        assert.equal(body.id, r.body.id);
        assert.isTrue(await nobleVerifies(r.headers, r.raw, Buffer.from(keys[0]!.public_key, "base64")), "@noble/ed25519 agrees");
        assert.isFalse(await nobleVerifies(r.headers, r.raw, Buffer.from(otherKey.public_key, "base64")));
        for (const [what, attempt] of [
          ["another key", () => verifyWebhook(r.headers, r.raw, [otherKey], { now: nowSeconds() })],
          ["a changed body", () => verifyWebhook(r.headers, r.raw.replace('"payment.settled"', '"payment.settlex"'), keys, { now: nowSeconds() })],
          ["another id", () => verifyWebhook({ ...r.headers, "webhook-id": "evt_0" }, r.raw, keys, { now: nowSeconds() })],
        ] as const) {
          const error = await attempt().catch((e: unknown) => e);
          assert.instanceOf(error, WebhookVerificationError, what);
          assert.equal((error as WebhookVerificationError).reason, "no_matching_signature", what);
        }
        const late = await verifyWebhook(r.headers, r.raw, keys, { now: nowSeconds() + 301 }).catch((e: unknown) => e);
        assert.equal((late as WebhookVerificationError).reason, "timestamp_too_old", "Standard Webhooks' 5-minute tolerance");
        // Standard Webhooks' own library reads these headers (names, timestamp) and looks for its
        // symmetric v1 signature: it finds none, as it must with no shared secret.
        const standard = new Webhook(b64(randomBytes(24)));
        assert.throws(() => standard.verify(r.raw, r.headers as Record<string, string>), /No matching signature found/);
      }
      // A signature the independent library makes verifies with the client.
      const message = `evt_${"a".repeat(32)}.${nowSeconds()}.{"x":1}`;
      const signature = await ed.signAsync(new TextEncoder().encode(message), OTHER_SEED);
      assert.deepEqual(
        await verifyWebhook(
          { "webhook-id": `evt_${"a".repeat(32)}`, "webhook-timestamp": String(nowSeconds()), "webhook-signature": `v1a,${b64(signature)}` },
          '{"x":1}',
          [otherKey],
          { now: nowSeconds() },
        ),
        { x: 1 } as unknown as Awaited<ReturnType<typeof verifyWebhook>>,
      );
    });

    it("rotates keys with an overlap: both are published during it, and deliveries signed before and after the switch verify", async () => {
      const start = nowSeconds();
      const switchAt = start + 1000;
      const rotating = await h.another({
        WEBHOOK_SIGNING_KEYS: `old:${b64(SEED)},new:${b64(OTHER_SEED)}@${switchAt}`,
        WEBHOOK_KEY_OVERLAP_SECONDS: "600",
      });
      const api = supertest(rotating.app);
      const [oldKey, newKey] = [b64(await ed.getPublicKeyAsync(SEED)), b64(await ed.getPublicKeyAsync(OTHER_SEED))];
      assert.deepEqual(
        (await keysOf(api)).map((k) => k.kid),
        ["old"],
        "the next key is not published before the overlap",
      );

      h.clock.advance(switchAt - 300 - start);
      const before = await keysOf(api);
      assert.deepEqual(before, [
        { kid: "old", alg: "ed25519", public_key: oldKey, not_before: 0, not_after: switchAt + 600 },
        { kid: "new", alg: "ed25519", public_key: newKey, not_before: switchAt, not_after: null },
      ]);
      await paid({}, api);
      await h.chain.mine(2);
      assert.equal(await drain(rotating), 1);
      const signedOld = receiver.received.at(-1)!;
      assert.isTrue(await nobleVerifies(signedOld.headers, signedOld.raw, Buffer.from(oldKey, "base64")), "signed by the old key before the switch");

      h.clock.advance(600);
      await paid({ amount: "3" }, api);
      await h.chain.mine(2);
      assert.equal(await drain(rotating), 1);
      const signedNew = receiver.received.at(-1)!;
      assert.isTrue(await nobleVerifies(signedNew.headers, signedNew.raw, Buffer.from(newKey, "base64")), "signed by the new key after it");
      assert.isFalse(await nobleVerifies(signedNew.headers, signedNew.raw, Buffer.from(oldKey, "base64")));
      const during = await keysOf(api);
      assert.deepEqual(
        during.map((k) => k.kid),
        ["old", "new"],
        "both during the overlap",
      );
      for (const r of [signedOld, signedNew]) await verifyWebhook(r.headers, r.raw, during, { now: Number(header(r, "webhook-timestamp")) + 60 });

      h.clock.advance(301);
      const after = await keysOf(api);
      assert.deepEqual(
        after.map((k) => k.kid),
        ["new"],
        "the old key leaves once the overlap is over",
      );
      await verifyWebhook(signedNew.headers, signedNew.raw, after, { now: Number(header(signedNew, "webhook-timestamp")) });
      const stale = await verifyWebhook(signedOld.headers, signedOld.raw, after, { now: Number(header(signedOld, "webhook-timestamp")) }).catch((e) => e);
      assert.equal((stale as WebhookVerificationError).reason, "no_matching_signature");
    });

    it("a receiver down past the whole retry schedule recovers every dropped event with POST /v1/events: same ids, same bodies, signed headers", async () => {
      receiver.behave = { status: 503 };
      const b = await paid({ amount: "3" });
      const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "4", notify_url: HOOK })).body;
      const resolved = (await h.api.post("/v1/payments/resolve").send({ intent: link.link })).body;
      const linkPay = {
        chain_id: 84532,
        splitter: resolved.splitter,
        token: resolved.token,
        recipient: resolved.recipient,
        amount_units: resolved.amount_units,
        reference: resolved.reference,
      };
      await payIntent(h.chain, buyer(), linkPay as never);
      const a = await paid({ notify_included: true });
      assert.equal(a.created.notify_included, true, "echoed when accepted");
      await drain(); // b's and the link payment's settled events, and a's inclusion hint (its block is above the finality head)
      await h.chain.mine(2);
      await drain(); // a's settled event
      assert.sameMembers(
        receiver.received.slice(0, 3).map((r) => r.body.type),
        ["payment.settled", "payment.settled", "payment.included"],
      );
      assert.equal(receiver.received[3]!.body.type, "payment.settled");
      assert.deepEqual(await h.database.query("SELECT * FROM included_hints"), [], "the hint is followed until final, then forgotten");
      for (const seconds of RETRY_SCHEDULE_SECONDS) {
        h.clock.advance(seconds);
        assert.equal(await h.service.webhooks.delivery.runDue(), 4);
      }
      h.clock.advance(24 * 3600);
      assert.equal(await h.service.webhooks.delivery.runDue(), 0);
      const rows = await new Deliveries(h.database).all();
      assert.deepEqual(
        rows.map((r) => r.status),
        ["dropped", "dropped", "dropped", "dropped"],
      );
      const sent = new Map(receiver.received.map((r) => [header(r, "webhook-id"), r.raw]));
      assert.equal(sent.size, 4, "every attempt of an event carried its one id");

      receiver.behave = { status: 200 };
      const keys = await keysOf();
      const recovered: Array<{ id: string; type: string; body: string; data: Record<string, unknown>; headers: Record<string, string> }> = [];
      for (const capability of [{ intent: a.created.intent }, { intent: b.created.intent }, { manage_token: link.manage_token }]) {
        const answer = await h.api.post("/v1/events").send(capability);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        recovered.push(...answer.body.events);
        assert.equal(answer.body.next, answer.body.events.at(-1).id);
      }
      assert.deepEqual(
        recovered.map((e) => e.type),
        ["payment.included", "payment.settled", "payment.settled", "payment.settled"],
        "oldest first, each capability its own",
      );
      assert.sameMembers(
        recovered.map((e) => e.id),
        [...sent.keys()],
        "every dropped event, with the id it was sent with",
      );
      for (const e of recovered) {
        assert.equal(e.body, sent.get(e.id), "the exact body delivered");
        assert.deepEqual(e.data, JSON.parse(e.body).data);
        assert.equal(e.headers["svc-event-type"], e.type);
        // Signed as first delivered (hours ago, before the retries): verified at its own timestamp.
        await verifyWebhook(e.headers, e.body, keys, { now: Number(e.headers["webhook-timestamp"]) });
        assert.isBelow(Number(e.headers["webhook-timestamp"]), nowSeconds() - 12 * 3600, "not signed afresh");
        assert.isTrue(await nobleVerifies(e.headers, e.body, Buffer.from(keys[0]!.public_key, "base64")));
      }
      const settledA = recovered[1]!;
      const verdict = await h.api
        .post("/v1/payments/verify")
        .send({ intent: (settledA.data as { intent: string }).intent, tx_hash: (settledA.data as { tx_hash: Hex }).tx_hash });
      assert.equal(verdict.body.valid, true, "the recovered event leads to verify, which decides");
      assert.equal(verdict.body.reference, a.created.reference);

      // Paging: after an event, only what came after it; after the last, nothing (next stays).
      const afterFirst = await h.api.post("/v1/events").send({ intent: a.created.intent, after: recovered[0]!.id });
      assert.deepEqual(
        afterFirst.body.events.map((e: { id: string }) => e.id),
        [recovered[1]!.id],
      );
      const afterLast = await h.api.post("/v1/events").send({ intent: a.created.intent, after: recovered[1]!.id });
      assert.deepEqual(afterLast.body, { events: [], next: recovered[1]!.id });
      // Another payment's event as a cursor reads nothing of it: the capability decides what is read.
      const foreign = await h.api.post("/v1/events").send({ intent: b.created.intent, after: recovered[0]!.id });
      assert.deepEqual(
        foreign.body.events.map((e: { id: string }) => e.id),
        [recovered[2]!.id],
      );

      const bad = await h.api.post("/v1/events").send({ intent: `${a.created.intent}x` });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error, "INVALID_INTENT");
      assert.equal((await h.api.post("/v1/events").send({ manage_token: link.link })).body.error, "INVALID_LINK_TOKEN");
      assert.equal((await h.api.post("/v1/events").send({ subscription: a.created.intent })).body.error, "INVALID_SUBSCRIPTION");
      const both = await h.api.post("/v1/events").send({ intent: a.created.intent, manage_token: link.manage_token });
      assert.equal(both.body.error, "INVALID_REQUEST", "one capability at a time");
      assert.isAtMost(EVENTS_PAGE_SIZE, 100);
    });

    it("read-back answers each event's headers as first signed: its delivery's timestamp and signature, the same at any later time", async () => {
      const signedOf = (headers: Record<string, unknown>) =>
        Object.fromEntries(
          ["webhook-id", "webhook-timestamp", "webhook-signature", "svc-event-id", "svc-event-type"].map((name) => [name, String(headers[name])]),
        );
      const readBack = async (intent: string) => {
        const answer = await h.api.post("/v1/events").send({ intent });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.lengthOf(answer.body.events, 1);
        return answer.body.events[0].headers as Record<string, string>;
      };
      const { created } = await paid();
      await h.chain.mine(2);
      assert.equal(await drain(), 1);
      const delivered = signedOf(receiver.received[0]!.headers);
      h.clock.advance(3600);
      const first = await readBack(created.intent);
      h.clock.advance(86_400);
      const second = await readBack(created.intent);
      assert.deepEqual(first, delivered, "the delivery's own headers");
      assert.deepEqual(second, delivered, "a day later, still the same");

      // An event not attempted yet: its first read-back signs it, and its first delivery carries that signing.
      receiver.received.length = 0;
      const other = await paid({ amount: "3" });
      await h.chain.mine(2);
      await h.service.webhooks.watcher.tick();
      const early = await readBack(other.created.intent);
      h.clock.advance(30);
      assert.deepEqual(await readBack(other.created.intent), early, "signed once");
      assert.equal(await h.service.webhooks.delivery.runDue(), 1);
      assert.deepEqual(signedOf(receiver.received[0]!.headers), early, "delivered as read back");
      const keys = await keysOf();
      await verifyWebhook(early, receiver.received[0]!.raw, keys, { now: Number(early["webhook-timestamp"]) });
    });

    it("a payment reorged out after its inclusion hint gets payment.reorged, and never payment.settled", async () => {
      const snapshot = await h.chain.snapshot();
      const { created, receipt } = await paid({ notify_included: true });
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["payment.included"],
      );
      const included = receiver.received[0]!.body as { id: string; data: Record<string, unknown> };
      assert.include(included.data, { tx_hash: receipt.transactionHash, block_hash: receipt.blockHash, reference: created.reference });
      const hinted = await h.api.post("/v1/payments/verify").send({ intent: included.data.intent, tx_hash: included.data.tx_hash });
      assert.deepEqual(hinted.body, { valid: false, code: "PAYMENT_CONFIRMING" }, "a hint is not a verdict");

      await h.chain.revert(snapshot);
      await h.chain.mine(5);
      await drain();
      await h.chain.mine(5);
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["payment.included", "payment.reorged"],
        "retracted once, never settled",
      );
      const reorged = receiver.received[1]!.body as { id: string; data: Record<string, unknown> };
      assert.deepEqual(reorged.data, included.data, "names the same transaction and block");
      assert.notEqual(reorged.id, included.id);
      const readBack = await h.api.post("/v1/events").send({ intent: created.intent });
      assert.deepEqual(
        readBack.body.events.map((e: { type: string }) => e.type),
        ["payment.included", "payment.reorged"],
      );
      assert.deepEqual(await h.database.query("SELECT * FROM included_hints"), []);
    });

    it("a node lagging below a hint's block retracts nothing (payment.reorged only for another block at that height); caught up, the payment is settled", async () => {
      const { receipt } = await paid({ notify_included: true });
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["payment.included"],
      );
      // The service's node falls behind the hint's block (a provider's other node behind its balancer).
      const tip = await h.chain.publicClient.getBlockNumber();
      h.proxy.lagBlocks = Number(tip - receipt.blockNumber) + 1;
      assert.isBelow(Number(await h.service.client.getBlockNumber({ cacheTime: 0 })), Number(receipt.blockNumber), "the node lags");
      await drain();
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["payment.included"],
        "nothing retracted by a node that has not reached the block",
      );
      assert.lengthOf(await h.database.query("SELECT 1 FROM included_hints"), 1, "the hint is still followed");

      h.proxy.lagBlocks = 0;
      await h.chain.mine(2);
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["payment.included", "payment.settled"],
        "the same block, final: settled, never retracted",
      );
      assert.deepEqual(await h.database.query("SELECT * FROM included_hints"), []);
    });

    it("a link created with notify_included announces its payments at inclusion too; without it, only when final", async () => {
      await paid(); // no hint asked
      const hinted = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "4", notify_url: HOOK, notify_included: true })).body;
      assert.equal(hinted.notify_included, true);
      const resolved = (await h.api.post("/v1/payments/resolve").send({ intent: hinted.link })).body;
      await payIntent(h.chain, buyer(), {
        chain_id: 84532,
        splitter: resolved.splitter,
        token: resolved.token,
        recipient: resolved.recipient,
        amount_units: resolved.amount_units,
        reference: resolved.reference,
      } as never);
      await drain();
      assert.sameDeepMembers(
        receiver.received.map((r) => [r.body.type, (r.body.data as { link_id?: string }).link_id ?? null]),
        [
          ["payment.settled", null],
          ["payment.included", hinted.link_id],
        ],
      );
      await h.chain.mine(2);
      await drain();
      assert.equal(receiver.received.length, 3);
      assert.equal(receiver.received[2]!.body.type, "payment.settled", "the link payment's final event, after its hint");
      const refused = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount: "1", notify_included: true });
      assert.equal(refused.body.error, "INVALID_REQUEST", "notify_included needs notify_url");
    });

    it("the receiver and the recovery loop printed in docs/merchants.md, run as printed, accept our deliveries and refuse junk", async () => {
      const doc = readFileSync(new URL("../../docs/merchants.md", import.meta.url), "utf8");
      const section = doc.slice(doc.indexOf("## Receive events"));
      const [receiverCode, recoveryCode] = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
      assert.isAtMost(receiverCode!.trim().split("\n").length, 14, "about 10 lines");
      const api = h.service.app.listen(0);
      const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const clientPath = JSON.stringify(new URL("../../client/src/index.ts", import.meta.url).pathname);
      // Only what a merchant fills in changes: the service's URL, the port, and where the client package is.
      const source = receiverCode!
        .replace('"@stablecoin-payments/client"', clientPath)
        .replace('"http://127.0.0.1:8787"', JSON.stringify(apiUrl))
        .replace("createServer(", "export const server = createServer(")
        .replace(".listen(8443);", ".listen(0);");
      const file = join(dirname(fileURLToPath(import.meta.url)), `.merchants-receiver-${process.pid}-${store}.ts`);
      writeFileSync(file, source);
      let server: Server;
      try {
        server = ((await import(pathToFileURL(file).href)) as { server: Server }).server;
      } finally {
        unlinkSync(file);
      }
      try {
        await new Promise((resolve) => (server.listening ? resolve(null) : server.once("listening", resolve)));
        const printed = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        const { created } = await paid();
        await h.chain.mine(2);
        h.clock.ms = Date.now(); // the printed receiver checks the timestamp against the real clock
        await drain();
        const delivery = receiver.received[0]!;
        const replay = (headers: Record<string, unknown>, body: string) =>
          fetch(printed, { method: "POST", headers: headers as Record<string, string>, body }).then((r) => r.status);
        const signed = Object.fromEntries(Object.entries(delivery.headers).filter(([k]) => k.startsWith("webhook-") || k.startsWith("svc-")));
        assert.equal(await replay(signed, delivery.raw), 200, "our delivery is accepted");
        assert.equal(await replay(signed, delivery.raw.replace("payment.settled", "payment.settlex")), 400, "a changed body is refused");
        assert.equal(await replay({}, delivery.raw), 400, "an unsigned POST is refused");

        // The recovery loop, as printed, with what it names around it.
        const handled: string[] = [];
        const run = new Function(
          "api",
          "verifyWebhook",
          "intent",
          "keys",
          "handle",
          `return (async () => { ${recoveryCode!.replace(/: string \| undefined/, "")} })();`,
        );
        const { PaymentServiceClient, verifyWebhook: verify } = await import("../../client/src/index.js");
        const client = new PaymentServiceClient({ baseUrl: apiUrl });
        await run(client, verify, created.intent, (await client.webhookKeys()).keys, async (e: { id: string }) => handled.push(e.id));
        assert.deepEqual(handled, [delivery.body.id]);
      } finally {
        server!.close();
        api.close();
      }
    });

    it("a subscription created with notify_included gets subscription.charge_included, then subscription.charged; its capability reads both back", async () => {
      const created = await h.api
        .post("/v1/subscriptions")
        .send({ recipient: merchant().address, amount: "10", period: 3600, notify_url: HOOK, notify_included: true });
      assert.include(created.body, { notify_url: HOOK, notify_included: true });
      const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: created.body.setup_token });
      const signature = await buyer().signTypedData(walletTypedData(resolved.body, buyer().address) as never);
      const finalized = (await h.api.post("/v1/subscriptions/finalize").send({ setup_token: created.body.setup_token, payer: buyer().address, signature }))
        .body;
      await approveThroughSession(h, buyer(), finalized.subscription);
      const charged = await h.api.post("/v1/charges").send({ subscription: finalized.subscription });
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["subscription.charge_included"],
      );
      assert.include(receiver.received[0]!.body.data as Record<string, unknown>, {
        subscription_id: finalized.subscription_id,
        period_index: 0,
        tx_hash: charged.body.tx_hash,
      });
      await h.chain.mine(2);
      await drain();
      assert.deepEqual(
        receiver.received.map((r) => r.body.type),
        ["subscription.charge_included", "subscription.charged"],
      );
      const readBack = await h.api.post("/v1/events").send({ subscription: finalized.subscription });
      assert.deepEqual(
        readBack.body.events.map((e: { id: string }) => e.id),
        receiver.received.map((r) => r.body.id),
      );
    });
  });
}

describe("inclusion hints on a Base-like node (200 ms blocks, 50 ms round trips)", function () {
  this.timeout(120_000);
  const receiver = new Receiver();
  const h = useService({}, { chain: { sameSecondBlocks: true } });
  let node: BaseNode | null = null;
  let service: Service | null = null;
  before(() => receiver.start());
  after(() => receiver.stop());
  afterEach(async () => {
    service?.webhooks.stop();
    await service?.close();
    await node?.close();
    service = null;
    node = null;
    assert.deepEqual(receiver.mismatches.splice(0), []);
  });

  it("payment.included arrives before payment.settled, both signed with the published key", async () => {
    node = await startBaseNode(h.chain);
    service = await createService(configFor(node.url, { WEBHOOKS_ALLOW_LOOPBACK: "true", FOLLOW_INTERVAL_MS: "100", DELIVERY_INTERVAL_MS: "100" }), {
      logger: createLogger("silent"),
      database: h.database,
      now: h.clock.now,
      webhookTransport: { resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port },
    });
    const api = supertest(service.app);
    const created = await api.post("/v1/payments").send({
      recipient: h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address,
      amount: "2",
      notify_url: HOOK,
      notify_included: true,
    });
    assert.equal(created.body.notify_included, true);
    // As listen runs them: the follower's rounds drive the watcher, the delivery worker sends.
    service.webhooks.start();
    const failures: string[] = [];
    await service.follower.start(service.config.follow.intervalMs, (where, error) => failures.push(`${where}: ${(error as Error).message}`));
    const receipt = await payIntent(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser]!, created.body.pay);
    const deadline = Date.now() + 60_000;
    while (!receiver.received.some((r) => r.body.type === "payment.settled")) {
      assert.isBelow(Date.now(), deadline, `settled within a minute; rounds failed: ${failures.join("; ")}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(
      receiver.received.map((r) => r.body.type),
      ["payment.included", "payment.settled"],
    );
    for (const r of receiver.received) assert.equal((r.body.data as { tx_hash: string }).tx_hash, receipt.transactionHash);
    const keys = (await api.get("/v1/webhooks/keys")).body.keys;
    for (const r of receiver.received) await verifyWebhook(r.headers, r.raw, keys, { now: Math.floor(h.clock.now() / 1000) });
  });
});
