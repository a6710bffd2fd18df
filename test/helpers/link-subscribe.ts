import { assert } from "chai";
import type supertest from "supertest";
import type { Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import type { ServiceHarness } from "./service.js";
import { walletTypedData, type ResolvedTerms } from "./recurring.js";
import { approve } from "./tx.js";

/** The payer allows RecurringCharges to take `units` (a billion by default), as the checkout does before it posts. */
export const allowCharges = (h: ServiceHarness, payer: HDAccount, units = 10n ** 9n) =>
  approve(h.chain, payer, h.chain.deployment.token.address, h.chain.deployment.contracts.RecurringCharges.address, units);

/**
 * A visitor of a subscription link: resolves the link token to fresh terms, signs them, and posts
 * payer + signature to POST /v1/links/subscribe as the checkout does. With `settle`, while the answer
 * is PENDING (the service's first charge confirming), mines the blocks that settle it and posts
 * again, as the checkout asks again.
 */
export async function visitLink(
  h: ServiceHarness,
  link: string,
  payer: HDAccount,
  options: { settle?: boolean; api?: supertest.Agent | ReturnType<typeof supertest> } = {},
) {
  const api = options.api ?? h.api;
  const resolved = await api.post("/v1/subscriptions/resolve").send({ setup_token: link });
  assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
  const signature = await payer.signTypedData(walletTypedData(resolved.body as ResolvedTerms, payer.address) as never);
  const post = () => api.post("/v1/links/subscribe").send({ setup_token: resolved.body.setup_token, payer: payer.address, signature });
  let subscribed = await post();
  // The chain a moment behind the terms' start: NOT_DUE keeps nothing, and the checkout asks again after a second.
  for (let tries = 0; subscribed.status === 409 && subscribed.body.error === "NOT_DUE" && subscribed.body.retry_after <= 5 && tries < 5; tries++) {
    await h.chain.advanceTime(1);
    await h.chain.mine(1);
    subscribed = await post();
  }
  for (let tries = 0; options.settle !== false && subscribed.status === 200 && subscribed.body.state === "PENDING" && tries < 5; tries++) {
    // Blocks share a whole-second timestamp: a second on, so terms that start this second are due.
    if (tries > 0) await h.chain.advanceTime(1);
    await h.chain.mine(2);
    subscribed = await post();
  }
  return { resolved: resolved.body as ResolvedTerms & { setup_token: string }, signature, subscribed, post };
}

/** A subscriber kept and settled (ACTIVE); its subscription id. */
export async function subscribeThroughLink(h: ServiceHarness, link: string, payer: HDAccount): Promise<Hex> {
  const { subscribed } = await visitLink(h, link, payer);
  assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
  assert.equal(subscribed.body.state, "ACTIVE", JSON.stringify(subscribed.body));
  return subscribed.body.subscription_id as Hex;
}
