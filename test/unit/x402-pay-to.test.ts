import { assert } from "chai";
import { acceptedPayTo, x402PaymentAddresses, type PaymentCreator } from "../../client/src/index.js";

/** A payment creator that hands out numbered addresses, and counts the payments it created. */
function fakeService(expiresAt = 2_000_000_000) {
  let created = 0;
  const api: PaymentCreator = {
    async createPayment() {
      created++;
      const address = `0x${created.toString(16).padStart(40, "0")}` as `0x${string}`;
      return {
        intent: `intent-${created}`,
        reference: `0x${created.toString(16).padStart(64, "0")}`,
        amount: "0.010000",
        expires_at: expiresAt,
        pay: { deposit_address: address },
      } as never;
    },
  };
  return { api, created: () => created };
}
const header = (payTo: string) => Buffer.from(JSON.stringify({ x402Version: 2, accepted: { payTo } })).toString("base64");
const terms = { recipient: `0x${"ab".repeat(20)}` as `0x${string}`, amount: "0.01" };

describe("x402PaymentAddresses (the merchant's payTo for x402's middleware)", () => {
  it("a fresh payment address for every unpaid request; the paid retry gets back the one it signed for", async () => {
    const { api, created } = fakeService();
    const addresses = x402PaymentAddresses(api, terms);
    const first = await addresses.payTo({});
    const second = await addresses.payTo({});
    assert.notEqual(first, second);
    assert.equal(await addresses.payTo({ paymentHeader: header(first) }), first);
    assert.equal(await addresses.payTo({ paymentHeader: header(first.toUpperCase().replace("0X", "0x")) }), first, "any hex case");
    assert.equal(created(), 2, "the retry creates nothing");
    assert.include(addresses.paymentOf(first)!, { intent: "intent-1", payTo: first });
  });

  it("never echoes an address it did not hand out: the agent's own, or a garbled header, gets a fresh one", async () => {
    const { api, created } = fakeService();
    const addresses = x402PaymentAddresses(api, terms);
    const own = `0x${"99".repeat(20)}`;
    const answered = await addresses.payTo({ paymentHeader: header(own) });
    assert.notEqual(answered.toLowerCase(), own);
    for (const garbled of ["", "not base64!", Buffer.from("{").toString("base64"), header("0x12"), "A".repeat(20_000)]) {
      assert.notEqual(await addresses.payTo({ paymentHeader: garbled }), own);
    }
    assert.equal(created(), 6);
    assert.isUndefined(acceptedPayTo(header("0x12")));
    assert.equal(acceptedPayTo(header(own)), own);
  });

  it("forgets addresses once their intent expired, and keeps at most maxRemembered", async () => {
    let now = 1_000_000_000_000;
    const { api } = fakeService(1_000_000_100);
    const addresses = x402PaymentAddresses(api, terms, { now: () => now, maxRemembered: 2 });
    const a = await addresses.payTo({});
    const b = await addresses.payTo({});
    const c = await addresses.payTo({});
    assert.isUndefined(addresses.paymentOf(a), "the oldest forgotten past the bound");
    assert.isDefined(addresses.paymentOf(b));
    now += 101_000;
    await addresses.payTo({});
    assert.isUndefined(addresses.paymentOf(b), "expired");
    assert.isUndefined(addresses.paymentOf(c), "expired");
  });
});
