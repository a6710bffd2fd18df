import { assert } from "chai";
import supertest from "supertest";
import { erc20Abi, getAddress, parseTransaction, type Address, type Hex } from "viem";
import { fiatTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { balanceOf, send } from "../helpers/tx.js";
import { exchangeWithdrawals, type PayBlock } from "../helpers/payments.js";
import { Receiver, RECEIVER_HOST } from "../helpers/receiver.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";

/**
 * Payment addresses through the API: `pay.deposit_address` and resolve's `deposit_address`, a plain
 * transfer from a fresh EOA (what an exchange withdrawal is), and verify with either hash.
 */
describe("payment addresses (deposit_address)", function () {
  this.timeout(60_000);
  const receiver = new Receiver();
  const h = useService(
    { WEBHOOKS_ALLOW_LOOPBACK: "true" },
    {
      deps: () => ({
        webhookTransport: { resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port },
        // A crash between recording a transaction and broadcasting it, when a test asks for one.
        beforeBroadcast: async () => {
          if (crashBeforeBroadcast) {
            crashBeforeBroadcast = false;
            throw new Error("crashed before the broadcast");
          }
        },
      }),
    },
  );
  let crashBeforeBroadcast = false;
  before(() => receiver.start());
  after(() => receiver.stop());
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
  /** An account nobody funded: an exchange's hot wallet, as far as the chain can tell. */

  async function create(amount = "12.5", extra: Record<string, unknown> = {}) {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }
  const verify = (intent: string, tx_hash: Hex) => h.api.post("/v1/payments/verify").send({ intent, tx_hash });
  const token = () => h.service.deployment.token.address;

  /** A fresh EOA holding `units` of USDC and gas money, that sends `units` to `to` in a plain transfer. */
  const withdraw = exchangeWithdrawals(() => h.chain, buyer, token, 900);
  /** The sender of a plain transfer receipt. */
  const exchangeOf = (receipt: { from: Address }) => getAddress(receipt.from);
  const settle = (pay: Required<PayBlock>) =>
    send(h.chain, stranger(), {
      address: pay.splitter,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [pay.token, pay.recipient, BigInt(pay.amount_units), pay.reference],
    });

  it("serves the contract's own payment address in create and resolve, one per payment", async () => {
    const a = await create("3");
    const onChain = await h.chain.publicClient.readContract({
      address: a.pay.splitter,
      abi: splitterAbi,
      functionName: "depositAddress",
      args: [a.pay.token, a.pay.recipient, BigInt(a.pay.amount_units), a.pay.reference],
    });
    assert.equal(a.pay.deposit_address, onChain);
    const resolved = await h.api.post("/v1/payments/resolve").send({ intent: a.intent });
    assert.equal(resolved.body.deposit_address, onChain);
    assert.notEqual((await create("3")).pay.deposit_address, onChain);
  });

  it("verifies with the buyer's own transfer hash: confirming until the settlement is final, then valid naming the settlement; the settlement's hash verifies too; recover finds it", async () => {
    const a = await create("12.5");
    const units = BigInt(a.pay.amount_units);
    const { receipt: transfer } = await withdraw(a.pay.deposit_address, units);
    // Deposited, not settled yet: the payment is on its way (the address holds the amount).
    assert.deepEqual((await verify(a.intent, transfer.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" });
    assert.deepEqual((await h.api.post("/v1/payments/recover").send({ intent: a.intent })).body.found, false);

    const before = await balanceOf(h.chain, token(), merchant().address);
    const settlement = await settle(a.pay);
    // Mined, above the finality head (2 confirmations): still confirming, by either hash.
    assert.deepEqual((await verify(a.intent, transfer.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" });
    assert.deepEqual((await verify(a.intent, settlement.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" });
    await h.chain.mine(2);
    const valid = {
      valid: true,
      tx_hash: settlement.transactionHash,
      reference: a.reference,
      amount: "12.500000",
      block_number: settlement.blockNumber.toString(),
      block_hash: settlement.blockHash,
    };
    assert.deepEqual((await verify(a.intent, transfer.transactionHash)).body, valid);
    assert.deepEqual((await verify(a.intent, settlement.transactionHash)).body, valid);
    const recovered = await h.api.post("/v1/payments/recover").send({ intent: a.intent });
    assert.include(recovered.body, { found: true, valid: true, tx_hash: settlement.transactionHash });
    // The same split as pay: 2% to the fee collector, the rest to the merchant; the address keeps nothing.
    assert.equal((await balanceOf(h.chain, token(), merchant().address)) - before, units - (units * 200n) / 10_000n);
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);
    assert.equal((await h.api.post("/v1/payments/resolve").send({ intent: a.intent })).body.error, "PAYMENT_ALREADY_PROCESSED");
  });

  it("100 × the amount sent to a payment address: the fee is taken on all of it, and verify (by either hash) and recover report moved_units", async () => {
    const a = await create("1");
    const units = BigInt(a.pay.amount_units);
    const held = units * 100n;
    const { receipt: transfer } = await withdraw(a.pay.deposit_address, held);
    const collector = h.service.deployment.parameters.feeCollector;
    const before = await Promise.all([merchant().address, collector].map((who) => balanceOf(h.chain, token(), who)));
    const settlement = await settle(a.pay);
    await h.chain.mine(2);
    const after = await Promise.all([merchant().address, collector].map((who) => balanceOf(h.chain, token(), who)));
    const fee = (held * 200n) / 10_000n;
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], [held - fee, fee]);
    const valid = {
      valid: true,
      tx_hash: settlement.transactionHash,
      reference: a.reference,
      amount: "1.000000",
      block_number: settlement.blockNumber.toString(),
      block_hash: settlement.blockHash,
      moved_units: held.toString(),
    };
    assert.deepEqual((await verify(a.intent, settlement.transactionHash)).body, valid);
    assert.deepEqual((await verify(a.intent, transfer.transactionHash)).body, valid);
    const recovered = await h.api.post("/v1/payments/recover").send({ intent: a.intent });
    assert.include(recovered.body, { found: true, valid: true, tx_hash: settlement.transactionHash, moved_units: held.toString() });
  });

  it("refunds go to the wallet that sent the deposit (Paid names the payment address): prepare names it, and verify checks the merchant's transfer to it", async () => {
    const a = await create("20");
    // A stranger's part first, then the exchange's 20.00 in two transfers of its own: the exchange's own transfers reach the amount.
    await send(h.chain, stranger(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [a.pay.deposit_address, 5_000_000n] });
    const { exchange } = await withdraw(a.pay.deposit_address, 15_000_000n);
    await send(h.chain, buyer(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [exchange.address, 5_000_000n] });
    await send(h.chain, exchange, { address: token(), abi: erc20Abi, functionName: "transfer", args: [a.pay.deposit_address, 5_000_000n] });
    const settlement = await settle(a.pay);
    await h.chain.mine(2);
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settlement.transactionHash, amount: "20000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.equal(prepared.body.payer, exchange.address, "the sender of the deposit, never the payment address");
    assert.isTrue(prepared.body.payer_from_deposit, "the merchant is told where the payer comes from");
    const page = await h.api.post("/v1/refunds/resolve").send({ refund_token: prepared.body.refund_token });
    assert.include(page.body, { payer: exchange.address, payer_from_deposit: true }, "and so is the refund page");
    const refund = await send(h.chain, merchant(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [exchange.address, 20_000_000n] });
    await h.chain.mine(2);
    const verified = await h.api
      .post("/v1/refunds/verify")
      .send({ intent: a.intent, tx_hash: settlement.transactionHash, refund_amount: "20000000", refund_tx_hash: refund.transactionHash });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.include(verified.body, { status: "REFUNDED", payer: exchange.address });
  });

  it("a stranger's 1-unit transfer before a late settlement does not become the refund target: the payer is who made up the payment", async () => {
    const a = await create("6");
    const { exchange } = await withdraw(a.pay.deposit_address, 6_000_000n);
    await h.chain.mine(5_000); // settled long after the deposit (an outage, a late settle)
    await send(h.chain, stranger(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [a.pay.deposit_address, 1n] });
    const settlement = await settle(a.pay);
    await h.chain.mine(2);
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settlement.transactionHash, amount: "6000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.equal(prepared.body.payer, exchange.address, "the wallet whose transfer made up the payment, never the stranger's unit");
  });

  /** The payer `POST /v1/payments/list` names for the payment settled in `txHash`. */
  async function listedPayer(txHash: Hex): Promise<string | null | undefined> {
    const listed = await h.api.post("/v1/payments/list").send({ recipient: merchant().address });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return (listed.body.payments as Array<{ tx_hash: Hex; payer: string | null }>).find((p) => p.tx_hash === txHash)?.payer;
  }

  it("a stranger's 6.00 before the buyer's 10.00 into a 10.00 payment address: the buyer is the payer, in the list and the refund", async () => {
    const a = await create("10");
    await send(h.chain, stranger(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [a.pay.deposit_address, 6_000_000n] });
    const { exchange: buyerWallet } = await withdraw(a.pay.deposit_address, 10_000_000n);
    const settled = await settle(a.pay);
    await h.chain.mine(2);
    assert.equal(await listedPayer(settled.transactionHash), buyerWallet.address, "the one sender whose own transfers reached the amount");
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settled.transactionHash, amount: "10000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.equal(prepared.body.payer, buyerWallet.address, "never the stranger who sent part of it first");
    const named = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settled.transactionHash, amount: "1", to: stranger().address });
    assert.equal(named.status, 400, "where the chain names the payer, no other wallet can be named");
  });

  it("a stranger's 6.00 after the buyer's 10.00: the buyer is the payer", async () => {
    const a = await create("10");
    const { exchange: buyerWallet } = await withdraw(a.pay.deposit_address, 10_000_000n);
    await send(h.chain, stranger(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [a.pay.deposit_address, 6_000_000n] });
    const settled = await settle(a.pay);
    await h.chain.mine(2);
    assert.equal(await listedPayer(settled.transactionHash), buyerWallet.address);
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settled.transactionHash, amount: "10000000" });
    assert.equal(prepared.body.payer, buyerWallet.address, JSON.stringify(prepared.body));
  });

  it("a top-up of exactly half by a stranger: PAYER_UNKNOWN lists the senders, and the merchant's to is the refund's target, prepare and verify alike", async () => {
    const a = await create("4");
    const { exchange: buyerWallet } = await withdraw(a.pay.deposit_address, 2_000_000n);
    await send(h.chain, stranger(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [a.pay.deposit_address, 2_000_000n] });
    const settled = await settle(a.pay);
    await h.chain.mine(2);
    const tx_hash = settled.transactionHash;
    assert.isNull(await listedPayer(tx_hash), "the list names no payer");
    const unknown = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash, amount: "4000000" });
    assert.equal(unknown.status, 409, JSON.stringify(unknown.body));
    assert.deepEqual(unknown.body, {
      error: "PAYER_UNKNOWN",
      action: "FIX_REQUEST",
      senders: [
        { address: buyerWallet.address, amount_units: "2000000" },
        { address: getAddress(stranger().address), amount_units: "2000000" },
      ],
    });
    const elsewhere = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash, amount: "2000000", to: merchant().address });
    assert.equal(elsewhere.status, 400, "a wallet that sent nothing is never a target");
    const beyond = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash, amount: "4000000", to: buyerWallet.address });
    assert.deepInclude(beyond.body, { error: "REFUND_AMOUNT_INVALID" }, "no wallet gets back more than it sent");
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash, amount: "2000000", to: buyerWallet.address.toLowerCase() });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.include(prepared.body, { payer: buyerWallet.address, payer_from_deposit: true, original_amount_units: "4000000" });
    const refund = await send(h.chain, merchant(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [buyerWallet.address, 2_000_000n] });
    await h.chain.mine(2);
    const ask = { intent: a.intent, tx_hash, refund_amount: "2000000", refund_tx_hash: refund.transactionHash };
    assert.deepInclude((await h.api.post("/v1/refunds/verify").send(ask)).body, { error: "PAYER_UNKNOWN" }, "verify is told the same to");
    const wrong = await h.api.post("/v1/refunds/verify").send({ ...ask, to: stranger().address });
    assert.deepInclude(wrong.body, { error: "REFUND_TRANSACTION_MISMATCH" }, "a transfer to the buyer is no refund to the stranger");
    const verified = await h.api.post("/v1/refunds/verify").send({ ...ask, to: buyerWallet.address });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.include(verified.body, { status: "REFUNDED", payer: buyerWallet.address });
  });

  it("a short deposit is a mismatch until a top-up makes it whole; a transfer elsewhere is no payment", async () => {
    const a = await create("10");
    const { receipt: short } = await withdraw(a.pay.deposit_address, 4_000_000n);
    await h.chain.mine(2);
    assert.deepEqual((await verify(a.intent, short.transactionHash)).body, { valid: false, code: "PAYMENT_MISMATCH" });
    await withdraw(a.pay.deposit_address, 6_000_000n);
    assert.deepEqual((await verify(a.intent, short.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" }, "whole now: on its way");
    const { receipt: elsewhere } = await withdraw(merchant().address, 10_000_000n);
    assert.deepEqual((await verify(a.intent, elsewhere.transactionHash)).body, { valid: false, code: "PAYMENT_MISMATCH" });
    // Another intent's deposit is not this one's payment.
    const b = await create("10");
    assert.deepEqual((await verify(b.intent, short.transactionHash)).body, { valid: false, code: "PAYMENT_MISMATCH" });
  });

  it("the service settles a plain transfer from a fresh EOA by itself (no merchant call): verify by the transfer's hash, recover, and a webhook announce it", async () => {
    const hook = `https://${RECEIVER_HOST}/hooks/deposits`;
    const a = await create("7", { notify_url: hook });
    const settler = h.service.depositSettler;
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 0 }, "nothing has arrived");
    const { receipt: transfer } = await withdraw(a.pay.deposit_address, 7_000_000n);
    const before = await balanceOf(h.chain, token(), merchant().address);
    h.clock.advance(3); // the address is looked at again after DEPOSIT_CHECK_EVERY_MS
    assert.deepEqual(await settler.tick(), { sent: 1, settled: 0 }, "the settlement is sent");
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 0 }, "once");
    assert.deepEqual((await verify(a.intent, transfer.transactionHash)).body, { valid: false, code: "PAYMENT_CONFIRMING" });
    await h.chain.mine(2);
    assert.deepEqual(await settler.tick(), { sent: 0, settled: 1 }, "settled and final: the watch ends");
    // /metrics: what the relayer paid for it, and the 0.14 fee it earned.
    const metrics = (await supertest(h.service.opsApp).get("/metrics")).text;
    assert.isAbove(Number(/^relayer_gas_spent_wei_total\{operation="deposit_settlement"\} (\S+)$/m.exec(metrics)?.[1] ?? 0), 0);
    assert.equal(Number(/^relayer_fees_earned_units_total\{operation="deposit_settlement"\} (\S+)$/m.exec(metrics)?.[1] ?? 0), 140_000);
    const recovered = await h.api.post("/v1/payments/recover").send({ intent: a.intent });
    assert.include(recovered.body, { found: true, valid: true });
    const settlementHash = recovered.body.tx_hash as Hex;
    assert.include((await verify(a.intent, transfer.transactionHash)).body, { valid: true, tx_hash: settlementHash });
    assert.equal((await balanceOf(h.chain, token(), merchant().address)) - before, 7_000_000n - 140_000n, "the fee split out in the settlement");
    // The relayer sent it; the merchant made no call.
    const tx = await h.chain.publicClient.getTransaction({ hash: settlementHash });
    assert.equal(getAddress(tx.from), h.chain.accounts[LOCAL_ROLES.relayer]!.address);
    // A refund of it: to the wallet that sent the transfer.
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settlementHash, amount: "7000000" });
    assert.include(prepared.body, { payer: exchangeOf(transfer), payer_from_deposit: true });
    const refund = await send(h.chain, merchant(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [exchangeOf(transfer), 7_000_000n] });
    await h.chain.mine(2);
    const refunded = await h.api
      .post("/v1/refunds/verify")
      .send({ intent: a.intent, tx_hash: settlementHash, refund_amount: "7000000", refund_tx_hash: refund.transactionHash });
    assert.equal(refunded.body.status, "REFUNDED", JSON.stringify(refunded.body));
    receiver.received.length = 0;
    await h.service.webhooks.watcher.tick();
    await h.service.webhooks.delivery.runDue();
    const announced = receiver.received.filter((r) => r.headers["svc-event-type"] === "payment.settled");
    assert.lengthOf(announced, 1);
    assert.equal((announced[0]!.body.data as { tx_hash: Hex }).tx_hash, settlementHash);
  });

  it("waits for a short deposit's top-up; a payment settled by a stranger first ends the watch; a deposit after expiry settles for a week, then the watch is over", async () => {
    const settler = h.service.depositSettler;
    const a = await create("9");
    await withdraw(a.pay.deposit_address, 4_000_000n);
    h.clock.advance(3);
    assert.equal((await settler.tick()).sent, 0, "short: waits");
    await withdraw(a.pay.deposit_address, 5_000_000n);
    h.clock.advance(3);
    assert.equal((await settler.tick()).sent, 1, "whole: settled");

    const b = await create("9");
    await withdraw(b.pay.deposit_address, 9_000_000n);
    await settle(b.pay); // a stranger, before the service looks
    await h.chain.mine(2);
    h.clock.advance(3);
    assert.equal((await settler.tick()).sent, 0, "the address is empty: nothing to send");

    const c = await create("9");
    const d = await create("9");
    h.clock.advance(3601); // both intents expired: a slow withdrawal still pays for a week
    assert.equal((await h.api.post("/v1/payments/resolve").send({ intent: d.intent })).body.error, "INTENT_EXPIRED");
    await withdraw(d.pay.deposit_address, 9_000_000n);
    assert.equal((await settler.tick()).sent, 1, "expired an hour ago: settled as the payment");
    h.clock.advance(7 * 86_400); // and the week after it
    await withdraw(c.pay.deposit_address, 9_000_000n);
    assert.equal((await settler.tick()).sent, 0, "the watch is over: anyone may still settle it");
  });

  it("a settlement recorded but never broadcast (a crash) is sent again; a paused token or a blacklisted recipient holds the deposit at its address until it clears", async () => {
    const settler = h.service.depositSettler;
    const a = await create("3");
    await withdraw(a.pay.deposit_address, 3_000_000n);
    h.clock.advance(3);
    crashBeforeBroadcast = true;
    assert.equal((await settler.tick()).sent, 1, "recorded");
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 3_000_000n, "but never broadcast");
    assert.equal((await settler.tick()).sent, 0, "not signed twice");
    h.clock.advance(31);
    await settler.tick(); // the node does not know it: the same signed transaction again
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n, "settled by the recorded transaction");
    await h.chain.mine(2);
    assert.equal((await settler.tick()).settled, 1);

    const usdc = token();
    const roles = h.chain.usdcRoles;
    const b = await create("4");
    await withdraw(b.pay.deposit_address, 4_000_000n);
    await send(h.chain, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "pause", args: [] });
    h.clock.advance(3);
    assert.equal((await settler.tick()).sent, 0, "paused: the deposit waits at its address");
    await send(h.chain, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "unpause", args: [] });
    await send(h.chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "blacklist", args: [merchant().address] });
    h.clock.advance(61);
    assert.equal((await settler.tick()).sent, 0, "the recipient blacklisted: still waiting");
    await send(h.chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "unBlacklist", args: [merchant().address] });
    h.clock.advance(61);
    assert.equal((await settler.tick()).sent, 1, "cleared: settled");
    assert.equal(await balanceOf(h.chain, token(), b.pay.deposit_address), 0n);
  });

  it("a settlement stuck in the pool (the base fee rose) is replaced at the same nonce with a higher fee, so nothing waits behind it, and the replacement settles", async () => {
    const settler = h.service.depositSettler;
    const a = await create("6");
    await withdraw(a.pay.deposit_address, 6_000_000n);
    const watches = new DepositWatches(h.database);
    await h.chain.testClient.setAutomine(false);
    try {
      h.clock.advance(3);
      assert.equal((await settler.tick()).sent, 1);
      const first = (await watches.find(a.pay.deposit_address))!;
      h.clock.advance(h.service.config.relayer.replaceAfterSeconds - 1);
      await settler.tick();
      assert.equal((await watches.find(a.pay.deposit_address))!.txHash, first.txHash, "not stuck yet");
      h.clock.advance(2);
      await settler.tick();
      const replaced = (await watches.find(a.pay.deposit_address))!;
      assert.notEqual(replaced.txHash, first.txHash);
      const [before, after] = [parseTransaction(first.rawTx!), parseTransaction(replaced.rawTx!)];
      assert.deepEqual([after.nonce, after.to, after.data, after.gas], [before.nonce, before.to, before.data, before.gas], "same nonce, same call");
      assert.isAtLeast(Number((after.maxPriorityFeePerGas! * 100n) / before.maxPriorityFeePerGas!), 125, "a fee a node accepts as a replacement");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(3);
    const replaced = (await watches.find(a.pay.deposit_address))!;
    assert.equal((await h.chain.publicClient.getTransactionReceipt({ hash: replaced.txHash! })).status, "success", "the replacement was mined");
    assert.equal((await settler.tick()).settled, 1);
    assert.equal(await balanceOf(h.chain, token(), a.pay.deposit_address), 0n);
  });
});
