import { assert } from "chai";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { LinkSubscribersResponse } from "../../src/wire/index.js";
import { useService } from "../helpers/service.js";
import { allowCharges, subscribeThroughLink, visitLink } from "../helpers/link-subscribe.js";

/** POST /v1/links/subscribers: a subscription link's subscribers with state and last charge, for a browser holding the view token: no capability. */
describe("POST /v1/links/subscribers", function () {
  this.timeout(60_000);
  const h = useService();
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const payers = () => [h.chain.accounts[LOCAL_ROLES.firstUser]!, h.chain.accounts[LOCAL_ROLES.firstUser + 2]!];

  it("lists each active subscriber with its state, charges paid and last charged period, and never a capability; a pending one is not listed", async () => {
    const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50", period: 3600 })).body;
    const [p1, p2] = payers();
    await allowCharges(h, p1!);
    await allowCharges(h, p2!);
    const charged = await subscribeThroughLink(h, link.link, p1!);
    const pending = await visitLink(h, link.link, p2!, { settle: false });
    assert.equal(pending.subscribed.body.state, "PENDING", JSON.stringify(pending.subscribed.body));
    const { subscriptions } = (await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token })).body;
    const start = (await h.api.post("/v1/subscriptions/state").send({ subscription: subscriptions[0].subscription })).body.start as number;

    const res = await h.api.post("/v1/links/subscribers").send({ view_token: link.view_token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = LinkSubscribersResponse.parse(res.body);
    assert.notMatch(JSON.stringify(res.body), /"sc\.|\bsc\.k1\./, "no subscription capability in the answer");
    assert.deepEqual(
      body.subscribers.map((s) => [s.subscription_id, s.payer, s.state, s.paid_count, s.last_period, s.last_period_start, s.amount]),
      [[charged, p1!.address, "ACTIVE", 1, 0, start, "2.500000"]],
    );
    assert.isNull(body.next);
    const bad = await h.api.post("/v1/links/subscribers").send({ view_token: link.link });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "INVALID_LINK_TOKEN");
  });
});
