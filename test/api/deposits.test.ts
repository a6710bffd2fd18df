import { assert } from "chai";
import { erc20Abi, parseEther, type Address, type Hex } from "viem";
import { splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import { useService } from "../helpers/service.js";
import { balanceOf, send } from "../helpers/tx.js";
import type { PayBlock } from "../helpers/payments.js";

/**
 * Payment addresses through the API: `pay.deposit_address` and resolve's `deposit_address`, a plain
 * transfer from a fresh EOA (what an exchange withdrawal is), and verify with either hash.
 */
describe("payment addresses (deposit_address)", () => {
  const h = useService();
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
  /** An account nobody funded: an exchange's hot wallet, as far as the chain can tell. */
  let exchangeIndex = 900;

  async function create(amount = "12.5") {
    const res = await h.api.post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }
  const verify = (intent: string, tx_hash: Hex) => h.api.post("/v1/payments/verify").send({ intent, tx_hash });
  const token = () => h.service.deployment.token.address;

  /** A fresh EOA holding `units` of USDC and gas money, that sends `units` to `to` in a plain transfer. */
  async function withdraw(to: Address, units: bigint) {
    const exchange = localAccount(exchangeIndex++);
    await h.chain.testClient.setBalance({ address: exchange.address, value: parseEther("1") });
    await send(h.chain, buyer(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [exchange.address, units] });
    return { exchange, receipt: await send(h.chain, exchange, { address: token(), abi: erc20Abi, functionName: "transfer", args: [to, units] }) };
  }
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

  it("refunds go to the wallet that sent the deposit (Paid names the payment address): prepare names it, and verify checks the merchant's transfer to it", async () => {
    const a = await create("20");
    await withdraw(a.pay.deposit_address, 5_000_000n); // in two parts from two wallets: the larger sender is the payer
    const { exchange } = await withdraw(a.pay.deposit_address, 15_000_000n);
    const settlement = await settle(a.pay);
    await h.chain.mine(2);
    const prepared = await h.api.post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settlement.transactionHash, amount: "20000000" });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.equal(prepared.body.payer, exchange.address, "the sender of the deposit, never the payment address");
    const refund = await send(h.chain, merchant(), { address: token(), abi: erc20Abi, functionName: "transfer", args: [exchange.address, 20_000_000n] });
    await h.chain.mine(2);
    const verified = await h.api
      .post("/v1/refunds/verify")
      .send({ intent: a.intent, tx_hash: settlement.transactionHash, refund_amount: "20000000", refund_tx_hash: refund.transactionHash });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    assert.include(verified.body, { status: "REFUNDED", payer: exchange.address });
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
});
