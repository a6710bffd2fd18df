import { assert } from "chai";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { LinkSubscribersResponse } from "../../src/wire/index.js";
import { useService } from "../helpers/service.js";
import { walletTypedData, type ResolvedTerms } from "../helpers/recurring.js";
import { approve } from "../helpers/tx.js";

/** POST /v1/links/subscribers: a subscription link's subscribers with state and last charge, for a browser: no capability. */
describe("POST /v1/links/subscribers", function () {
  this.timeout(60_000);
  const h = useService();
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const payers = () => [h.chain.accounts[LOCAL_ROLES.firstUser]!, h.chain.accounts[LOCAL_ROLES.firstUser + 2]!];

  async function subscribe(link: string, payer: HDAccount): Promise<Hex> {
    await approve(h.chain, payer, h.chain.deployment.token.address, h.chain.deployment.contracts.RecurringCharges.address, 10n ** 9n);
    const resolved = await h.api.post("/v1/subscriptions/resolve").send({ setup_token: link });
    const signature = await payer.signTypedData(walletTypedData(resolved.body as ResolvedTerms, payer.address) as never);
    const subscribed = await h.api.post("/v1/links/subscribe").send({ setup_token: resolved.body.setup_token, payer: payer.address, signature });
    assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
    return subscribed.body.subscription_id;
  }

  it("lists each subscriber with its state, charges paid and last charged period, and never a capability", async () => {
    const link = (await h.api.post("/v1/links").send({ recipient: merchant().address, amount: "2.50", period: 3600 })).body;
    const [p1, p2] = payers();
    const charged = await subscribe(link.link, p1!);
    const pending = await subscribe(link.link, p2!);
    const { subscriptions } = (await h.api.post("/v1/links/subscriptions").send({ manage_token: link.manage_token })).body;
    assert.equal((await h.api.post("/v1/charges").send({ subscription: subscriptions[0].subscription })).body.status, "CONFIRMING");
    await h.chain.mine(2);
    const start = (await h.api.post("/v1/subscriptions/state").send({ subscription: subscriptions[0].subscription })).body.start as number;

    const res = await h.api.post("/v1/links/subscribers").send({ manage_token: link.manage_token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = LinkSubscribersResponse.parse(res.body);
    assert.notMatch(JSON.stringify(res.body), /"sc\.|\bsc\.k1\./, "no subscription capability in the answer");
    assert.deepEqual(
      body.subscribers.map((s) => [s.subscription_id, s.payer, s.state, s.paid_count, s.last_period, s.last_period_start, s.amount]),
      [
        [charged, p1!.address, "ACTIVE", 1, 0, start, "2.500000"],
        [pending, p2!.address, "PENDING", 0, null, null, "2.500000"],
      ],
    );
    assert.isNull(body.next);
    const bad = await h.api.post("/v1/links/subscribers").send({ manage_token: link.link });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "INVALID_LINK_TOKEN");
  });
});
