import { assert } from "chai";
import supertest from "supertest";
import { erc20Abi, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import type { PayBlock } from "./payments.js";
import type { ServiceHarness } from "./service.js";

/** A new payment of `amount` to `recipient` on `s`, paid by a plain transfer from the buyer to its payment address (mined). */
export async function transferPayment(h: ServiceHarness, s: Service, recipient: Address, amount = "2") {
  const res = await supertest(s.app).post("/v1/payments").send({ recipient, amount });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { intent, pay } = res.body as { intent: string; pay: Required<PayBlock> };
  const buyer = h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const hash = await h.chain.wallet(buyer).writeContract({
    account: buyer,
    chain: h.chain.chain,
    address: pay.token,
    abi: erc20Abi,
    functionName: "transfer",
    args: [pay.deposit_address, BigInt(pay.amount_units)],
  });
  await h.chain.publicClient.waitForTransactionReceipt({ hash });
  return { intent, pay };
}

/** The settlement `s` sent for the payment address (asserted sent: `what` names when), its nonce and its receipt. */
export async function sentSettlement(h: ServiceHarness, s: Service, depositAddress: Address, what: string) {
  const [watch] = await s.database.query<{ tx_hash: Hex | null; nonce: string | null }>(
    "SELECT tx_hash, nonce FROM deposit_watches WHERE deposit_address = $1",
    [depositAddress.toLowerCase()],
  );
  assert.isNotNull(watch?.tx_hash ?? null, what);
  const receipt = await h.chain.publicClient.waitForTransactionReceipt({ hash: watch!.tx_hash!, timeout: 10_000 });
  return { settlement: watch!.tx_hash!, nonce: watch!.nonce, receipt };
}

/**
 * A new payment of `amount` to `recipient` on `s`, paid by a plain transfer from the buyer to its
 * payment address, and the follower's rounds after it: the settlement the service sent (asserted
 * sent), its nonce and its receipt.
 */
export async function depositSettlement(h: ServiceHarness, s: Service, recipient: Address, amount = "2") {
  const { intent, pay } = await transferPayment(h, s, recipient, amount);
  await s.follower.round();
  h.clock.advance(3);
  await s.follower.round(); // the round that reads the transfer's block sends the settlement
  return { intent, ...(await sentSettlement(h, s, pay.deposit_address, "the settlement sent in the rounds after the transfer")) };
}
