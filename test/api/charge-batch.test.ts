import { assert } from "chai";
import supertest from "supertest";
import {
  decodeErrorResult,
  decodeFunctionData,
  encodeFunctionData,
  erc20Abi,
  getAbiItem,
  parseEventLogs,
  parseTransaction,
  toFunctionSelector,
  type Hex,
} from "viem";
import { gasBurningAccountAbi, recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { createService } from "../../src/service.js";
import { createLogger } from "../../src/logger.js";
import { ChargeAttempts } from "../../src/store/charge-attempts.js";
import { configFor, useService, type ServiceHarness } from "../helpers/service.js";
import { manySubscriptions, subscribe } from "../helpers/recurring.js";
import { balanceOf, send } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";
import { BATCH_SELF_CALL, batchedRenewalGas, measuredChargeGas, RENEWAL_GAS_FIGURE } from "../../src/recurring/charge-gas.js";

/**
 * Concurrent charges go out together: one chargeBatch transaction carries every charge that became
 * ready within CHARGE_BATCH_WAIT_MS, and each caller still gets its own answer, with that transaction.
 */
describe("charges batched into one transaction", function () {
  this.timeout(120_000);
  // A wide window, so the concurrent charges of a test surely meet in one batch.
  const h = useService({ CHARGE_BATCH_WAIT_MS: "400" });
  const relayer = () => h.chain.accounts[LOCAL_ROLES.relayer]!.address;
  const relayerNonce = () => h.chain.publicClient.getTransactionCount({ address: relayer() });
  const recurring = () => h.service.deployment.contracts.RecurringCharges.address;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const charge = (api: supertest.Agent, subscription: string) => api.post("/v1/charges").send({ subscription });

  it("one transaction for a wave: each caller's answer names its period and the batch's hash; CHARGED once each; recover and refund per charge", async () => {
    const subs = await manySubscriptions(h, h.api, 6);
    const nonce = await relayerNonce();
    const answers = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of answers) assert.include(a.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(a.body));
    const hashes = new Set(answers.map((a) => a.body.tx_hash as Hex));
    assert.equal(hashes.size, 1, "one transaction");
    assert.equal(await relayerNonce(), nonce + 1, "one nonce");
    const [hash] = [...hashes] as [Hex];
    const tx = await h.chain.publicClient.getTransaction({ hash });
    const call = decodeFunctionData({ abi: recurringChargesAbi, data: tx.input });
    assert.equal(call.functionName, "chargeBatch");
    const recorded = await h.database.query<{ tx_hash: string; nonce: string | number }>("SELECT tx_hash, nonce FROM charge_attempts");
    assert.lengthOf(recorded, 6, "every period the transaction carries is recorded with it");
    for (const r of recorded) assert.deepEqual([r.tx_hash, Number(r.nonce)], [hash, nonce]);

    await h.chain.mine(2);
    const settled = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of settled) assert.include(a.body, { status: "CHARGED", tx_hash: hash, period_index: 0 });
    const again = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of again) assert.include(a.body, { status: "ALREADY_CHARGED", tx_hash: hash });
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    assert.deepEqual(
      parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" })
        .map((e) => e.args.subscriptionId)
        .sort(),
      subs.map((s) => s.id).sort(),
    );

    // Recover finds each period's own Charged log in the batch; a refund names one charge of it.
    const found = (await h.api.post("/v1/charges/recover").send({ subscription: subs[3]!.subscription, period_index: 0 })).body;
    assert.include(found, { found: true, subscription_id: subs[3]!.id, tx_hash: hash, amount_units: "1000000" });
    const refund = await h.api.post("/v1/refunds/prepare").send({ tx_hash: hash, subscription: subs[4]!.subscription, period_index: 0, amount: "1000000" });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.include(refund.body, { merchant: merchant().address, original_amount_units: "1000000" });
    const other = await h.api.post("/v1/refunds/prepare").send({ tx_hash: hash, subscription: subs[4]!.subscription, period_index: 1, amount: "1" });
    assert.equal(other.body.error, "PAYMENT_MISMATCH", "the batch charged period 0 only");
  });

  it("a renewal wave's batch is priced by what each renewal touches first (one payer, one merchant: near what it spends, not the dearest case for each), and every renewal charges, even when the merchant emptied its balance", async () => {
    const subs = await manySubscriptions(h, h.api, 8);
    const first = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of first) assert.include(a.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(a.body));
    await h.chain.mine(2);
    await h.chain.advanceTime(3600);
    // The merchant moves all its USDC out: the first renewal creates its balance slot again (about
    // 17,000 gas more than the measured renewal), which the batch's margin must absorb.
    const usdc = h.chain.deployment.token.address;
    const held = await h.chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [merchant().address] });
    await send(h.chain, merchant(), {
      address: usdc,
      abi: erc20Abi,
      functionName: "transfer",
      args: [h.chain.accounts[LOCAL_ROLES.firstUser + 3]!.address, held],
    });

    const renewals = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of renewals) assert.include(a.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(a.body));
    const hashes = new Set(renewals.map((a) => a.body.tx_hash as Hex));
    assert.equal(hashes.size, 1, "one transaction");
    const [hash] = [...hashes] as [Hex];
    const tx = await h.chain.publicClient.getTransaction({ hash });
    // The measured figures (snapshots/gas.json): a renewal touching nothing new, and what a new payer and merchant add.
    const figures = batchedRenewalGas();
    // The first renewal as it costs alone (the dearest renewal measured, with its margin), plus its self-call; the other seven warm.
    const alone = (measuredChargeGas(undefined, RENEWAL_GAS_FIGURE) * 12n) / 10n;
    const priced = alone + BATCH_SELF_CALL + 7n * ((figures.warm * 12n) / 10n);
    assert.equal(tx.gas, priced);
    const dearest = 8n * (alone + BATCH_SELF_CALL);
    assert.isBelow(Number(tx.gas), Number(dearest) * 0.6, "well under pricing every renewal as if it were alone");
    // Renewals go without their signature (checked on the first charge only), as their gas was measured.
    const { args } = decodeFunctionData({ abi: recurringChargesAbi, data: tx.input });
    assert.deepEqual(
      (args[0] as readonly { signature: Hex }[]).map((item) => item.signature),
      Array(8).fill("0x"),
    );
    await h.chain.mine(1);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    assert.equal(receipt.status, "success");
    assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }), 8, "every renewal charged");
    assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" }), 0, "none skipped for gas");
    assert.isAtMost(Number(receipt.gasUsed), Number(tx.gas));
  });

  it("an item the chain skips (the payer's allowance withdrawn after the simulation) answers its own refusal; the others charge", async () => {
    const subs = await manySubscriptions(h, h.api, 3);
    const leaver = h.chain.accounts[LOCAL_ROLES.firstUser + 3]!;
    const left = await subscribe(h, leaver, { recipient: merchant().address, amount: "1" });
    await send(h.chain, leaver, { address: h.service.deployment.token.address, abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] });
    let withdrawn = false;
    const racing = await createService(configFor(h.proxy.url, { CHARGE_BATCH_WAIT_MS: "400" }), {
      now: h.clock.now,
      logger: createLogger("silent"),
      database: h.database,
      beforeBroadcast: async () => {
        // Between the simulation and the chain: the payer takes its allowance back.
        if (withdrawn) return;
        withdrawn = true;
        await send(h.chain, leaver, { address: h.service.deployment.token.address, abi: erc20Abi, functionName: "approve", args: [recurring(), 0n] });
      },
    });
    try {
      const api = supertest(racing.app);
      const answers = await Promise.all([...subs.map((s) => s.subscription), left.subscription].map((s) => charge(api, s)));
      for (const a of answers) assert.include(a.body, { status: "CONFIRMING" }, JSON.stringify(a.body));
      assert.equal(new Set(answers.map((a) => a.body.tx_hash)).size, 1);
      await h.chain.mine(2);
      const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: answers[0]!.body.tx_hash });
      assert.equal(receipt.status, "success", "the batch is mined");
      const [skipped] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" });
      assert.equal(skipped!.args.subscriptionId, left.id);

      for (const s of subs) assert.include((await charge(api, s.subscription)).body, { status: "CHARGED" });
      const refused = await charge(api, left.subscription);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" }, "the skipped item's own reason");
      assert.isNull(await new ChargeAttempts(h.database).find(left.id, 0n), "its record is gone: nothing was charged for it");
    } finally {
      await racing.close();
    }
  });

  it("a wave is simulated in a few shared trials, not a call per renewal; the renewals a trial refuses are simulated alone and answer their own refusal, the others charge once; asked again, those are simulated alone at once", async () => {
    const subs = await manySubscriptions(h, h.api, 40);
    const usdc = h.chain.deployment.token.address;
    // Two other payers, whose allowances will be gone by their renewal.
    const leavers = [h.chain.accounts[LOCAL_ROLES.firstUser + 3]!, h.chain.accounts[LOCAL_ROLES.firstUser + 4]!];
    const left = [];
    for (const leaver of leavers) {
      left.push(await subscribe(h, leaver, { recipient: merchant().address, amount: "1" }));
      await send(h.chain, leaver, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] });
    }
    const all = [...subs.slice(0, 20), left[0]!, ...subs.slice(20), left[1]!];
    const first = await Promise.all(all.map((s) => charge(h.api, s.subscription)));
    for (const a of first) assert.include(a.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(a.body));
    await h.chain.mine(2);
    await h.chain.advanceTime(3600);
    for (const leaver of leavers) await send(h.chain, leaver, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 0n] });

    h.proxy.reset();
    const renewals = await Promise.all(all.map((s) => charge(h.api, s.subscription)));
    const ethCalls = (name: "charge" | "chargeBatch") => {
      const selector = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name }));
      return h.proxy.contractCalls.filter((c) => c.method === "eth_call" && c.to === recurring().toLowerCase() && c.selector === selector).length;
    };
    for (const [i, a] of renewals.entries()) {
      if (all[i] === left[0] || all[i] === left[1]) assert.deepEqual(a.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" }, "its own refusal");
      else assert.include(a.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(a.body));
    }
    const trials = ethCalls("chargeBatch");
    const alone = ethCalls("charge");
    // Halving a group of up to 42 down to each refused renewal: about two trials per halving per refusal.
    assert.isAtMost(trials, 30, `${trials} trials for 42 charges`);
    assert.isAtLeast(trials, 1);
    // Each refused renewal is simulated alone, with and without the largest reimbursement; nothing else is.
    assert.isAtMost(alone, 4, `${alone} charges simulated alone`);
    await h.chain.mine(2);
    const logs = await h.chain.publicClient.getLogs({ address: recurring(), fromBlock: 0n, toBlock: "latest" });
    const charged = parseEventLogs({ abi: recurringChargesAbi, logs, eventName: "Charged" }).filter((e) => e.args.periodIndex === 1n);
    const ids = new Set(all.map((s) => s.id));
    const ours = charged.filter((e) => ids.has(e.args.subscriptionId));
    assert.lengthOf(ours, 40, "every renewal but the two charged");
    assert.equal(new Set(ours.map((e) => e.args.subscriptionId)).size, 40, "each once");
    for (const l of left)
      assert.notInclude(
        ours.map((e) => e.args.subscriptionId),
        l.id,
      );

    // Asked again, a renewal that failed a trial is simulated alone at once: no halving again for it.
    h.proxy.reset();
    const again = await Promise.all(left.map((l) => charge(h.api, l.subscription)));
    for (const a of again) assert.deepEqual(a.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" });
    assert.equal(ethCalls("chargeBatch"), 0, "no trial for them");
    assert.isAtMost(ethCalls("charge"), 4);
  });

  it("a trial in which no charge charged is not halved: each is simulated alone at once and answers its own refusal", async () => {
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    const usdc = h.chain.deployment.token.address;
    const subs = [];
    for (let i = 0; i < 5; i++) subs.push(await subscribe(h, payer, { recipient: merchant().address, amount: "1" }));
    await send(h.chain, payer, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] });
    for (const a of await Promise.all(subs.map((s) => charge(h.api, s.subscription)))) assert.include(a.body, { status: "CONFIRMING" });
    await h.chain.mine(2);
    await h.chain.advanceTime(3600);
    await send(h.chain, payer, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 0n] });
    h.proxy.reset();
    const refused = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of refused) assert.deepEqual(a.body, { error: "INSUFFICIENT_ALLOWANCE", action: "ASK_PAYER" });
    const selector = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "chargeBatch" }));
    const trials = h.proxy.contractCalls.filter((c) => c.method === "eth_call" && c.to === recurring().toLowerCase() && c.selector === selector).length;
    // One trial for the five (two if they reached it in two turns); halving them would take nine.
    assert.isAtMost(trials, 2, `${trials} trials`);
  });

  it("a payer whose funds cover each charge apart but not together: the trial's halves pass, the payer's charges are then simulated alone; the chain skips what the funds do not cover", async () => {
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser + 6]!;
    const usdc = h.chain.deployment.token.address;
    const a = await subscribe(h, payer, { recipient: merchant().address, amount: "1" });
    const b = await subscribe(h, payer, { recipient: merchant().address, amount: "1" });
    await send(h.chain, payer, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] });
    for (const r of await Promise.all([a, b].map((s) => charge(h.api, s.subscription)))) assert.include(r.body, { status: "CONFIRMING" });
    await h.chain.mine(2);
    await h.chain.advanceTime(3600);
    // Enough for one renewal of 1 USDC, not two.
    await send(h.chain, payer, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 1_500_000n] });
    const selector = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "chargeBatch" }));
    const trials = () => h.proxy.contractCalls.filter((c) => c.method === "eth_call" && c.to === recurring().toLowerCase() && c.selector === selector).length;
    h.proxy.reset();
    // Both charges started in one tick share one chain view, so they reach the trial in one turn of
    // the event loop (two HTTP requests may be parsed a turn apart on a loaded machine, and each
    // tried alone): the pair's trial, then each half's.
    const answers = await Promise.all([a, b].map((s) => h.service.charges.charge(s.subscription)));
    for (const r of answers) assert.include(r, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(r));
    assert.equal(trials(), 3, "the pair, then each alone");
    await h.chain.mine(2);
    const settled = (await Promise.all([a, b].map((s) => charge(h.api, s.subscription)))).map((r) => r.body.status ?? r.body.error).sort();
    assert.deepEqual(settled, ["CHARGED", "INSUFFICIENT_ALLOWANCE"], "the chain charged what the funds covered, once");

    // The next period: the payer's charges are no longer tried, whatever its funds.
    await h.chain.advanceTime(3600);
    h.clock.advance(2 * 3600);
    await send(h.chain, payer, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] });
    h.proxy.reset();
    const next = await Promise.all([a, b].map((s) => charge(h.api, s.subscription)));
    for (const r of next) assert.include(r.body, { status: "CONFIRMING", period_index: 2 }, JSON.stringify(r.body));
    assert.equal(trials(), 0, "kept out of the trials");
  });

  it("a payer that is the recipient of another charge in flight is tried in another group, never on that income", async () => {
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
    const shop = h.chain.accounts[LOCAL_ROLES.firstUser + 8]!;
    const usdc = h.chain.deployment.token.address;
    // The shop is paid by the payer, and itself pays the merchant.
    const toShop = await subscribe(h, payer, { recipient: shop.address, amount: "1" });
    const fromShop = await subscribe(h, shop, { recipient: merchant().address, amount: "1" });
    for (const who of [payer, shop]) await send(h.chain, who, { address: usdc, abi: erc20Abi, functionName: "approve", args: [recurring(), 10n ** 12n] });
    for (const r of await Promise.all([toShop, fromShop].map((s) => charge(h.api, s.subscription)))) assert.include(r.body, { status: "CONFIRMING" });
    await h.chain.mine(2);
    await h.chain.advanceTime(3600);
    h.proxy.reset();
    const answers = await Promise.all([toShop, fromShop].map((s) => charge(h.api, s.subscription)));
    for (const r of answers) assert.include(r.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(r.body));
    const selector = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "chargeBatch" }));
    const trials = h.proxy.contractCalls.filter((c) => c.method === "eth_call" && c.to === recurring().toLowerCase() && c.selector === selector);
    assert.lengthOf(trials, 2, "one trial each");
  });

  it("a stuck batch is replaced once for all its periods (same nonce, same call, a higher fee), and each follows the replacement to CHARGED", async () => {
    const subs = await manySubscriptions(h, h.api, 3);
    const nonce = await relayerNonce();
    await h.chain.testClient.setAutomine(false);
    let first: Hex;
    try {
      const answers = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
      first = answers[0]!.body.tx_hash;
      for (const a of answers) assert.include(a.body, { status: "CONFIRMING", tx_hash: first });
      h.clock.advance(61);
      assert.equal(await h.service.stuckCharges.replaceStuck(60), 1, "one replacement for the one transaction");
      const attempts = await Promise.all(subs.map((s) => new ChargeAttempts(h.database).find(s.id, 0n)));
      const replacement = attempts[0]!.txHash;
      for (const a of attempts) assert.deepEqual(a!.txHashes, [first, replacement]);
      const replaced = parseTransaction(attempts[0]!.rawTx);
      assert.equal(replaced.nonce, nonce, "the same nonce");
      assert.equal(decodeFunctionData({ abi: recurringChargesAbi, data: replaced.data! }).functionName, "chargeBatch");
      assert.lengthOf(decodeFunctionData({ abi: recurringChargesAbi, data: replaced.data! }).args[0] as unknown[], 3, "the same three charges");
    } finally {
      await h.chain.testClient.setAutomine(true);
    }
    await h.chain.mine(3);
    const replacement = (await new ChargeAttempts(h.database).find(subs[0]!.id, 0n))!.txHash;
    assert.notEqual(replacement, first!);
    for (const s of subs) assert.include((await charge(h.api, s.subscription)).body, { status: "CHARGED", tx_hash: replacement });
    assert.equal(await relayerNonce(), nonce + 1);
  });
});

/**
 * Issue 28: a contract payer whose ERC-1271 check passes the service's simulation and estimate and
 * burns gas on chain cannot take a batch's gas (the contract caps its check, and the batch sets the
 * cap aside for it), and cannot make the relayer pay for it again (refused for a while).
 */
describe("a batch a payer cannot burn", function () {
  this.timeout(300_000);
  // The longest wait, so that the 50 concurrent charges (first charges: simulated and estimated each)
  // meet in one batch.
  const h = useService({ CHARGE_BATCH_WAIT_MS: "2000" });
  const relayer = () => h.chain.accounts[LOCAL_ROLES.relayer]!.address;
  const relayerNonce = (blockTag: "latest" | "pending" = "latest") => h.chain.publicClient.getTransactionCount({ address: relayer(), blockTag });
  const charge = (subscription: string) => h.api.post("/v1/charges").send({ subscription });

  it("a batch of 50 with one gas-burning ERC-1271 payer charges the other 49; the burner's next charges are refused without sending anything", async () => {
    const usdc = h.service.deployment.token.address;
    const { burner, hostile } = await burnerSubscription(h);
    const others = await manySubscriptions(h, h.api, 49);

    const nonce = await relayerNonce();
    // A block that holds 16 batches of 50 first charges, so the 50 go as one (a batch is sized to a
    // sixteenth of the block: batch-size.ts).
    const blockGasLimit = (await h.chain.publicClient.getBlock()).gasLimit;
    await h.chain.testClient.setBlockGasLimit({ gasLimit: 200_000_000n });
    await h.chain.mine(1); // the latest block, which the charges read, has it
    const answers = await Promise.all([hostile, ...others].map((s) => charge(s.subscription))).finally(() =>
      h.chain.testClient.setBlockGasLimit({ gasLimit: blockGasLimit }),
    );
    for (const a of answers) assert.include(a.body, { status: "CONFIRMING", period_index: 0 }, JSON.stringify(a.body));
    const hashes = new Set(answers.map((a) => a.body.tx_hash as Hex));
    assert.equal(hashes.size, 1, "one batch of 50");
    const [hash] = [...hashes] as [Hex];
    const tx = await h.chain.publicClient.getTransaction({ hash });
    const call = decodeFunctionData({ abi: recurringChargesAbi, data: tx.input });
    assert.equal(call.functionName, "chargeBatch");
    assert.lengthOf(call.args[0] as unknown[], 50);

    await h.chain.mine(2);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    assert.equal(receipt.status, "success");
    assert.isAtMost(Number(receipt.gasUsed), Number(tx.gas));
    const skipped = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" });
    assert.deepEqual(
      skipped.map((e) => [
        e.args.subscriptionId,
        e.args.reason === "0x" ? "out of gas" : decodeErrorResult({ abi: recurringChargesAbi, data: e.args.reason }).errorName,
      ]),
      [[hostile.id, "InvalidSignature"]],
      "the burner alone is skipped, for its check",
    );
    assert.deepEqual(
      parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" })
        .map((e) => e.args.subscriptionId)
        .sort(),
      others.map((s) => s.id).sort(),
      "the other 49 are charged",
    );
    for (const s of others) assert.include((await charge(s.subscription)).body, { status: "CHARGED", tx_hash: hash });

    // The burner asks again: its record answers (the chain's reason), and it is refused from now on.
    const sent = await relayerNonce("pending");
    const first = await charge(hostile.subscription);
    assert.equal(first.status, 400);
    assert.deepEqual(first.body, { error: "INVALID_SIGNATURE", action: "ASK_PAYER" });
    const again = await charge(hostile.subscription);
    assert.equal(again.status, 400, JSON.stringify(again.body));
    assert.include(again.body, { error: "TRANSACTION_REVERTED", action: "RETRY" });
    assert.isAbove(Number(again.body.retry_after), 3500, "refused for about an hour");
    assert.equal(again.headers["retry-after"], String(again.body.retry_after));
    assert.equal(await relayerNonce("pending"), sent, "nothing sent for the burner");
    assert.equal(await relayerNonce(), nonce + 1, "one transaction in all");
    assert.equal(await balanceOf(h.chain, usdc, burner), 100_000_000n, "the burner paid nothing");
    // An hour later its charges are simulated and sent again (the chain refuses them again, once).
    h.clock.advance(3601);
    const later = await charge(hostile.subscription);
    assert.include(later.body, { status: "CONFIRMING" }, JSON.stringify(later.body));
  });

  it("alone, the burner's charge reverts at the limit the service gave it; the next ask answers TRANSACTION_REVERTED and the burner is refused, nothing sent", async () => {
    const { hostile } = await burnerSubscription(h);

    const sentFirst = await charge(hostile.subscription);
    assert.include(sentFirst.body, { status: "CONFIRMING" }, JSON.stringify(sentFirst.body));
    const hash = sentFirst.body.tx_hash as Hex;
    const tx = await h.chain.publicClient.getTransaction({ hash });
    assert.equal(decodeFunctionData({ abi: recurringChargesAbi, data: tx.input }).functionName, "charge", "sent alone");
    await h.chain.mine(2);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    assert.equal(receipt.status, "reverted");
    assert.isAtMost(Number(receipt.gasUsed), Number(tx.gas), "the relayer paid at most the limit it set from the estimate");

    const pending = await relayerNonce("pending");
    const followed = await charge(hostile.subscription);
    assert.equal(followed.status, 400);
    assert.include(followed.body, { error: "TRANSACTION_REVERTED", action: "RETRY" });
    const refused = await charge(hostile.subscription);
    assert.include(refused.body, { error: "TRANSACTION_REVERTED", action: "RETRY" });
    assert.isAbove(Number(refused.body.retry_after), 3500);
    assert.equal(await relayerNonce("pending"), pending, "nothing sent after the revert");
  });

  it("a batch of two led by the burner: the cap the batch sets aside for it leaves the charge after it its gas", async () => {
    // The margins of two first charges (20% of their estimates) could not absorb the burner's 200,000.
    const { receipt } = await batchLedByBurner(h);
    assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }), 1, "the charge after it charged");
  });
});

/**
 * Issue 35: the room a batch sets aside for a contract payer's check is the contract's own cap
 * (200,000), whatever the SIGNATURE_GAS_CAP setting says: a setting below it narrows finalize's
 * eth_call only, and the chain still lets the check run to the contract's cap.
 */
describe("a batch a payer cannot burn, under a low SIGNATURE_GAS_CAP setting", function () {
  this.timeout(300_000);
  // Enough for the burner's check in finalize's eth_call (it answers cheaply there), far below the contract's cap.
  const h = useService({ CHARGE_BATCH_WAIT_MS: "2000", SIGNATURE_GAS_CAP: "30000" });

  it("a batch of two led by the burner still leaves the charge after it its gas", async () => {
    const { receipt, others } = await batchLedByBurner(h);
    assert.equal(receipt.status, "success");
    assert.deepEqual(
      parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }).map((e) => e.args.subscriptionId),
      others.map((s) => s.id),
      "the charge after it charged",
    );
  });
});

/**
 * A gas-burning ERC-1271 account (GasBurningAccount: it answers every simulation correctly, so
 * finalize's own check passes) holding 100 USDC with the allowance set, subscribed for 1 USDC.
 */
async function burnerSubscription(h: ServiceHarness) {
  const usdc = h.service.deployment.token.address;
  const recurring = h.service.deployment.contracts.RecurringCharges.address;
  const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 3]!;
  const burner = await deployTestContract(h.chain, owner, gasBurningAccountAbi, "GasBurningAccount", "GasBurningAccount.sol", [owner.address]);
  await send(h.chain, h.chain.accounts[LOCAL_ROLES.firstUser]!, { address: usdc, abi: erc20Abi, functionName: "transfer", args: [burner, 100_000_000n] });
  const approveData = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [recurring, 10n ** 12n] });
  await send(h.chain, owner, { address: burner, abi: gasBurningAccountAbi, functionName: "execute", args: [usdc, 0n, approveData] });
  const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  return { burner, hostile: await subscribe(h, owner, { payer: burner, recipient: merchant.address, amount: "1" }) };
}

/**
 * The burner's charge and another's at once: one batch of two, the burner's first (every other item
 * comes after its check), mined; its item skipped as InvalidSignature. The batch's receipt, and the
 * other subscription.
 */
async function batchLedByBurner(h: ServiceHarness) {
  const { burner, hostile } = await burnerSubscription(h);
  const others = await manySubscriptions(h, h.api, 1);
  const answers = await Promise.all([hostile, ...others].map((s) => h.api.post("/v1/charges").send({ subscription: s.subscription })));
  for (const a of answers) assert.include(a.body, { status: "CONFIRMING" }, JSON.stringify(a.body));
  const [hash] = [...new Set(answers.map((a) => a.body.tx_hash as Hex))] as [Hex];
  const tx = await h.chain.publicClient.getTransaction({ hash });
  const items = decodeFunctionData({ abi: recurringChargesAbi, data: tx.input }).args[0] as readonly { terms: { payer: string } }[];
  assert.lengthOf(items, 2, "one batch");
  assert.equal(items[0]!.terms.payer, burner, "the burner first: every other item comes after its check");
  await h.chain.mine(2);
  const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
  const skipped = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" });
  assert.deepEqual(
    skipped.map((e) => [
      Number(e.args.index),
      e.args.reason === "0x" ? "out of gas" : decodeErrorResult({ abi: recurringChargesAbi, data: e.args.reason }).errorName,
    ]),
    [[0, "InvalidSignature"]],
  );
  return { receipt, others };
}
