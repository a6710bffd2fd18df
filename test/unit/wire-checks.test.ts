import { assert } from "chai";
import express from "express";
import supertest from "supertest";
import { z } from "zod";
import { DomainError } from "../../src/errors.js";
import { errorHandler } from "../../src/http/errors.js";
import { handlerFor, route } from "../../src/http/route.js";
import { createLogger } from "../../src/logger.js";
import { ChargeResponse } from "../../src/wire/index.js";

/** An app with one route whose domain answers `answer`, every answer checked. */
function appAnswering(answer: unknown, problems: string[]) {
  const app = express();
  app.use(express.json());
  const spec = route({
    path: "/v1/x",
    summary: "test",
    schema: z.strictObject({}),
    response: ChargeResponse,
    errors: [],
    handle: () => answer as never,
  });
  app.post(
    spec.path,
    handlerFor(spec, (p) => problems.push(p)),
  );
  app.post("/v1/fail", () => {
    throw new DomainError("NOT_DUE");
  });
  app.use(errorHandler(createLogger("silent"), (p) => problems.push(p)));
  return app;
}

describe("answers are checked against their wire schemas (what the test harness turns on)", () => {
  const good = {
    status: "CHARGED",
    ok: true,
    already_paid: false,
    action: "SUCCESS",
    subscription_id: `0x${"ab".repeat(32)}`,
    period_index: 0,
    period_start: 1,
    period_end: 2,
    next_period_at: 2,
  };

  it("a matching answer reports nothing", async () => {
    const problems: string[] = [];
    await supertest(appAnswering(good, problems)).post("/v1/x").send({}).expect(200);
    assert.deepEqual(problems, []);
  });

  it("an answer off its schema is reported with the path and the field (an extra field, a number for a string)", async () => {
    const problems: string[] = [];
    await supertest(appAnswering({ ...good, extra: 1 }, problems))
      .post("/v1/x")
      .send({});
    await supertest(appAnswering({ ...good, subscription_id: "0xAB" }, problems))
      .post("/v1/x")
      .send({});
    assert.lengthOf(problems, 2);
    assert.match(problems[0]!, /POST \/v1\/x/);
    assert.match(problems[1]!, /subscription_id/);
  });

  it("error bodies are checked too, and an error's status comes from the one table", async () => {
    const problems: string[] = [];
    const res = await supertest(appAnswering(good, problems)).post("/v1/fail").send({});
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { error: "NOT_DUE", action: "RETRY", retry_after: 60 });
    assert.deepEqual(problems, []);
  });
});
