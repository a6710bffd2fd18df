import { assert } from "chai";
import supertest from "supertest";
import { parseTransaction, zeroAddress, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { DomainError } from "../../src/errors.js";
import type { HoldOperator, HoldSent } from "../../src/holds/operator.js";
import { holdAuthorizationTypedData, type PaymentInfo } from "../../src/holds/payment-info.js";
import { holdParties, stateOf } from "../helpers/holds.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";
import { balanceOf } from "../helpers/tx.js";

/** The service as the escrow's operator (src/holds/operator.ts): its calls, refusals in its words, and the relayer's rules. */
describe("the holds' operator", function () {
  this.timeout(60_000);
  const h = useService();
  const operator = (): HoldOperator => h.service.holdOperator!;
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;

  async function terms(overrides: Partial<PaymentInfo> = {}): Promise<PaymentInfo> {
    const now = Number((await h.chain.publicClient.getBlock()).timestamp);
    return {
      operator: operator().operator!,
      payer: buyer().address,
      receiver: merchant().address,
      token: h.service.deployment.token.address,
      maxAmount: 50_000_000n,
      preApprovalExpiry: now + 600,
      authorizationExpiry: now + 3600,
      refundExpiry: now + 86_400,
      minFeeBps: h.service.deployment.parameters.feeBps,
      maxFeeBps: h.service.deployment.parameters.feeBps,
      feeReceiver: h.service.deployment.parameters.feeCollector,
      salt: 7n,
      ...overrides,
    };
  }
  function sign(info: PaymentInfo): Hex {
    const p = holdParties(h.chain);
    return signWithMetaMask(
      buyer(),
      holdAuthorizationTypedData(info, info.payer, {
        chainId: h.service.deployment.chainId,
        escrow: p.escrow,
        collector: p.collector,
        tokenEip712: h.service.deployment.token.eip712,
      }) as never,
    );
  }
  /** Mines the call, then enough blocks for the service's finality, and follows it to its end. */
  async function settle(sent: HoldSent) {
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.hash });
    await h.chain.mine(3);
    const outcome = await operator().outcome(sent.hash);
    assert.equal(await operator().follow(), 1);
    return outcome;
  }
  async function refused(call: Promise<unknown>): Promise<string> {
    try {
      await call;
    } catch (error) {
      assert.instanceOf(error, DomainError);
      return (error as DomainError).code + ((error as DomainError).code === "RELAYER_ERROR" ? String((error as DomainError).detail) : "");
    }
    assert.fail("the call was not refused");
  }

  it("authorizes 50.00, captures 30.00 then 15.00 and voids the rest: the receiver gets 45.00 less the fee, the fee collector the fee, the buyer 5.00 back", async () => {
    const token = h.service.deployment.token.address;
    const feeCollector = h.service.deployment.parameters.feeCollector;
    const info = await terms();
    const before = await Promise.all([buyer().address, merchant().address, feeCollector].map((a) => balanceOf(h.chain, token, a)));
    const authorized = await settle(await operator().authorize(info, sign(info)));
    assert.deepInclude(authorized, { state: "done" });
    assert.deepEqual(authorized.state === "done" && authorized.step, { step: "authorized", amount: 50_000_000n });
    for (const amount of [30_000_000n, 15_000_000n]) {
      const captured = await settle(await operator().capture(info, amount));
      assert.deepEqual(captured.state === "done" && captured.step, { step: "captured", amount, feeAmount: (amount * 200n) / 10_000n });
    }
    const voided = await settle(await operator().void(info));
    assert.deepEqual(voided.state === "done" && voided.step, { step: "voided", amount: 5_000_000n });
    const after = await Promise.all([buyer().address, merchant().address, feeCollector].map((a) => balanceOf(h.chain, token, a)));
    const fee = (30_000_000n * 200n) / 10_000n + (15_000_000n * 200n) / 10_000n;
    assert.equal(before[0]! - after[0]!, 45_000_000n, "the buyer paid 45.00 and got 5.00 back");
    assert.equal(after[1]! - before[1]!, 45_000_000n - fee);
    assert.equal(after[2]! - before[2]!, fee);
    assert.deepEqual(await stateOf(h.chain, { ...info }), { collected: true, capturable: 0n, refundable: 45_000_000n });
  });

  it("refuses in its own words: above what is authorized, a replayed authorization, after void, before authorization, a hold of another operator or fee", async () => {
    const info = await terms();
    const signature = sign(info);
    assert.equal(await refused(operator().capture(info, 1n)), "HOLD_NOT_AUTHORIZED");
    await settle(await operator().authorize(info, signature));
    assert.equal(await refused(operator().authorize(info, signature)), "HOLD_ALREADY_AUTHORIZED");
    assert.equal(await refused(operator().capture(info, 50_000_001n)), "HOLD_AMOUNT_EXCEEDS_AUTHORIZED");
    await settle(await operator().void(info));
    assert.equal(await refused(operator().capture(info, 1n)), "HOLD_CLOSED");
    assert.equal(await refused(operator().void(info)), "HOLD_CLOSED");
    assert.equal(await refused(operator().authorize({ ...info, operator: buyer().address }, signature)), "INVALID_HOLD");
    assert.equal(await refused(operator().capture({ ...info, maxFeeBps: 10_000 }, 1n)), "INVALID_HOLD");
    assert.equal(await refused(operator().capture({ ...info, feeReceiver: zeroAddress }, 1n)), "INVALID_HOLD");
  });

  it("refuses a garbage signature and a capture after the deadline, sending nothing", async () => {
    const info = await terms();
    const nonce = await h.chain.publicClient.getTransactionCount({ address: operator().operator! });
    assert.equal(await refused(operator().authorize(info, `0x${"11".repeat(65)}`)), "INVALID_SIGNATURE");
    assert.equal(await refused(operator().authorize(info, sign({ ...info, salt: 8n }))), "INVALID_SIGNATURE", "a signature over other terms");
    await settle(await operator().authorize(info, sign(info)));
    await h.chain.advanceTime(3600);
    assert.equal(await refused(operator().capture(info, 1n)), "HOLD_EXPIRED");
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: operator().operator! }), nonce + 1, "only the authorization was sent");
  });

  it("a mined call ends only once its receipt is final (FINALITY), on one node too: the follower does not take a fresh receipt to the door", async () => {
    const info = await terms();
    const sent = await operator().authorize(info, sign(info));
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.hash });
    assert.equal(await operator().follow(), 0, "mined, not final: still followed");
    assert.equal((await operator().inFlight(info))?.hash, sent.hash);
    await h.chain.mine(2);
    assert.equal(await operator().follow(), 1, "final: ended");
    assert.isNull(await operator().inFlight(info));
  });

  it("records a call before it is broadcast and refuses a second call for the hold while it is in flight", async () => {
    const info = await terms();
    await settle(await operator().authorize(info, sign(info)));
    await h.chain.testClient.setAutomine(false);
    try {
      const first = await operator().capture(info, 10_000_000n);
      assert.equal((await operator().inFlight(info))?.hash, first.hash);
      assert.equal(await refused(operator().capture(info, 10_000_000n)), "HOLD_BUSY");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(4);
    await operator().follow();
    assert.isNull(await operator().inFlight(info));
    assert.equal((await stateOf(h.chain, info)).capturable, 40_000_000n);
  });

  it("a lost operator call is broadcast again, and a stuck one replaced with a higher fee, its hold freed once the replacement is mined", async () => {
    const info = await terms();
    await settle(await operator().authorize(info, sign(info)));
    await h.chain.testClient.setAutomine(false);
    let replacement: Hex | undefined;
    try {
      const lost = await operator().capture(info, 10_000_000n);
      await h.chain.testClient.dropTransaction({ hash: lost.hash });
      h.clock.advance(31);
      await operator().follow();
      assert.isNotNull(await h.chain.publicClient.getTransaction({ hash: lost.hash }), "broadcast again from its record");
      h.clock.advance(61);
      await operator().follow();
      replacement = (await operator().inFlight(info))?.hash;
      assert.isDefined(replacement);
      assert.notEqual(replacement, lost.hash, "replaced: the same nonce at a higher fee");
      const raws = await h.database.query<{ tx_hash: Hex; raw_tx: Hex; status: string }>(
        "SELECT tx_hash, raw_tx, status FROM hold_transactions WHERE operation = 'capture'",
      );
      const [first, second] = [lost.hash, replacement!].map((hash) => parseTransaction(raws.find((r) => r.tx_hash === hash)!.raw_tx));
      assert.equal(second!.nonce, first!.nonce);
      assert.isAbove(Number(second!.maxFeePerGas), Number(first!.maxFeePerGas));
      assert.deepEqual(raws.map((r) => r.status).sort(), ["replaced", "sent"]);
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(4);
    await operator().follow();
    assert.isNull(await operator().inFlight(info), "the hold is free for its next call");
    assert.equal((await stateOf(h.chain, info)).capturable, 40_000_000n, "captured once");
  });

  it("a stuck call is held at its bid when a replacement would pass the fee ceiling (RELAYER_MAX_FEE_PER_GAS), counted once", async () => {
    const info = await terms();
    await settle(await operator().authorize(info, sign(info)));
    await h.chain.testClient.setAutomine(false);
    try {
      const stuck = await operator().capture(info, 10_000_000n);
      const [row] = await h.database.query<{ raw_tx: Hex }>("SELECT raw_tx FROM hold_transactions WHERE tx_hash = $1", [stuck.hash]);
      const capped = await h.another({ RELAYER_MAX_FEE_PER_GAS: String(parseTransaction(row!.raw_tx).maxFeePerGas) });
      h.clock.advance(61);
      await capped.holdOperator!.follow();
      await capped.holdOperator!.follow();
      assert.equal((await capped.holdOperator!.inFlight(info))?.hash, stuck.hash, "not replaced past the ceiling");
      const metrics = (await supertest(capped.opsApp).get("/metrics")).text;
      assert.equal(Number(/relayer_fee_ceiling_held_total\{kind="hold"\} (\d+)/.exec(metrics)?.[1] ?? 0), 1, "one metric per held transaction");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
  });
});
