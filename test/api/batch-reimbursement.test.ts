import { assert } from "chai";
import supertest from "supertest";
import { decodeFunctionData, parseEventLogs, parseGwei, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { weiToUnits } from "../../src/recurring/gas-quote.js";
import { useService } from "../helpers/service.js";
import { manySubscriptions } from "../helpers/recurring.js";

/** Renewals per wave: one chargeBatch (CHARGE_BATCH_MAX is 50). */
const WAVE = 20;

/**
 * Fair reimbursement (issue 28): a batched renewal pays what it costs in the batch it rides in (its
 * measured share of the batch's gas and of the L1 data fee of the calldata sent, with a margin), not
 * the price of a lone renewal. For a wave of batched renewals at an L2 base fee, what payers are
 * charged (network fee + reimbursement, converted as the service converts gas to USDC) is at least
 * 0.95× what the relayer paid (L2 gas and L1 data fee, from the receipt) and at most the larger of
 * the network fees and 1.3× what it paid.
 */
describe("a batched renewal's reimbursement is its share of the batch", function () {
  this.timeout(180_000);
  // A wide window so the wave surely meets in one batch; a signed maximum a lone renewal's price fits under at 2 gwei.
  const h = useService({ CHARGE_BATCH_WAIT_MS: "400", MAX_GAS_REIMBURSEMENT: "5" });

  /** One renewal wave at `baseFee`: what the relayer paid and what the payers were charged, in token units. */
  async function wave(subs: Array<{ subscription: string }>, baseFee: bigint, period: number) {
    await h.chain.advanceTime(3600);
    // The next block's base fee, which eth_feeHistory quotes and the wave's transaction pays.
    await h.chain.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${baseFee.toString(16)}`] });
    const answers = await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
    for (const a of answers) assert.include(a.body, { status: "CONFIRMING", period_index: period }, JSON.stringify(a.body));
    const hashes = new Set(answers.map((a) => a.body.tx_hash as Hex));
    assert.equal(hashes.size, 1, "one chargeBatch");
    const [hash] = [...hashes] as [Hex];
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    assert.equal(receipt.status, "success");
    const block = await h.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    assert.equal(block.baseFeePerGas, baseFee, "the wave paid the base fee it was priced at");
    const tx = await h.chain.publicClient.getTransaction({ hash });
    assert.equal(decodeFunctionData({ abi: recurringChargesAbi, data: tx.input }).functionName, "chargeBatch");
    const charged = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
    assert.lengthOf(charged, subs.length, "every renewal charged");
    const l1 = (receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n;
    assert.isAbove(Number(l1), 0, "the local chain charges an L1 data fee");
    const paid = weiToUnits(receipt.gasUsed * receipt.effectiveGasPrice + l1, h.service.config.recurring);
    const networkFees = charged.reduce((sum, e) => sum + e.args.networkFee, 0n);
    const reimbursements = charged.reduce((sum, e) => sum + e.args.gasReimbursement, 0n);
    return { paid, networkFees, reimbursements, charged: networkFees + reimbursements };
  }

  it("at 0.1, 0.5 and 2 gwei, payers are charged at least 0.95× what the relayer paid and at most the larger of the network fees and 1.3× it", async () => {
    const subs = await manySubscriptions(h, h.api, WAVE);
    const first = await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
    for (const a of first) assert.include(a.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(a.body));

    const figures: string[] = [];
    for (const [i, gwei] of ["0.1", "0.5", "2"].entries()) {
      const { paid, networkFees, reimbursements, charged } = await wave(subs, parseGwei(gwei), i + 1);
      figures.push(`${gwei} gwei: charged ${charged} (reimbursements ${reimbursements}), paid ${paid}, ${(Number(charged) / Number(paid)).toFixed(2)}×`);
      const ceiling = networkFees > (paid * 13n) / 10n ? networkFees : (paid * 13n) / 10n;
      assert.isAtLeast(Number(charged), (Number(paid) * 95) / 100, `${gwei} gwei: charged at least 0.95× what was paid (${figures.at(-1)})`);
      assert.isAtMost(Number(charged), Number(ceiling), `${gwei} gwei: charged at most max(network fees, 1.3× paid) (${figures.at(-1)})`);
      if (gwei === "2") assert.isAbove(Number(reimbursements), 0, "at 2 gwei the network fee does not cover a renewal: the band is the reimbursement's");
    }
  });

  it("a lone renewal keeps its own price (the dearest renewal alone), above a batched renewal's share", async () => {
    const subs = await manySubscriptions(h, h.api, 2);
    for (const a of await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription }))))
      assert.include(a.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(a.body));
    await h.chain.advanceTime(3600);
    await h.chain.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${parseGwei("2").toString(16)}`] });
    const batched = await Promise.all(subs.map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
    const batchReceipt = await h.chain.publicClient.getTransactionReceipt({ hash: batched[0]!.body.tx_hash });
    const batchedEvents = parseEventLogs({ abi: recurringChargesAbi, logs: batchReceipt.logs, eventName: "Charged" });
    assert.lengthOf(batchedEvents, 2, "both renewals in one batch");

    await h.chain.advanceTime(3600);
    await h.chain.provider.request({ method: "hardhat_setNextBlockBaseFeePerGas", params: [`0x${parseGwei("2").toString(16)}`] });
    const alone = await supertest(h.service.app).post("/v1/charges").send({ subscription: subs[0]!.subscription });
    assert.include(alone.body, { status: "CONFIRMING", period_index: 2 }, JSON.stringify(alone.body));
    const tx = await h.chain.publicClient.getTransaction({ hash: alone.body.tx_hash });
    assert.equal(decodeFunctionData({ abi: recurringChargesAbi, data: tx.input }).functionName, "charge", "sent alone");
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: alone.body.tx_hash });
    const [event] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
    const paid = weiToUnits(receipt.gasUsed * receipt.effectiveGasPrice + ((receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n), h.service.config.recurring);
    // Alone: priced as the dearest renewal measured, with its margins: at least what it paid.
    assert.isAtLeast(Number(event!.args.networkFee + event!.args.gasReimbursement), Number(paid));
    for (const e of batchedEvents)
      assert.isBelow(Number(e.args.gasReimbursement), Number(event!.args.gasReimbursement), "a batched renewal pays less than a lone one");
  });
});
