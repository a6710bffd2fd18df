import { assert } from "chai";
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import type { Service } from "../../src/service.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";
import { balanceOf } from "../helpers/tx.js";

const HOOK = `https://${RECEIVER_HOST}/hooks/holds`;

/** Holds through the API (DESIGN v7, "Holds"): the Done-when flow, the refusals in the service's words, reclaim, refund, events. */
describe("holds", function () {
  this.timeout(120_000);
  const receiver = new Receiver();
  const resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const h = useService(
    { WEBHOOKS_ALLOW_LOOPBACK: "true", WEBHOOK_TIMEOUT_MS: "400" },
    { deps: () => ({ webhookTransport: { resolve, ca: receiver.ca, port: receiver.port } }) },
  );
  before(() => receiver.start());
  after(() => receiver.stop());
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.behave = { status: 200 };
  });
  afterEach(() => assert.deepEqual(receiver.mismatches.splice(0), [], "every webhook body matches its event's wire schema"));
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const token = () => h.service.deployment.token.address;
  const nowSeconds = () => Math.floor(h.clock.now() / 1000);

  async function post(path: string, body: object, status = 200) {
    const res = await h.api.post(path).send(body);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  }
  async function create(body: object = {}) {
    return post("/v1/holds", {
      recipient: merchant().address,
      amount: "50.00",
      capture_before: nowSeconds() + 3600,
      refund_before: nowSeconds() + 86_400,
      ...body,
    });
  }
  /** The buyer signs exactly the typed data resolve hands it (MetaMask's eth_signTypedData_v4), and the service authorizes. */
  async function authorize(checkoutToken: string, payer = buyer()) {
    const resolved = await post("/v1/holds/resolve", { hold: checkoutToken, payer: payer.address });
    const signature = signWithMetaMask(payer, resolved.typed_data);
    return { resolved, signature, sent: await post("/v1/holds/authorize", { hold: checkoutToken, payer: payer.address, signature }) };
  }
  /** Mines an operator call and the blocks the service's finality needs, and follows it to its end. */
  async function settle(sent: { tx_hash: Hex }, service: Service = h.service) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash });
    await h.chain.mine(3);
    await service.holdOperator!.follow();
  }
  const state = (hold: string) => post("/v1/holds/state", { hold });
  async function events(hold: string) {
    await h.service.webhooks.holdWatcher!.tick();
    await h.service.webhooks.delivery.runDue();
    return (await post("/v1/events", { hold })).events as Array<{ type: string; data: Record<string, string> }>;
  }

  it("a hold of 50.00: authorized by the buyer, captured 30.00 then 15.00, the rest voided; each step final, an event, and in the list", async () => {
    const feeCollector = h.service.deployment.parameters.feeCollector;
    const before = await Promise.all([buyer().address, merchant().address, feeCollector].map((a) => balanceOf(h.chain, token(), a)));
    const created = await create({ notify_url: HOOK });
    assert.equal(created.notify_url, HOOK);
    assert.match(created.hold, /^ho\./);
    assert.match(created.checkout_token, /^hc\./);
    assert.include(created.checkout_url, `#/hold/${created.checkout_token}`);
    assert.equal((await state(created.hold)).state, "AWAITING_AUTHORIZATION");
    const { sent } = await authorize(created.checkout_token);
    assert.deepInclude(sent, { hold_id: created.hold_id, operation: "authorize", status: "SENT" });
    await settle(sent);
    const authorized = await state(created.hold);
    assert.deepInclude(authorized, { state: "AUTHORIZED", payer: buyer().address, authorized_units: "50000000", capturable_units: "50000000" });
    for (const amount of ["30.00", "15.00"]) await settle(await post("/v1/holds/capture", { hold: created.hold, amount }));
    await settle(await post("/v1/holds/void", { hold: created.hold }));
    const after = await Promise.all([buyer().address, merchant().address, feeCollector].map((a) => balanceOf(h.chain, token(), a)));
    const fee = 600_000n + 300_000n;
    assert.equal(before[0]! - after[0]!, 45_000_000n, "the buyer paid 45.00: 5.00 went back");
    assert.equal(after[1]! - before[1]!, 45_000_000n - fee, "the recipient: 45.00 less the fee");
    assert.equal(after[2]! - before[2]!, fee, "the fee collector: the fee");
    const closed = await state(created.hold);
    assert.deepInclude(closed, {
      state: "VOIDED",
      captured_units: "45000000",
      fee_units: "900000",
      voided_units: "5000000",
      capturable_units: "0",
      in_flight: null,
    });
    assert.deepEqual(
      closed.steps.map((s: { step: string; amount_units: string; final: boolean }) => [s.step, s.amount_units, s.final]),
      [
        ["authorized", "50000000", true],
        ["captured", "30000000", true],
        ["captured", "15000000", true],
        ["voided", "5000000", true],
      ],
    );
    const read = await events(created.hold);
    assert.deepEqual(
      read.map((e) => [e.type, e.data.amount_units]),
      [
        ["hold.authorized", "50000000"],
        ["hold.captured", "30000000"],
        ["hold.captured", "15000000"],
        ["hold.voided", "5000000"],
      ],
    );
    assert.deepEqual(
      receiver.received.map((r) => (r.body as { type: string }).type),
      ["hold.authorized", "hold.captured", "hold.captured", "hold.voided"],
    );
    const listed = await post("/v1/holds/list", { recipient: merchant().address });
    assert.deepInclude(listed.holds[0], {
      hold_id: created.hold_id,
      payer: buyer().address,
      state: "VOIDED",
      captured_units: "45000000",
      capturable_units: "0",
    });
  });

  it("a hold of 10.00: captures of 4.00 and 3.000049 call v1.1's capture (0x3efa46e1) naming floor(part × fee_bps / 10⁴) as the fee amount, and move exactly that", async () => {
    const feeCollector = h.service.deployment.parameters.feeCollector;
    const feeBps = BigInt(h.service.deployment.parameters.feeBps);
    const created = await create({ amount: "10.00", notify_url: HOOK });
    await settle((await authorize(created.checkout_token)).sent);
    for (const [amount, units] of [
      ["4.00", 4_000_000n],
      ["3.000049", 3_000_049n],
    ] as const) {
      const before = await Promise.all([merchant().address, feeCollector].map((a) => balanceOf(h.chain, token(), a)));
      const sent = await post("/v1/holds/capture", { hold: created.hold, amount });
      const tx = await h.chain.publicClient.getTransaction({ hash: sent.tx_hash });
      assert.equal(tx.input.slice(0, 10), "0x3efa46e1", "Commerce Payments v1.1's capture(PaymentInfo,uint256,uint256,address)");
      await settle(sent);
      const after = await Promise.all([merchant().address, feeCollector].map((a) => balanceOf(h.chain, token(), a)));
      const fee = (units * feeBps) / 10_000n;
      assert.equal(after[1]! - before[1]!, fee, `${amount}: the fee collector gets floor(part × fee_bps / 10⁴)`);
      assert.equal(after[0]! - before[0]!, units - fee, `${amount}: the merchant the rest`);
    }
    await settle(await post("/v1/holds/void", { hold: created.hold }));
    const closed = await state(created.hold);
    const fee = (4_000_000n * feeBps) / 10_000n + (3_000_049n * feeBps) / 10_000n;
    assert.deepInclude(closed, { state: "VOIDED", captured_units: "7000049", fee_units: fee.toString(), voided_units: "2999951" });
    const read = await events(created.hold);
    assert.deepEqual(
      read.filter((e) => e.type === "hold.captured").map((e) => e.data.fee_units),
      [(4_000_000n * feeBps) / 10_000n, (3_000_049n * feeBps) / 10_000n].map(String),
    );
  });

  it("refuses in its words: a capture above what is authorized, a replayed authorization, a capture after void, the buyer's token capturing", async () => {
    const created = await create();
    assert.equal((await post("/v1/holds/capture", { hold: created.hold, amount: "1.00" }, 409)).error, "HOLD_NOT_AUTHORIZED");
    const { sent, signature } = await authorize(created.checkout_token);
    const replay = { hold: created.checkout_token, payer: buyer().address, signature };
    assert.equal((await post("/v1/holds/authorize", replay, 409)).error, "HOLD_BUSY", "while the first is in flight");
    await settle(sent);
    assert.equal((await post("/v1/holds/authorize", replay, 409)).error, "HOLD_ALREADY_AUTHORIZED");
    const above = await post("/v1/holds/capture", { hold: created.hold, amount: "50.01" }, 400);
    assert.equal(above.error, "HOLD_AMOUNT_EXCEEDS_AUTHORIZED");
    await settle(await post("/v1/holds/capture", { hold: created.hold, amount: "40.00" }));
    assert.equal((await post("/v1/holds/capture", { hold: created.hold, amount: "10.01" }, 400)).error, "HOLD_AMOUNT_EXCEEDS_AUTHORIZED", "more than is left");
    assert.equal((await post("/v1/holds/capture", { hold: created.checkout_token, amount: "1.00" }, 400)).error, "INVALID_HOLD_TOKEN", "the buyer's token");
    assert.equal((await post("/v1/holds/void", { hold: created.checkout_token }, 400)).error, "INVALID_HOLD_TOKEN", "the buyer's token");
    await settle(await post("/v1/holds/void", { hold: created.hold }));
    assert.equal((await post("/v1/holds/capture", { hold: created.hold, amount: "1.00" }, 409)).error, "HOLD_CLOSED");
    assert.equal((await post("/v1/holds/void", { hold: created.hold }, 409)).error, "HOLD_CLOSED");
  });

  it("a capture the escrow refuses is 409 ESCROW_REFUSED (FIX_REQUEST), the escrow's error named in svc-error-detail, and nothing is sent or retried", async () => {
    const created = await create();
    await settle((await authorize(created.checkout_token)).sent);
    const escrow = h.service.deployment.authCapture![0]!.escrow;
    const relayer = h.service.holdOperator!.operator!;
    const code = (await h.chain.publicClient.getCode({ address: escrow }))!;
    // Code at the escrow that refuses every call: with FeeAmountOutOfRange(0, 0, 0) (a decoded error
    // the service has no other answer for), then with no data at all (a function the code lacks,
    // as v1.1 answered v1.0's capture).
    const refusing: Array<[Hex, string]> = [
      ["0x637c2dcc2260e01b60005260646000fd", "FeeAmountOutOfRange"],
      ["0x60006000fd", "(revert without data)"],
    ];
    try {
      for (const [bytecode, name] of refusing) {
        await h.chain.testClient.setCode({ address: escrow, bytecode });
        const nonce = await h.chain.publicClient.getTransactionCount({ address: relayer });
        const res = await h.api.post("/v1/holds/capture").send({ hold: created.hold, amount: "1.00" });
        assert.equal(res.status, 409, JSON.stringify(res.body));
        assert.deepInclude(res.body, { error: "ESCROW_REFUSED", action: "FIX_REQUEST" });
        assert.equal(res.headers["svc-error-detail"], name);
        assert.isUndefined(res.headers["retry-after"], "not a retry");
        assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonce, "nothing was sent");
      }
    } finally {
      await h.chain.testClient.setCode({ address: escrow, bytecode: code });
    }
    assert.deepInclude(await state(created.hold), { capturable_units: "50000000", in_flight: null }, "the hold as it was, nothing recorded to send again");
  });

  it("refuses a garbage authorization with nothing sent, and terms against now, each other and the escrow's rules", async () => {
    const created = await create();
    const nonce = await h.chain.publicClient.getTransactionCount({ address: h.service.holdOperator!.operator! });
    const garbage = { hold: created.checkout_token, payer: buyer().address, signature: `0x${"22".repeat(65)}` };
    assert.equal((await post("/v1/holds/authorize", garbage, 400)).error, "INVALID_SIGNATURE");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: h.service.holdOperator!.operator! }), nonce, "nothing was sent");
    const now = nowSeconds();
    for (const terms of [
      { capture_before: now - 1 },
      { capture_before: now + 60 },
      { capture_before: now + 3600, refund_before: now + 3599 },
      { capture_before: now + 40 * 86_400, refund_before: now + 41 * 86_400 },
    ]) {
      const body = { recipient: merchant().address, amount: "50.00", refund_before: now + 86_400, ...terms };
      assert.equal((await post("/v1/holds", body, 400)).error, "INVALID_HOLD", JSON.stringify(terms));
    }
    const escrow = h.service.deployment.authCapture![0]!.escrow;
    const refused = await post("/v1/holds", { recipient: escrow, amount: "50.00", capture_before: now + 3600, refund_before: now + 86_400 }, 400);
    assert.deepEqual(refused, { error: "INVALID_REQUEST", action: "FIX_REQUEST" }, "the escrow is no recipient");
  });

  it("past capture_before: a capture is refused with nothing sent, and the buyer reclaims with its own transaction, prepared by the state", async () => {
    const created = await create({ notify_url: HOOK });
    const before = await balanceOf(h.chain, token(), buyer().address);
    await settle((await authorize(created.checkout_token)).sent);
    assert.isNull((await state(created.checkout_token)).reclaim, "nothing to reclaim before capture_before");
    await h.chain.advanceTime(3600);
    h.clock.advance(3600);
    const nonce = await h.chain.publicClient.getTransactionCount({ address: h.service.holdOperator!.operator! });
    assert.equal((await post("/v1/holds/capture", { hold: created.hold, amount: "1.00" }, 409)).error, "HOLD_EXPIRED");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: h.service.holdOperator!.operator! }), nonce, "nothing was sent");
    const expired = await state(created.checkout_token);
    assert.equal(expired.state, "EXPIRED");
    assert.deepInclude(expired.reclaim, { from: buyer().address, to: h.service.deployment.authCapture![0]!.escrow });
    const hash = await h.chain.wallet(buyer()).sendTransaction({ to: expired.reclaim.to, data: expired.reclaim.data, account: buyer(), chain: h.chain.chain });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    await h.chain.mine(3);
    assert.deepInclude(await state(created.hold), { state: "RECLAIMED", reclaimed_units: "50000000", capturable_units: "0", reclaim: null });
    assert.equal(await balanceOf(h.chain, token(), buyer().address), before);
    assert.deepEqual(
      (await events(created.hold)).map((e) => e.type),
      ["hold.authorized", "hold.reclaimed"],
    );
  });

  it("a refund after capture is the existing refund from the merchant's wallet: prepared, sent by the merchant, verified and announced", async () => {
    const created = await create({ notify_url: HOOK });
    await settle((await authorize(created.checkout_token)).sent);
    await settle(await post("/v1/holds/capture", { hold: created.hold, amount: "30.00" }));
    assert.lengthOf(await events(created.hold), 2);
    assert.equal((await post("/v1/holds/refund", { hold: created.hold, amount: "30.01" }, 400)).error, "REFUND_AMOUNT_INVALID");
    assert.equal((await post("/v1/holds/refund", { hold: created.checkout_token, amount: "1.00" }, 400)).error, "INVALID_HOLD_TOKEN");
    const prepared = await post("/v1/holds/refund", { hold: created.hold, amount: "10.00" });
    assert.deepInclude(prepared, { status: "PREPARED", merchant: merchant().address, payer: buyer().address, refund_amount_units: "10000000" });
    assert.equal(prepared.call.data, encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [buyer().address, 10_000_000n] }));
    // The existing refund page takes its token as it takes a payment's.
    assert.deepInclude(await post("/v1/refunds/resolve", { refund_token: prepared.refund_token }), {
      merchant: merchant().address,
      payer: buyer().address,
      amount_units: "10000000",
    });
    const hash = await h.chain
      .wallet(merchant())
      .sendTransaction({ to: prepared.call.to, data: prepared.call.data, account: merchant(), chain: h.chain.chain });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    assert.equal((await post("/v1/holds/refund", { hold: created.hold, amount: "10.00", refund_tx_hash: hash }, 409)).error, "REFUND_CONFIRMING");
    await h.chain.mine(3);
    assert.equal((await post("/v1/holds/refund", { hold: created.hold, amount: "9.00", refund_tx_hash: hash }, 400)).error, "REFUND_TRANSACTION_MISMATCH");
    assert.deepInclude(await post("/v1/holds/refund", { hold: created.hold, amount: "10.00", refund_tx_hash: hash }), {
      status: "REFUNDED",
      refund_tx_hash: hash,
    });
    const read = await events(created.hold);
    assert.deepEqual(
      read.map((e) => e.type),
      ["hold.authorized", "hold.captured", "hold.refunded"],
    );
    assert.deepInclude(read[2]!.data, { tx_hash: hash, amount_units: "10000000", payer: buyer().address });
  });
});
