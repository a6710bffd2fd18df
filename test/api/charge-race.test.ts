import { assert } from "chai";
import supertest from "supertest";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { createLogger } from "../../src/logger.js";
import { createService, type Service } from "../../src/service.js";
import { configFor, useService } from "../helpers/service.js";
import { RpcProxy } from "../helpers/rpc-proxy.js";
import { approveThroughSession, subscribe } from "../helpers/recurring.js";

/**
 * Two API instances on one PostgreSQL charging the same subscription period. Whatever the
 * interleaving, no caller hears ALREADY_CHARGED, CHARGED or ok:true before the charge's block is at
 * or below the finality head (2 confirmations here): until then it is CONFIRMING / WAIT, with the
 * transaction's hash.
 */
describe("two instances racing one charge (PostgreSQL)", function () {
  this.timeout(120_000);
  const h = useService({}, { store: "postgres" });
  const payer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  let slowProxy: RpcProxy;
  let second: Service;

  beforeEach(async () => {
    slowProxy = await new RpcProxy(h.chain.rpcUrl!).start();
    second = await createService(configFor(slowProxy.url), { now: h.clock.now, logger: createLogger("silent"), database: h.database });
  });
  afterEach(async () => {
    await second.close();
    await slowProxy.close();
  });

  async function ready() {
    const s = await subscribe(h, payer(), { recipient: merchant().address });
    await approveThroughSession(h, payer(), s.subscription);
    return s;
  }

  /** Holds the second instance's first call of `method` until `release` is called. */
  function holdFirst(method: string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    let held = false;
    slowProxy.gate = async (methods) => {
      if (held || !methods.includes(method)) return;
      held = true;
      reached();
      await released;
    };
    return { arrived, release };
  }

  function assertUnsettled(body: Record<string, unknown>, txHash: string, who: string) {
    assert.include(body, { status: "CONFIRMING", ok: false, already_paid: false, action: "WAIT", tx_hash: txHash }, `${who}: ${JSON.stringify(body)}`);
  }

  it("the chain read of chargedBlock: the other instance's charge landed after our store lookup → CONFIRMING, not ALREADY_CHARGED", async () => {
    const s = await ready();
    // The second instance looks in the store (nothing yet), then its next chain read waits…
    const gate = holdFirst("eth_call");
    const late = supertest(second.app).post("/v1/charges").send({ subscription: s.subscription });
    const lateDone = late.then((r) => r);
    await gate.arrived;
    // …while the first instance charges (mined, 0 confirmations).
    const first = await h.api.post("/v1/charges").send({ subscription: s.subscription });
    assert.equal(first.body.status, "CONFIRMING");
    gate.release();
    assertUnsettled((await lateDone).body, first.body.tx_hash, "second instance");
    await h.chain.mine(2);
    const settled = await supertest(second.app).post("/v1/charges").send({ subscription: s.subscription });
    assert.include(settled.body, { ok: true, action: "SUCCESS", tx_hash: first.body.tx_hash });
  });

  it("the simulation's PeriodAlreadyCharged: the other instance's charge landed between our read and our simulation → CONFIRMING", async () => {
    const s = await ready();
    const gate = holdFirst("eth_estimateGas");
    const lateDone = supertest(second.app)
      .post("/v1/charges")
      .send({ subscription: s.subscription })
      .then((r) => r);
    await gate.arrived;
    const first = await h.api.post("/v1/charges").send({ subscription: s.subscription });
    assert.equal(first.body.status, "CONFIRMING");
    gate.release();
    assertUnsettled((await lateDone).body, first.body.tx_hash, "second instance");
    await h.chain.mine(1);
    assertUnsettled((await supertest(second.app).post("/v1/charges").send({ subscription: s.subscription })).body, first.body.tx_hash, "one confirmation");
    await h.chain.mine(1);
    assert.include((await supertest(second.app).post("/v1/charges").send({ subscription: s.subscription })).body, { ok: true, tx_hash: first.body.tx_hash });
  });

  it("the recorded attempt, and both at once: never ok before settlement, one transaction, then CHARGED once and ALREADY_CHARGED", async () => {
    const s = await ready();
    const calls = [h.api, supertest(second.app), h.api, supertest(second.app)].map((api) =>
      api
        .post("/v1/charges")
        .send({ subscription: s.subscription })
        .then((r) => r),
    );
    const answers = await Promise.all(calls);
    const hashes = new Set<string>();
    for (const a of answers) {
      assert.notEqual(a.body.ok, true, JSON.stringify(a.body));
      if (a.status === 200) {
        assert.equal(a.body.status, "CONFIRMING", JSON.stringify(a.body));
        hashes.add(a.body.tx_hash);
      } else {
        assert.deepEqual(a.body, { error: "CONCURRENCY_LIMIT", action: "RETRY", retry_after: 2 });
      }
    }
    assert.equal(hashes.size, 1, "one transaction");
    const [txHash] = [...hashes];
    assertUnsettled(
      (await supertest(second.app).post("/v1/charges").send({ subscription: s.subscription })).body,
      txHash!,
      "recorded attempt, 0 confirmations",
    );
    await h.chain.mine(2);
    const statuses = [];
    for (const api of [supertest(second.app), h.api, supertest(second.app)])
      statuses.push((await api.post("/v1/charges").send({ subscription: s.subscription })).body.status);
    assert.deepEqual(statuses, ["CHARGED", "ALREADY_CHARGED", "ALREADY_CHARGED"]);
  });
});
