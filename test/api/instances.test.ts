import { assert } from "chai";
import supertest from "supertest";
import { createService, type Service } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { configFor, useService } from "../helpers/service.js";
import { startTestPostgres } from "../helpers/postgres.js";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { resetStore } from "../helpers/service.js";
import { manySubscriptions } from "../helpers/recurring.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";

/**
 * Several instances on one PostgreSQL (DATABASE_URL): each opens its own pool, as separate processes
 * would, on a throwaway cluster.
 */
describe("several instances on one PostgreSQL", function () {
  this.timeout(120_000);
  const h = useService();
  let postgres: { url: string; stop(): void };
  const instances: Service[] = [];
  const receiver = new Receiver();
  before(async () => {
    postgres = await startTestPostgres();
    await receiver.start();
  });
  after(async () => {
    await receiver.stop();
    postgres?.stop();
  });
  afterEach(async () => {
    for (const s of instances.splice(0)) await s.close();
  });
  const webhookTransport = () => ({ resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port });
  const instance = async (env: Record<string, string> = {}) => {
    const s = await createService(configFor(h.proxy.url, { DATABASE_URL: postgres.url, WEBHOOKS_ALLOW_LOOPBACK: "true", ...env }), {
      now: h.clock.now,
      logger: createLogger("silent"),
      webhookTransport: webhookTransport(),
    });
    instances.push(s);
    return s;
  };
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;

  it("share one rate limit per client IP and endpoint: the ceiling holds across instances, and resets with the window", async () => {
    const env = { RATE_LIMIT_PER_MINUTE: "6", TRUST_PROXY: "1" };
    const [a, b] = [await instance(env), await instance(env)];
    await a.database.query("DELETE FROM rate_windows");
    const create = (s: Service, ip: string) => supertest(s.app).post("/v1/payments").set("X-Forwarded-For", ip).send({ recipient: merchant(), amount: "1" });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 ? a : b, "198.51.100.7")));
    assert.equal(answers.filter((r) => r.status === 200).length, 6, "six in total, not six per instance");
    const limited = answers.find((r) => r.status === 429)!;
    assert.deepEqual(limited.body, { error: "RATE_LIMITED", action: "RETRY", retry_after: 60 });
    assert.equal(limited.headers["retry-after"], "60");
    assert.equal((await create(a, "198.51.100.8")).status, 200, "another IP has its own window");
    h.clock.advance(60);
    assert.equal((await create(b, "198.51.100.7")).status, 200, "a new window");
  });

  it("without DATABASE_URL each instance counts its own traffic", async () => {
    const env = { RATE_LIMIT_PER_MINUTE: "2", TRUST_PROXY: "1" };
    const [a, b] = [await h.another(env), await h.another(env)];
    const create = (s: Service) => supertest(s.app).post("/v1/payments").set("X-Forwarded-For", "198.51.100.9").send({ recipient: merchant(), amount: "1" });
    const statuses = [];
    for (const s of [a, a, a, b, b, b]) statuses.push((await create(s)).status);
    assert.deepEqual(statuses, [200, 200, 429, 200, 200, 429]);
  });

  it("charge under load with one relayer key: no lost or doubled charge, webhook or nonce", async () => {
    // A generous RPC timeout: a timed-out broadcast is (rightly) RELAYER_ERROR, and this machine is shared.
    const [a, b] = [await instance({ RPC_TIMEOUT_MS: "15000" }), await instance({ RPC_TIMEOUT_MS: "15000" })];
    await resetStore(a.database);
    const count = 16;
    const hook = `https://${RECEIVER_HOST}/subscriptions`;
    const subs = await manySubscriptions(h, supertest.agent(a.app), count, { notify_url: hook });
    const relayer = h.chain.accounts[LOCAL_ROLES.relayer]!.address;
    const nonce = await h.chain.publicClient.getTransactionCount({ address: relayer });
    // Every subscription charged by both instances at once. Each transaction mines a block, so the
    // earliest may already be settled (ALREADY_CHARGED) before the last are answered.
    const answers = await Promise.all(subs.flatMap((s) => [a, b].map((i) => supertest(i.app).post("/v1/charges").send({ subscription: s.subscription }))));
    for (const r of answers) assert.oneOf(r.body.status, ["CONFIRMING", "ALREADY_CHARGED"], JSON.stringify(r.body));
    for (let i = 0; i < count; i++) assert.equal(answers[2 * i]!.body.tx_hash, answers[2 * i + 1]!.body.tx_hash, "both instances follow the same transaction");
    // Charges ready together in one instance share a chargeBatch transaction; a period claimed by the
    // other instance first is left out of this one's.
    const transactions = new Set(answers.map((r) => r.body.tx_hash)).size;
    assert.isAtMost(transactions, count);
    // A transaction refused for a nonce gap (the other instance's lower nonce not yet sent) is answered
    // CONFIRMING while it waits in its outbox; it reaches the chain a broadcast round later.
    const deadline = Date.now() + 15_000;
    while ((await h.chain.publicClient.getTransactionCount({ address: relayer })) < nonce + transactions && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonce + transactions, "no nonce lost or used twice");
    const nonces = (await a.database.query<{ nonce: string | number }>("SELECT DISTINCT nonce FROM charge_attempts ORDER BY nonce")).map((r) =>
      Number(r.nonce),
    );
    assert.deepEqual(
      nonces,
      Array.from({ length: transactions }, (_, i) => nonce + i),
    );
    assert.lengthOf(await a.database.query("SELECT 1 FROM charge_attempts"), count, "one record per period");

    await h.chain.mine(2);
    const settled = await Promise.all(
      subs.map((s, i) =>
        supertest((i % 2 ? a : b).app)
          .post("/v1/charges")
          .send({ subscription: s.subscription }),
      ),
    );
    for (const [i, r] of settled.entries()) {
      assert.oneOf(r.body.status, ["CHARGED", "ALREADY_CHARGED"], JSON.stringify(r.body));
      assert.equal(r.body.tx_hash, answers[2 * i]!.body.tx_hash);
      assert.isAtMost([answers[2 * i]!, answers[2 * i + 1]!, r].filter((x) => x.body.status === "CHARGED").length, 1, "CHARGED answered once");
    }
    for (const s of subs) {
      const [, paidCount] = await h.chain.publicClient.readContract({
        address: h.chain.deployment.contracts.RecurringCharges.address,
        abi: recurringChargesAbi,
        functionName: "subscriptions",
        args: [s.id],
      });
      assert.equal(paidCount, 1, "charged once");
      assert.equal((await new ChargeAttempts(a.database).find(s.id, 0n))!.status, "reported");
    }

    receiver.received.length = 0;
    await Promise.all([a.webhooks.watcher.tick(), b.webhooks.watcher.tick()]);
    await Promise.all([a.webhooks.delivery.runDue(), b.webhooks.delivery.runDue()]);
    const charged = receiver.received.filter((r) => r.headers["svc-event-type"] === "subscription.charged");
    assert.equal(charged.length, count, "one webhook per charge");
    assert.equal(new Set(charged.map((r) => r.headers["svc-event-id"])).size, count, "none twice");
    assert.sameMembers(
      charged.map((r) => (r.body.data as { subscription_id: string }).subscription_id),
      subs.map((s) => s.id),
    );
  });
});
