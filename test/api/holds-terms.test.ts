import { assert } from "chai";
import supertest from "supertest";
import { getAddress, toHex, type Hex } from "viem";
import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import { TOKEN_KINDS } from "../../src/tokens/capability.js";
import { LOCAL_RELAYER_KEY, useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";

/** A local account's private key, by its index in the test mnemonic. */
const keyOf = (index: number): Hex => toHex(localAccount(index).getHdKey().privateKey!);

/**
 * A hold's terms travel with it (DESIGN v8, "Holds' reads and terms"): its capability carries the
 * operator, fee and fee receiver it was made with, so a relayer key rotation leaves open holds
 * capturable by the key they name (RELAYER_RETIRED_KEYS), and a capability made before the terms
 * travelled keeps working on the service's own.
 */
describe("holds: terms travel with the hold", function () {
  this.timeout(120_000);
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const nowSeconds = () => Math.floor(h.clock.now() / 1000);

  async function post(service: Service, path: string, body: object, status = 200) {
    const res = await supertest(service.app).post(path).send(body);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  const create = (service: Service) =>
    post(service, "/v1/holds", { recipient: merchant().address, amount: "10.00", capture_before: nowSeconds() + 3600, refund_before: nowSeconds() + 86_400 });
  async function authorize(service: Service, checkoutToken: string) {
    const resolved = await post(service, "/v1/holds/resolve", { hold: checkoutToken, payer: buyer().address });
    return post(service, "/v1/holds/authorize", { hold: checkoutToken, payer: buyer().address, signature: signWithMetaMask(buyer(), resolved.typed_data) });
  }
  async function settle(sent: { tx_hash: Hex }, service: Service) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash });
    await h.chain.mine(3);
    await service.holdOperator!.follow();
  }

  it("a hold opened before a relayer key rotation is captured and voided after it by the retired key it names; new holds name the new key", async () => {
    const before = h.service.holdOperator!.operator!;
    const created = await create(h.service);
    assert.equal(created.operator, before);
    await settle(await authorize(h.service, created.checkout_token), h.service);

    const newKey = keyOf(LOCAL_ROLES.firstUser + 6);
    const rotated = await h.another({ RELAYER_PRIVATE_KEY: newKey, RELAYER_RETIRED_KEYS: ` ${LOCAL_RELAYER_KEY} ` });
    const after = rotated.holdOperator!.operator!;
    assert.notEqual(after, before);
    assert.equal((await create(rotated)).operator, after, "a new hold names the new key");
    assert.equal((await post(rotated, "/v1/holds/state", { hold: created.hold })).operator, before, "the open hold still names the key it was made with");

    const captured = await post(rotated, "/v1/holds/capture", { hold: created.hold, amount: "4.00" });
    const tx = await h.chain.publicClient.getTransaction({ hash: captured.tx_hash });
    assert.equal(getAddress(tx.from), before, "sent by the retired key the hold names");
    await settle(captured, rotated);
    await settle(await post(rotated, "/v1/holds/void", { hold: created.hold }), rotated);
    assert.deepInclude(await post(rotated, "/v1/holds/state", { hold: created.hold }), { state: "VOIDED", captured_units: "4000000", voided_units: "6000000" });

    // Without the retired key, the open hold is not this instance's to operate.
    const forgetful = await h.another({ RELAYER_PRIVATE_KEY: newKey });
    const other = await create(h.service);
    await settle(await authorize(h.service, other.checkout_token), h.service);
    assert.equal((await post(forgetful, "/v1/holds/capture", { hold: other.hold, amount: "1.00" }, 400)).error, "INVALID_HOLD");
  });

  it("a retired key authorizes nothing: a buyer's authorization of a hold naming it is refused, nothing sent", async () => {
    const created = await create(h.service);
    const rotated = await h.another({ RELAYER_PRIVATE_KEY: keyOf(LOCAL_ROLES.firstUser + 6), RELAYER_RETIRED_KEYS: LOCAL_RELAYER_KEY });
    const resolved = await post(h.service, "/v1/holds/resolve", { hold: created.checkout_token, payer: buyer().address });
    const signature = signWithMetaMask(buyer(), resolved.typed_data);
    const nonce = await h.chain.publicClient.getTransactionCount({ address: created.operator });
    const refused = await post(rotated, "/v1/holds/authorize", { hold: created.checkout_token, payer: buyer().address, signature }, 400);
    assert.equal(refused.error, "INVALID_HOLD");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: created.operator }), nonce, "nothing was sent");
  });

  it("a capability made before terms travelled (no operator, fee or fee receiver in it) authorizes, captures and reads on the service's own", async () => {
    const now = nowSeconds();
    const payload = {
      r: merchant().address,
      a: "10000000",
      pe: now + 3600,
      ae: now + 7200,
      re: now + 86_400,
      s: toHex(7n, { size: 32 }),
      b: (await h.chain.publicClient.getBlockNumber()).toString(),
    };
    const hold = h.service.tokens.mint(TOKEN_KINDS.hold, payload);
    const checkout = h.service.tokens.mint(TOKEN_KINDS.holdCheckout, payload);
    const state = await post(h.service, "/v1/holds/state", { hold });
    assert.deepInclude(state, {
      state: "AWAITING_AUTHORIZATION",
      operator: h.service.holdOperator!.operator!,
      fee_bps: h.service.deployment.parameters.feeBps,
    });
    await settle(await authorize(h.service, checkout), h.service);
    await settle(await post(h.service, "/v1/holds/capture", { hold, amount: "3.00" }), h.service);
    assert.deepInclude(await post(h.service, "/v1/holds/state", { hold }), { state: "AUTHORIZED", captured_units: "3000000", capturable_units: "7000000" });
  });
});
