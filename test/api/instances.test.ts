import { assert } from "chai";
import supertest from "supertest";
import { createService, type Service } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { LOCAL_ROLES } from "../../src/localchain/harness.js";
import { configFor, useService } from "../helpers/service.js";
import { startTestPostgres } from "../helpers/postgres.js";

/**
 * Several instances on one PostgreSQL (DATABASE_URL): each opens its own pool, as separate processes
 * would, on a throwaway cluster.
 */
describe("several instances on one PostgreSQL", function () {
  this.timeout(120_000);
  const h = useService();
  let postgres: { url: string; stop(): void };
  const instances: Service[] = [];
  before(async () => {
    postgres = await startTestPostgres();
  });
  after(() => postgres?.stop());
  afterEach(async () => {
    for (const s of instances.splice(0)) await s.close();
  });
  const instance = async (env: Record<string, string> = {}) => {
    const s = await createService(configFor(h.proxy.url, { DATABASE_URL: postgres.url, ...env }), { now: h.clock.now, logger: createLogger("silent") });
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
});
