import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { assert } from "chai";
import supertest from "supertest";
import { erc20Abi, toHex, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { testSmartAccountAbi } from "../../src/generated/contracts.js";
import type { Service } from "../../src/service.js";
import { chargeCompletion, clientPayload, type SpecParty } from "../helpers/auth-capture-spec.js";
import { deployTestContract } from "../helpers/deploy.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";
import { send } from "../helpers/tx.js";
import { authCaptureRequirements, eoaSigner, X402_NETWORK } from "../helpers/x402-parties.js";

/** Issue 60: the relayer pays only for work that earns, within a budget the operator sets. */
describe("the relayer's budget and gas ceilings", function () {
  this.timeout(180_000);
  // A payer's and a recipient's hourly budget of one wei: the first fee-free authorization of each passes, the next is refused.
  // RPC_TIMEOUT_MS: the gas-burning account's simulation runs its loop up to the ceiling on the
  // in-process chain, which traces every step; on a loaded machine that passed the tests' 1 s.
  const h = useService({ TRUST_PROXY: "1", RELAYER_BUDGET_WEI_PER_PAYER_HOUR: "1", RELAYER_BUDGET_WEI_PER_RECIPIENT_HOUR: "1", RPC_TIMEOUT_MS: "5000" });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const attacker = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const owner = () => h.chain.accounts[LOCAL_ROLES.firstUser + 3]!;
  const nowSeconds = () => Math.floor(h.clock.now() / 1000);
  const relayerNonce = () => h.chain.publicClient.getTransactionCount({ address: h.service.holdOperator!.operator!, blockTag: "pending" });

  async function post(path: string, body: object, status = 200, ip = "203.0.113.1", s: Service = h.service) {
    const res = await supertest(s.app).post(path).set("X-Forwarded-For", ip).send(body);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    return res;
  }
  const create = (recipient: string, s: Service = h.service) =>
    post("/v1/holds", { recipient, amount: "1.00", capture_before: nowSeconds() + 3600, refund_before: nowSeconds() + 86_400 }, 200, "203.0.113.1", s).then(
      (r) => r.body,
    );
  async function authorize(checkout: string, payer = buyer(), status = 200, ip = "203.0.113.1", s: Service = h.service) {
    const resolved = (await post("/v1/holds/resolve", { hold: checkout, payer: payer.address }, 200, ip, s)).body;
    return post("/v1/holds/authorize", { hold: checkout, payer: payer.address, signature: signWithMetaMask(payer, resolved.typed_data) }, status, ip, s);
  }
  async function settle(txHash: Hex, s: Service = h.service) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash: txHash });
    await h.chain.mine(3);
    await s.holdOperator!.follow();
  }
  const metricOf = async (s: Service, name: string, operation: string) => {
    const text = (await supertest(s.opsApp).get("/metrics")).text;
    return Number(new RegExp(`^${name}\\{operation="${operation}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
  };

  /**
   * An x402 auth-capture authorize (EVM binding v1.1) of a hold's exact terms, signed by `payer` from the
   * hold's resolve answer: an escrow route with no receiver authorizer, so collect-only ("deferred"),
   * whose salt is free (no saltNonce) and so may be the hold's own.
   */
  async function x402Hold(checkout: string, payer: ReturnType<typeof buyer>) {
    const resolved = (await post("/v1/holds/resolve", { hold: checkout, payer: payer.address })).body;
    const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
    const m = resolved.typed_data.message;
    const paymentRequirements = {
      scheme: "auth-capture",
      network: X402_NETWORK,
      amount: resolved.amount_units,
      asset: h.service.deployment.token.address,
      payTo: resolved.recipient,
      maxTimeoutSeconds: 300,
      extra: {
        ...kind.extra,
        paymentFlow: "escrow",
        captureMode: "deferred",
        captureDeadline: resolved.capture_before,
        refundDeadline: resolved.refund_before,
      },
    };
    const payload = {
      authorization: { from: m.from, to: m.to, value: m.value, validAfter: m.validAfter, validBefore: m.validBefore, nonce: m.nonce },
      signature: signWithMetaMask(payer, resolved.typed_data),
      salt: toHex(BigInt(resolved.payment_info.salt), { size: 32 }),
    };
    return {
      x402Version: 2,
      paymentPayload: { x402Version: 2, resource: { url: "http://merchant.test/report" }, accepted: paymentRequirements, payload },
      paymentRequirements,
    };
  }

  it("a smart account whose signature check burns gas (and still answers valid) is refused before anything is sent", async () => {
    const account = await deployTestContract(h.chain, owner(), testSmartAccountAbi as never, "TestSmartAccount", "TestSmartAccount.sol", [owner().address]);
    await send(h.chain, buyer(), { address: h.service.deployment.token.address, abi: erc20Abi, functionName: "transfer", args: [account, 5_000_000n] });
    // About 1,700,000 gas of hashing before the account answers: the 1,852,953-gas authorize.
    await send(h.chain, owner(), { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [12_000n] });
    const hold = await create(merchant().address);
    const resolved = (await post("/v1/holds/resolve", { hold: hold.checkout_token, payer: account })).body;
    const before = await relayerNonce();
    const refused = await post(
      "/v1/holds/authorize",
      { hold: hold.checkout_token, payer: account, signature: signWithMetaMask(owner(), resolved.typed_data) },
      400,
    );
    assert.equal(refused.body.error, "SIGNATURE_VALIDATION_TOO_EXPENSIVE");
    assert.equal(await relayerNonce(), before, "the relayer sent nothing");
    // The same account, checking cheaply, is authorized: the refusal was the gas, not the signature.
    await send(h.chain, owner(), { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [0n] });
    const sent = await post("/v1/holds/authorize", { hold: hold.checkout_token, payer: account, signature: signWithMetaMask(owner(), resolved.typed_data) });
    await settle(sent.body.tx_hash);
  });

  it("create, authorize and void in a loop from many callers stops at the budget; a merchant's own hold, captured and voided, goes through; /metrics shows both", async () => {
    const before = await metricOf(h.service, "relayer_gas_spent_wei_total", "hold_void");
    // The attacker pays itself, from a new /48 each time.
    const first = await create(attacker().address);
    const authorized = await authorize(first.checkout_token, attacker(), 200, "2001:db8:1::1");
    await settle(authorized.body.tx_hash);
    await settle((await post("/v1/holds/void", { hold: first.hold }, 200, "2001:db8:1::1")).body.tx_hash);
    const nonce = await relayerNonce();
    for (const ip of ["2001:db8:2::1", "2001:db8:3::1", "198.51.100.7"]) {
      const next = await create(attacker().address);
      const refused = await authorize(next.checkout_token, attacker(), 429, ip);
      assert.equal(refused.body.error, "RELAYER_BUDGET_EXCEEDED");
      assert.isAbove(Number(refused.headers["retry-after"]), 0);
    }
    // x402's door meets the same budget, in x402's own form.
    const viaX402 = await supertest(h.service.app)
      .post("/x402/settle")
      .set("X-Forwarded-For", "2001:db8:4::1")
      .send(await x402Hold((await create(attacker().address)).checkout_token, attacker()));
    assert.equal(viaX402.status, 429, JSON.stringify(viaX402.body));
    assert.include(viaX402.body, { success: false, errorReason: "relayer_budget_exceeded" });
    assert.isAbove(Number(viaX402.headers["retry-after"]), 0);
    assert.equal(await relayerNonce(), nonce, "nothing more sent for the attacker");
    // The merchant's hold: another buyer, another recipient; authorized, captured in part, the rest voided.
    const hold = await create(merchant().address);
    await settle((await authorize(hold.checkout_token, buyer(), 200, "192.0.2.44")).body.tx_hash);
    await settle((await post("/v1/holds/capture", { hold: hold.hold, amount: "0.50" })).body.tx_hash);
    await settle((await post("/v1/holds/void", { hold: hold.hold })).body.tx_hash);
    assert.equal((await post("/v1/holds/state", { hold: hold.hold })).body.captured_units, "500000");
    assert.isAbove(await metricOf(h.service, "relayer_gas_spent_wei_total", "hold_void"), before, "the voids' gas");
    assert.isAbove(await metricOf(h.service, "relayer_gas_spent_wei_total", "hold_capture"), 0, "the capture's gas");
    assert.isAbove(await metricOf(h.service, "relayer_fees_earned_units_total", "hold_capture"), 0, "the capture's fee");
  });

  it("once the total is spent, no new authorization goes out, while a merchant's capture and void of an authorized hold still do", async () => {
    const tight = await h.another({ TRUST_PROXY: "1", RELAYER_BUDGET_WEI_PER_HOUR: "1" });
    const hold = await create(merchant().address, tight);
    await settle((await authorize(hold.checkout_token, buyer(), 200, "192.0.2.45", tight)).body.tx_hash, tight);
    const other = await create(merchant().address, tight);
    assert.equal((await authorize(other.checkout_token, buyer(), 429, "192.0.2.46", tight)).body.error, "RELAYER_BUDGET_EXCEEDED");
    await settle((await post("/v1/holds/capture", { hold: hold.hold, amount: "0.50" }, 200, "192.0.2.45", tight)).body.tx_hash, tight);
    await settle((await post("/v1/holds/void", { hold: hold.hold }, 200, "192.0.2.45", tight)).body.tx_hash, tight);
    assert.equal((await post("/v1/holds/state", { hold: hold.hold }, 200, "192.0.2.45", tight)).body.state, "VOIDED");
  });

  it("a second payer authorizing an existing hold's exact terms through /x402/settle is refused with the holds API's code, nothing sent", async () => {
    const hold = await create(merchant().address);
    await settle((await authorize(hold.checkout_token, buyer(), 200, "192.0.2.47")).body.tx_hash);
    // The second payer resolves the hold (its checkout capability) and signs the same terms as an x402 auth-capture hold.
    const body = await x402Hold(hold.checkout_token, attacker());
    const nonce = await relayerNonce();
    const settled = await supertest(h.service.app).post("/x402/settle").send(body);
    assert.include(settled.body, { success: false }, JSON.stringify(settled.body));
    assert.include(JSON.stringify(settled.body), "HOLD_ALREADY_AUTHORIZED");
    assert.equal(await relayerNonce(), nonce, "nothing sent");
  });
  it("an x402 charge whose fee is below its gas is counted and stops at the payer's budget; one whose fee covers its gas is neither counted nor refused", async () => {
    /**
     * An x402 auth-capture charge (EVM binding v1.1: `paymentFlow` "authorization", authorize and capture
     * in one call) of `units` from the attacker to itself, the attacker its own receiver authorizer
     * signing the `Charge` consent for the whole amount.
     */
    async function charge(units: bigint) {
      const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
      const set = h.service.deployment.authCapture![0]!;
      const party: SpecParty = {
        chainId: h.service.deployment.chainId,
        escrow: set.escrow,
        collector: set.eip3009Collector,
        feeBps: h.service.deployment.parameters.feeBps,
      };
      const r: PaymentRequirements = {
        ...authCaptureRequirements(
          kind.extra,
          { asset: h.service.deployment.token.address, payTo: attacker().address, now: Math.floor(Date.now() / 1000) },
          { paymentFlow: "authorization", captureMode: undefined, receiverAuthorizer: attacker().address },
        ),
        amount: units.toString(),
      };
      const p = await clientPayload(attacker(), h.chain.publicClient, r);
      const completed = { ...p.payload, ...(await chargeCompletion(party, r, p, units, (typed) => attacker().signTypedData(typed))) };
      return supertest(h.service.app)
        .post("/x402/settle")
        .set("X-Forwarded-For", "198.51.100.20")
        .send({ x402Version: 2, paymentPayload: { ...p, accepted: r, payload: completed }, paymentRequirements: r });
    }
    const budgetRows = async () => (await h.database.query<{ n: number }>("SELECT count(*)::int AS n FROM relayer_budget"))[0]!.n;
    // 0.01 pays 0.0002 of fee for a call of some 170,000 gas: counted, and the next one refused.
    assert.include((await charge(10_000n)).body, { success: true });
    assert.isAbove(await budgetRows(), 0, "counted");
    const refused = await charge(10_000n);
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.include(refused.body, { errorReason: "relayer_budget_exceeded" });
    // 1.00 pays 0.02 of fee, more than its gas at the local chain's price: it earns, goes through the spent budget, and writes nothing to it.
    await h.database.query("DELETE FROM relayer_budget WHERE key LIKE 'relayer-budget|total'");
    const rows = await budgetRows();
    assert.include((await charge(1_000_000n)).body, { success: true });
    assert.equal(await budgetRows(), rows, "no store write for work that earns");
    await h.chain.mine(3);
    await h.service.holdOperator!.follow();
    assert.isAbove(await metricOf(h.service, "relayer_fees_earned_units_total", "auth_capture_charge"), 0);
  });
  it("an x402 settlement to a receiver whose fee is below its gas is held to the payer's budget: the next one is 429 relayer_budget_exceeded, nothing sent", async () => {
    const receiver = (await post("/v1/x402/receivers", { recipient: merchant().address })).body.pay_to as string;
    async function pay() {
      const r: PaymentRequirements = {
        scheme: "exact",
        network: X402_NETWORK,
        amount: "10000",
        asset: h.service.deployment.token.address,
        payTo: receiver,
        maxTimeoutSeconds: 300,
        extra: { ...h.service.deployment.token.eip712 },
      };
      const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(eoaSigner(attacker(), h.chain.publicClient)));
      const p: PaymentPayload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [r] } as never);
      return supertest(h.service.app)
        .post("/x402/settle")
        .set("X-Forwarded-For", "198.51.100.30")
        .send({ x402Version: 2, paymentPayload: p, paymentRequirements: r });
    }
    assert.include((await pay()).body, { success: true });
    const nonce = await relayerNonce();
    const refused = await pay();
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.include(refused.body, { success: false, errorReason: "relayer_budget_exceeded" });
    assert.equal(await relayerNonce(), nonce, "nothing sent");
  });
  it("a caller's authorizations a minute are one limit whichever door: after one through the holds API, x402's authorize from the same caller is refused, nothing sent", async () => {
    const limited = await h.another({ TRUST_PROXY: "1", RECOVER_LIMIT_PER_MINUTE: "1" });
    const first = await create(merchant().address, limited);
    await settle((await authorize(first.checkout_token, buyer(), 200, "192.0.2.60", limited)).body.tx_hash, limited);
    // Another recipient and payer: the suite's one-wei budgets per payer and recipient are not what refuses it.
    const second = await create(owner().address, limited);
    const nonce = await relayerNonce();
    const settled = await supertest(limited.app)
      .post("/x402/settle")
      .set("X-Forwarded-For", "192.0.2.60")
      .send(await x402Hold(second.checkout_token, attacker()));
    assert.include(settled.body, { success: false }, JSON.stringify(settled.body));
    assert.include(JSON.stringify(settled.body), "RATE_LIMITED");
    assert.equal(await relayerNonce(), nonce, "nothing sent");
    // Another caller is not this one's limit.
    const other = await supertest(limited.app)
      .post("/x402/settle")
      .set("X-Forwarded-For", "192.0.2.61")
      .send(await x402Hold(second.checkout_token, attacker()));
    assert.include(other.body, { success: true }, JSON.stringify(other.body));
  });
});
