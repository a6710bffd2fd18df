import { assert } from "chai";
import { concat, decodeErrorResult, encodeFunctionData, getContract, hexToBytes, parseEventLogs, size, slice, zeroAddress, type Hex } from "viem";
import {
  recurringChargesAbi,
  testSmartAccountAbi,
  testMultisigAccountAbi,
  fiatTokenAbi,
  gasBurningAccountAbi,
  gasProbeAbi,
} from "../../src/generated/contracts.js";
import { LOCAL_ROLES, LOCAL_USDC_UNITS, localAccount } from "../../dev/localchain/harness.js";
import { subscriptionIdOf, type Terms } from "../../src/recurring/terms.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { expectRevert } from "../helpers/reverts.js";
import { approve, balanceOf, send } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";
import { CONTRACT_SIGNATURE_GAS_CAP } from "../../src/chain/contracts/recurring-charges.js";
import { batchedRenewalGas, batchGasLimit, measuredChargeGas, RENEWAL_GAS_FIGURE } from "../../src/recurring/charge-gas.js";
import { chargeAsRelayer, currentPeriod, makeTerms, relayerOf, signTerms, wrap6492 } from "../helpers/subscriptions.js";

/** ERC-6492's magic suffix, which ends every wrapped (counterfactual) signature. */
const ERC6492_SUFFIX: Hex = "0x6492649264926492649264926492649264926492649264926492649264926492";

describe("RecurringCharges", () => {
  const local = useLocalChain();
  const ctx = () => {
    const chain = local.chain;
    return {
      chain,
      recurring: chain.deployment.contracts.RecurringCharges.address,
      usdc: chain.deployment.token.address,
      collector: chain.deployment.parameters.feeCollector,
      payer: chain.accounts[LOCAL_ROLES.firstUser]!,
      merchant: chain.accounts[LOCAL_ROLES.firstUser + 1]!,
      other: chain.accounts[LOCAL_ROLES.firstUser + 2]!,
    };
  };
  /** The contract's reads, typed by the generated ABI (names, arguments and results checked). */
  const reads = (c: ReturnType<typeof ctx>) => getContract({ address: c.recurring, abi: recurringChargesAbi, client: c.chain.publicClient }).read;
  const chargeCall = async (c: ReturnType<typeof ctx>, terms: Terms, signature: Hex, reimbursement = 0n, from = relayerOf(c.chain), period?: bigint) =>
    c.chain.wallet(from).writeContract({
      address: c.recurring,
      abi: recurringChargesAbi,
      functionName: "charge",
      args: [terms, signature, reimbursement, period ?? (await currentPeriod(c.chain, terms))],
      account: from,
      chain: c.chain.chain,
    });

  async function signedAndApproved(c: ReturnType<typeof ctx>, overrides: Partial<Terms> = {}) {
    const terms = await makeTerms(c.chain, c.payer.address, c.merchant.address, overrides);
    const signature = await signTerms(c.chain, c.payer, terms);
    await approve(c.chain, c.payer, c.usdc, c.recurring, 10n ** 12n);
    return { terms, signature, id: subscriptionIdOf(84532, c.recurring, terms) };
  }

  it("takes the EIP-712 digest of the terms as the subscription id", async () => {
    const c = ctx();
    const terms = await makeTerms(c.chain, c.payer.address, c.merchant.address);
    assert.equal(await reads(c).subscriptionId([terms]), subscriptionIdOf(84532, c.recurring, terms));
  });

  it("charges the first period: payer pays amount + reimbursement, recipient gets amount - fee - network fee", async () => {
    const c = ctx();
    const { terms, signature, id } = await signedAndApproved(c);
    const before = await Promise.all([c.payer.address, c.merchant.address, c.collector].map((a) => balanceOf(c.chain, c.usdc, a)));
    const receipt = await chargeAsRelayer(c.chain, terms, signature, 30_000n);
    const after = await Promise.all([c.payer.address, c.merchant.address, c.collector].map((a) => balanceOf(c.chain, c.usdc, a)));
    const fee = (terms.amount * 200n) / 10_000n;
    const net = terms.amount - fee - 100_000n;
    assert.equal(before[0]! - after[0]!, terms.amount + 30_000n);
    assert.equal(after[1]! - before[1]!, net);
    assert.equal(after[2]! - before[2]!, fee + 100_000n + 30_000n);
    assert.equal(await balanceOf(c.chain, c.usdc, c.recurring), 0n);
    const [charged] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
    assert.deepEqual(charged!.args, {
      subscriptionId: id,
      periodIndex: 0n,
      payer: c.payer.address,
      recipient: c.merchant.address,
      token: c.usdc,
      amount: terms.amount,
      net,
      fee,
      networkFee: 100_000n,
      gasReimbursement: 30_000n,
    });
    assert.deepEqual(await reads(c).subscriptions([id]), [0n, 1, false]);
    assert.equal(await reads(c).chargedBlock([id, 0n]), receipt.blockNumber);
  });

  it("charges at most once per period, then again in the next period without re-checking the signature", async () => {
    const c = ctx();
    const { terms, signature, id } = await signedAndApproved(c);
    const first = await chargeAsRelayer(c.chain, terms, signature);
    await expectRevert(chargeCall(c, terms, signature), "PeriodAlreadyCharged", [id, 0n, first.blockNumber]);
    await c.chain.advanceTime(terms.period);
    await chargeAsRelayer(c.chain, terms, "0x"); // no signature needed once recorded
    assert.deepEqual(await reads(c).subscriptions([id]), [1n, 2, false]);
    await expectRevert(chargeCall(c, terms, "0x"), "PeriodAlreadyCharged");
    // Skipped periods stay unpaid: three periods later the charge is for period 4.
    await c.chain.advanceTime(terms.period * 3n);
    await chargeAsRelayer(c.chain, terms, "0x");
    assert.deepEqual(await reads(c).subscriptions([id]), [4n, 3, false]);
    assert.equal(await reads(c).chargedBlock([id, 2n]), 0n);
  });

  it("keeps every period's record across packed record slots (six per slot): each period once, its own block, neighbours intact", async () => {
    const c = ctx();
    const { terms, signature, id } = await signedAndApproved(c, { maxGasReimbursement: 0n });
    const blocks: bigint[] = [];
    for (let period = 0n; period < 14n; period++) {
      if (period === 3n || period === 8n) {
        blocks.push(0n); // skipped
      } else {
        blocks.push((await chargeAsRelayer(c.chain, terms, period === 0n ? signature : "0x")).blockNumber);
        await expectRevert(chargeCall(c, terms, "0x"), "PeriodAlreadyCharged", [id, period, blocks[Number(period)]]);
      }
      await c.chain.advanceTime(terms.period);
    }
    for (const [period, block] of blocks.entries()) assert.equal(await reads(c).chargedBlock([id, BigInt(period)]), block, `period ${period}`);
    assert.equal(await reads(c).chargedBlock([id, 14n]), 0n);
    assert.deepEqual(await reads(c).subscriptions([id]), [13n, 12, false]);
  });

  it("a record keeps the whole block number: charged past block 2^32, the six periods of a slot and the next slot's first each read back their own block", async () => {
    const c = ctx();
    await c.chain.mine(2 ** 32);
    const { terms, signature, id } = await signedAndApproved(c, { maxGasReimbursement: 0n });
    const blocks: bigint[] = [];
    for (let period = 0n; period < 7n; period++) {
      blocks.push((await chargeAsRelayer(c.chain, terms, period === 0n ? signature : "0x")).blockNumber);
      await c.chain.advanceTime(terms.period);
    }
    assert.isTrue(blocks[0]! > 2n ** 32n, `charged in block ${blocks[0]}, past 2^32`);
    for (const [period, block] of blocks.entries()) assert.equal(await reads(c).chargedBlock([id, BigInt(period)]), block, `period ${period}`);
  });

  it("refuses a charge before start (ChargeBeforeStart) and at or after end (SubscriptionEnded)", async () => {
    const c = ctx();
    const now = (await c.chain.publicClient.getBlock()).timestamp;
    const early = await signedAndApproved(c, { start: now + 1000n });
    const args = await expectRevert(chargeCall(c, early.terms, early.signature), "ChargeBeforeStart");
    assert.equal(args[1], now + 1000n);
    const ending = await signedAndApproved(c, { start: now, end: now + 100n, period: 50n });
    await chargeAsRelayer(c.chain, ending.terms, ending.signature);
    await c.chain.advanceTime(100n);
    const ended = await expectRevert(chargeCall(c, ending.terms, "0x"), "SubscriptionEnded");
    assert.equal(ended[1], now + 100n);
  });

  describe("the period named is the period charged", () => {
    /**
     * A charge sent for period `meant` whose block comes at `minedAt` seconds after the start: sent
     * with a fixed gas limit, so it is mined like a transaction that waited in the pool.
     */
    async function mineChargeAt(c: ReturnType<typeof ctx>, terms: Terms, signature: Hex, meant: bigint, minedAt: bigint) {
      await c.chain.testClient.setNextBlockTimestamp({ timestamp: terms.start + minedAt });
      const relayer = relayerOf(c.chain);
      const hash = await c.chain.wallet(relayer).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "charge",
        args: [terms, signature, 0n, meant],
        account: relayer,
        chain: c.chain.chain,
        gas: 500_000n,
      });
      return c.chain.publicClient.waitForTransactionReceipt({ hash });
    }

    it("a middle period: sent in p, mined in p+1, it reverts (PeriodMismatch(p, p+1)) and charges nothing; p+1 is then charged by its own charge", async () => {
      const c = ctx();
      // An hour ahead: the setup below mines blocks, and a fork's blocks follow the wall clock.
      const start = (await c.chain.publicClient.getBlock()).timestamp + 3600n;
      const { terms, signature, id } = await signedAndApproved(c, { start, period: 3600n });
      assert.equal((await mineChargeAt(c, terms, signature, 0n, 5n)).status, "success");
      const before = await balanceOf(c.chain, c.usdc, c.payer.address);
      // Meant for period 1, mined in the first second of period 2.
      const late = await mineChargeAt(c, terms, "0x", 1n, 2n * 3600n);
      assert.equal(late.status, "reverted");
      assert.equal(await balanceOf(c.chain, c.usdc, c.payer.address), before, "nothing charged");
      assert.equal(await reads(c).chargedBlock([id, 1n]), 0n);
      assert.equal(await reads(c).chargedBlock([id, 2n]), 0n, "period 2 is not taken by a charge meant for period 1");
      await c.chain.testClient.setNextBlockTimestamp({ timestamp: start + 2n * 3600n + 10n });
      await expectRevert(chargeCall(c, terms, "0x", 0n, relayerOf(c.chain), 1n), "PeriodMismatch", [1n, 2n]);
      const own = await mineChargeAt(c, terms, "0x", 2n, 2n * 3600n + 20n);
      const [charged] = parseEventLogs({ abi: recurringChargesAbi, logs: own.logs, eventName: "Charged" });
      assert.equal(charged!.args.periodIndex, 2n);
    });

    it("start and end at the second: mined at start charges period 0, a second before is ChargeBeforeStart; the end's last second charges, the end itself is SubscriptionEnded", async () => {
      const c = ctx();
      const start = (await c.chain.publicClient.getBlock()).timestamp + 3600n;
      const end = start + 2n * 3600n;
      const { terms, signature, id } = await signedAndApproved(c, { start, period: 3600n, end });
      await c.chain.testClient.setNextBlockTimestamp({ timestamp: start - 1n });
      await expectRevert(chargeCall(c, terms, signature, 0n, relayerOf(c.chain), 0n), "ChargeBeforeStart", [start - 1n, start]);
      const first = await mineChargeAt(c, terms, signature, 0n, 0n);
      assert.equal(first.status, "success", "the start's own second is in period 0");
      assert.equal(await reads(c).chargedBlock([id, 0n]), first.blockNumber);
      const last = await mineChargeAt(c, terms, "0x", 1n, end - start - 1n);
      assert.equal(last.status, "success", "the second before the end is still in the last period");
      // The end begins no period: named as period 2, a charge there is refused as ended, not charged.
      await c.chain.testClient.setNextBlockTimestamp({ timestamp: end });
      await expectRevert(chargeCall(c, terms, "0x", 0n, relayerOf(c.chain), 2n), "SubscriptionEnded", [end, end]);
      assert.equal(await reads(c).chargedBlock([id, 2n]), 0n);
    });

    it("the last period: sent in it, mined at or after the end, it reverts (SubscriptionEnded) and charges nothing", async () => {
      const c = ctx();
      // An hour ahead: the setup below mines blocks, and a fork's blocks follow the wall clock.
      const start = (await c.chain.publicClient.getBlock()).timestamp + 3600n;
      const { terms, signature, id } = await signedAndApproved(c, { start, period: 3600n, end: start + 2n * 3600n });
      assert.equal((await mineChargeAt(c, terms, signature, 0n, 5n)).status, "success");
      const before = await balanceOf(c.chain, c.usdc, c.payer.address);
      const late = await mineChargeAt(c, terms, "0x", 1n, 2n * 3600n);
      assert.equal(late.status, "reverted");
      assert.equal(await balanceOf(c.chain, c.usdc, c.payer.address), before);
      assert.equal(await reads(c).chargedBlock([id, 1n]), 0n);
      await c.chain.testClient.setNextBlockTimestamp({ timestamp: start + 2n * 3600n + 10n });
      await expectRevert(chargeCall(c, terms, "0x", 0n, relayerOf(c.chain), 1n), "SubscriptionEnded");
    });
  });

  it("lets only the payer revoke, before or after the first charge; every later charge reverts", async () => {
    const c = ctx();
    const { terms, signature, id } = await signedAndApproved(c);
    await expectRevert(
      c.chain
        .wallet(c.other)
        .writeContract({ address: c.recurring, abi: recurringChargesAbi, functionName: "revoke", args: [terms], account: c.other, chain: c.chain.chain }),
      "NotPayer",
      [c.other.address, c.payer.address],
    );
    await chargeAsRelayer(c.chain, terms, signature);
    const receipt = await send(c.chain, c.payer, { address: c.recurring, abi: recurringChargesAbi, functionName: "revoke", args: [terms] });
    const [revoked] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Revoked" });
    assert.deepEqual(revoked!.args, { subscriptionId: id, payer: c.payer.address });
    await c.chain.advanceTime(terms.period);
    await expectRevert(chargeCall(c, terms, signature), "SubscriptionRevoked", [id]);

    const pending = await signedAndApproved(c, { amount: 2_000_000n });
    await send(c.chain, c.payer, { address: c.recurring, abi: recurringChargesAbi, functionName: "revoke", args: [pending.terms] });
    await expectRevert(chargeCall(c, pending.terms, pending.signature), "SubscriptionRevoked", [pending.id]);
  });

  it("lets only configured relayers charge; only the owner configures them", async () => {
    const c = ctx();
    const { terms, signature } = await signedAndApproved(c);
    await expectRevert(chargeCall(c, terms, signature, 0n, c.other), "NotRelayer", [c.other.address]);
    await expectRevert(
      c.chain.wallet(c.other).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "setRelayer",
        args: [c.other.address, true],
        account: c.other,
        chain: c.chain.chain,
      }),
      "OwnableUnauthorizedAccount",
      [c.other.address],
    );
    assert.equal(await reads(c).isRelayer([relayerOf(c.chain).address]), true);
  });

  it("caps the gas reimbursement at the signed maximum", async () => {
    const c = ctx();
    const { terms, signature } = await signedAndApproved(c);
    await expectRevert(chargeCall(c, terms, signature, terms.maxGasReimbursement + 1n), "ReimbursementOverCap", [
      terms.maxGasReimbursement + 1n,
      terms.maxGasReimbursement,
    ]);
    await chargeAsRelayer(c.chain, terms, signature, terms.maxGasReimbursement);
  });

  it("refuses a signature by anyone but the payer, and terms changed after signing", async () => {
    const c = ctx();
    const { terms } = await signedAndApproved(c);
    const byOther = await signTerms(c.chain, c.other, terms);
    await expectRevert(chargeCall(c, terms, byOther), "InvalidSignature", [c.payer.address]);
    const signature = await signTerms(c.chain, c.payer, terms);
    await expectRevert(chargeCall(c, { ...terms, amount: terms.amount * 2n }, signature), "InvalidSignature", [c.payer.address]);
    await expectRevert(chargeCall(c, { ...terms, recipient: c.other.address }, signature), "InvalidSignature", [c.payer.address]);
  });

  it("refuses an ERC-6492 wrapped signature", async () => {
    const c = ctx();
    const { terms, signature } = await signedAndApproved(c);
    await expectRevert(chargeCall(c, terms, wrap6492(signature, c.other.address)), "UnsupportedSignatureFormat", []);
    // The suffix alone, 32 bytes, is the shortest wrapper: refused as one. One byte shorter it is no wrapper, only a bad signature.
    await expectRevert(chargeCall(c, terms, ERC6492_SUFFIX), "UnsupportedSignatureFormat", []);
    await expectRevert(chargeCall(c, terms, slice(ERC6492_SUFFIX, 1)), "InvalidSignature", [c.payer.address]);
  });

  it("refuses terms whose fees differ from the deployment's, or that leave nothing for the recipient", async () => {
    const c = ctx();
    const lowFee = await signedAndApproved(c, { feeBps: 100 });
    await expectRevert(chargeCall(c, lowFee.terms, lowFee.signature), "FeeTermsMismatch", [100, 100_000n]);
    const noNetworkFee = await signedAndApproved(c, { networkFee: 0n });
    await expectRevert(chargeCall(c, noNetworkFee.terms, noNetworkFee.signature), "FeeTermsMismatch", [200, 0n]);
    // 0.102040: fee 2040 + network fee 100000 leaves 0 → refused. 0.102041 is the floor: net 1 unit.
    const below = await signedAndApproved(c, { amount: 102_040n });
    await expectRevert(chargeCall(c, below.terms, below.signature), "AmountBelowFees", [102_040n, 2_040n, 100_000n]);
    const floor = await signedAndApproved(c, { amount: 102_041n });
    const before = await balanceOf(c.chain, c.usdc, c.merchant.address);
    await chargeAsRelayer(c.chain, floor.terms, floor.signature);
    assert.equal((await balanceOf(c.chain, c.usdc, c.merchant.address)) - before, 1n);
    const zeroPeriod = await signedAndApproved(c, { period: 0n });
    await expectRevert(chargeCall(c, zeroPeriod.terms, zeroPeriod.signature), "InvalidTerms", []);
    const noRecipient = await signedAndApproved(c, { recipient: zeroAddress });
    await expectRevert(chargeCall(c, noRecipient.terms, noRecipient.signature), "InvalidTerms", []);
  });

  it("charges a payer who approved and holds exactly what the charge pulls (amount + reimbursement), to the unit", async () => {
    const c = ctx();
    const terms = await makeTerms(c.chain, c.payer.address, c.merchant.address);
    const signature = await signTerms(c.chain, c.payer, terms);
    const reimbursement = 7n;
    const pulled = terms.amount + reimbursement;
    await approve(c.chain, c.payer, c.usdc, c.recurring, pulled);
    const held = await balanceOf(c.chain, c.usdc, c.payer.address);
    await send(c.chain, c.payer, { address: c.usdc, abi: fiatTokenAbi, functionName: "transfer", args: [c.other.address, held - pulled] });
    const receipt = await chargeAsRelayer(c.chain, terms, signature, reimbursement);
    assert.equal(receipt.status, "success");
    assert.equal(await balanceOf(c.chain, c.usdc, c.payer.address), 0n);
    assert.equal(
      await c.chain.publicClient.readContract({ address: c.usdc, abi: fiatTokenAbi, functionName: "allowance", args: [c.payer.address, c.recurring] }),
      0n,
    );
  });

  it("names a missing allowance and a missing balance distinctly", async () => {
    const c = ctx();
    const terms = await makeTerms(c.chain, c.payer.address, c.merchant.address);
    const signature = await signTerms(c.chain, c.payer, terms);
    await approve(c.chain, c.payer, c.usdc, c.recurring, terms.amount - 1n);
    await expectRevert(chargeCall(c, terms, signature, 0n), "InsufficientAllowance", [c.payer.address, terms.amount - 1n, terms.amount]);
    await approve(c.chain, c.payer, c.usdc, c.recurring, terms.amount + 10n);
    await expectRevert(chargeCall(c, terms, signature, 20n), "InsufficientAllowance", [c.payer.address, terms.amount + 10n, terms.amount + 20n]);
    // Balance: move almost everything away.
    await send(c.chain, c.payer, { address: c.usdc, abi: fiatTokenAbi, functionName: "transfer", args: [c.other.address, LOCAL_USDC_UNITS - 5n] });
    await expectRevert(chargeCall(c, terms, signature, 0n), "InsufficientBalance", [c.payer.address, 5n, terms.amount]);
  });

  describe("with an ERC-1271 contract account as payer", () => {
    it("verifies the owner's signature through isValidSignature, charges, and lets the account revoke", async () => {
      const c = ctx();
      const account = await deployTestContract(c.chain, c.payer, testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [c.payer.address]);
      await send(c.chain, c.payer, { address: c.usdc, abi: fiatTokenAbi, functionName: "transfer", args: [account, 100_000_000n] });
      const terms = await makeTerms(c.chain, account, c.merchant.address);
      const approveData = encodeFunctionData({ abi: fiatTokenAbi, functionName: "approve", args: [c.recurring, 10n ** 12n] });
      await send(c.chain, c.payer, { address: account, abi: testSmartAccountAbi, functionName: "execute", args: [c.usdc, 0n, approveData] });

      const wrongSigner = await signTerms(c.chain, c.other, terms);
      await expectRevert(chargeCall(c, terms, wrongSigner), "InvalidSignature", [account]);
      const signature = await signTerms(c.chain, c.payer, terms); // the owner signs the digest
      const receipt = await chargeAsRelayer(c.chain, terms, signature);
      const [charged] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
      assert.equal(charged!.args.payer, account);
      assert.equal(await balanceOf(c.chain, c.usdc, account), 100_000_000n - terms.amount);

      const revokeData = encodeFunctionData({ abi: recurringChargesAbi, functionName: "revoke", args: [terms] });
      await send(c.chain, c.payer, { address: account, abi: testSmartAccountAbi, functionName: "execute", args: [c.recurring, 0n, revokeData] });
      await c.chain.advanceTime(terms.period);
      await expectRevert(chargeCall(c, terms, signature), "SubscriptionRevoked");
    });

    it("a strict multisig (two owners' signatures, 130 bytes; the hash, the ABI offset and the call's exact length checked) is charged its first period; a stranger's second signature is InvalidSignature", async () => {
      const c = ctx();
      const account = await deployTestContract(c.chain, c.payer, testMultisigAccountAbi, "TestMultisigAccount", "TestMultisigAccount.sol", [
        c.payer.address,
        c.other.address,
      ]);
      await send(c.chain, c.payer, { address: c.usdc, abi: fiatTokenAbi, functionName: "transfer", args: [account, 100_000_000n] });
      const approveData = encodeFunctionData({ abi: fiatTokenAbi, functionName: "approve", args: [c.recurring, 10n ** 12n] });
      await send(c.chain, c.payer, { address: account, abi: testMultisigAccountAbi, functionName: "execute", args: [c.usdc, 0n, approveData] });
      const terms = await makeTerms(c.chain, account, c.merchant.address);
      const id = subscriptionIdOf(84532, c.recurring, terms);
      const first = await signTerms(c.chain, c.payer, terms);
      const signature = concat([first, await signTerms(c.chain, c.other, terms)]);
      assert.equal(size(signature), 130);

      const stranger = concat([first, await signTerms(c.chain, c.merchant, terms)]);
      await expectRevert(chargeCall(c, terms, stranger), "InvalidSignature", [account]);
      assert.deepEqual(await reads(c).subscriptions([id]), [0n, 0, false], "nothing charged");

      const before = await Promise.all([account, c.merchant.address].map((a) => balanceOf(c.chain, c.usdc, a)));
      const receipt = await chargeAsRelayer(c.chain, terms, signature, 20_000n);
      const after = await Promise.all([account, c.merchant.address].map((a) => balanceOf(c.chain, c.usdc, a)));
      const net = terms.amount - (terms.amount * 200n) / 10_000n - 100_000n;
      assert.equal(before[0]! - after[0]!, terms.amount + 20_000n, "the account pays amount + reimbursement");
      assert.equal(after[1]! - before[1]!, net, "the merchant gets the net");
      const [charged] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
      assert.include(charged!.args, { subscriptionId: id, periodIndex: 0n, payer: account, recipient: c.merchant.address, net, gasReimbursement: 20_000n });
      assert.deepEqual(await reads(c).subscriptions([id]), [0n, 1, false]);
    });
  });

  describe("a contract payer's signature check runs under SIGNATURE_GAS_CAP", () => {
    /** A contract account of `kind` owned by the payer, funded and approving the contract. */
    async function contractPayer(c: ReturnType<typeof ctx>, kind: "TestSmartAccount" | "GasBurningAccount", amount: bigint) {
      const abi = kind === "TestSmartAccount" ? testSmartAccountAbi : gasBurningAccountAbi;
      const source = kind === "TestSmartAccount" ? "TestSmartAccount.sol" : "GasBurningAccount.sol";
      const account = await deployTestContract(c.chain, c.payer, abi, kind, source, [c.payer.address]);
      await send(c.chain, c.payer, { address: c.usdc, abi: fiatTokenAbi, functionName: "transfer", args: [account, 100_000_000n] });
      const approveData = encodeFunctionData({ abi: fiatTokenAbi, functionName: "approve", args: [c.recurring, 10n ** 12n] });
      await send(c.chain, c.payer, { address: account, abi: testSmartAccountAbi, functionName: "execute", args: [c.usdc, 0n, approveData] });
      const terms = await makeTerms(c.chain, account, c.merchant.address, { amount });
      return { account, terms, signature: await signTerms(c.chain, c.payer, terms), id: subscriptionIdOf(84532, c.recurring, terms) };
    }

    /**
     * Loop counts that make TestSmartAccount's isValidSignature use `margin` gas under and over the cap,
     * measured from inside the EVM (GasProbe), as the contract's own call would spend it.
     */
    async function burnsAround(c: ReturnType<typeof ctx>, account: `0x${string}`, digest: Hex, signature: Hex, cap: bigint, margin: bigint) {
      const probe = await deployTestContract(c.chain, c.payer, gasProbeAbi, "GasProbe", "GasBurningAccount.sol");
      const data = encodeFunctionData({ abi: testSmartAccountAbi, functionName: "isValidSignature", args: [digest, signature] });
      const usedWith = async (iterations: bigint) => {
        await send(c.chain, c.payer, { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [iterations] });
        const [ok, used] = await c.chain.publicClient.readContract({
          address: probe,
          abi: gasProbeAbi,
          functionName: "gasOf",
          args: [account, data],
        });
        return { ok, used };
      };
      // The loop's memory grows with it, so its cost is not linear: a search for each bound.
      const firstAt = async (target: bigint) => {
        let low = 0n;
        let high = 4_096n;
        while ((await usedWith(high)).used < target) high *= 2n;
        while (high - low > 1n) {
          const mid = (low + high) / 2n;
          if ((await usedWith(mid)).used < target) low = mid;
          else high = mid;
        }
        return high;
      };
      const under = (await firstAt(cap - margin)) - 1n;
      const over = await firstAt(cap + margin);
      const measuredUnder = await usedWith(under);
      const measuredOver = await usedWith(over);
      assert.isTrue(measuredUnder.ok && measuredOver.ok, "the account answers when given gas enough");
      assert.isBelow(Number(measuredUnder.used), Number(cap - margin));
      assert.isAtLeast(Number(measuredOver.used), Number(cap + margin));
      return { under, over };
    }

    it("is 200,000, the service's default SIGNATURE_GAS_CAP and the constant the batch's gas room reserves", async () => {
      assert.equal(await reads(ctx()).SIGNATURE_GAS_CAP(), 200_000n);
      assert.equal(await reads(ctx()).SIGNATURE_GAS_CAP(), CONTRACT_SIGNATURE_GAS_CAP);
    });

    it("a check just under the cap charges; just over it is InvalidSignature (alone, and skipped in a batch whose other items charge)", async () => {
      const c = ctx();
      const cap = await reads(c).SIGNATURE_GAS_CAP();
      const sub = await contractPayer(c, "TestSmartAccount", 2_000_000n);
      const { under, over } = await burnsAround(c, sub.account, sub.id, sub.signature, cap, 3_000n);
      const snapshot = await c.chain.snapshot();

      await send(c.chain, c.payer, { address: sub.account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [under] });
      const charged = await c.chain.publicClient.waitForTransactionReceipt({ hash: await chargeCall(c, sub.terms, sub.signature) });
      assert.equal(charged.status, "success", "just under the cap: charged");
      assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: charged.logs, eventName: "Charged" }), 1);

      await c.chain.revert(snapshot);
      await send(c.chain, c.payer, { address: sub.account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [over] });
      // Sent with gas to spare: the cap, not the transaction's limit, ends the check.
      const alone = c.chain.wallet(relayerOf(c.chain)).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "charge",
        args: [sub.terms, sub.signature, 0n, await currentPeriod(c.chain, sub.terms)],
        account: relayerOf(c.chain),
        chain: c.chain.chain,
        gas: 2_000_000n,
      });
      const refused = await c.chain.publicClient.waitForTransactionReceipt({ hash: await alone });
      assert.equal(refused.status, "reverted");
      assert.isBelow(Number(refused.gasUsed), Number(cap + 100_000n), "the check stopped at the cap, not at the transaction's limit");
      await expectRevert(chargeCall(c, sub.terms, sub.signature), "InvalidSignature", [sub.account]);

      const others = [await signedAndApproved(c, { amount: 3_000_000n }), await signedAndApproved(c, { amount: 4_000_000n })];
      const items = [
        { terms: others[0]!.terms, signature: others[0]!.signature, gasReimbursement: 0n, expectedPeriod: await currentPeriod(c.chain, others[0]!.terms) },
        { terms: sub.terms, signature: sub.signature, gasReimbursement: 0n, expectedPeriod: await currentPeriod(c.chain, sub.terms) },
        { terms: others[1]!.terms, signature: others[1]!.signature, gasReimbursement: 0n, expectedPeriod: await currentPeriod(c.chain, others[1]!.terms) },
      ];
      const hash = await c.chain.wallet(relayerOf(c.chain)).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items],
        account: relayerOf(c.chain),
        chain: c.chain.chain,
        gas: 1_500_000n,
      });
      const batch = await c.chain.publicClient.waitForTransactionReceipt({ hash });
      const skipped = parseEventLogs({ abi: recurringChargesAbi, logs: batch.logs, eventName: "ChargeSkipped" });
      assert.deepEqual(
        skipped.map((e) => [Number(e.args.index), decodeErrorResult({ abi: recurringChargesAbi, data: e.args.reason }).errorName]),
        [[1, "InvalidSignature"]],
      );
      assert.deepEqual(
        parseEventLogs({ abi: recurringChargesAbi, logs: batch.logs, eventName: "Charged" }).map((e) => e.args.subscriptionId),
        others.map((o) => o.id),
      );
    });

    it("a payer that passes the simulation and burns gas on chain is skipped (InvalidSignature) and the rest of the batch is charged; alone, it costs the relayer the cap, not the limit", async () => {
      const c = ctx();
      const cap = 200_000n; // SIGNATURE_GAS_CAP (read and checked above)
      const burner = await contractPayer(c, "GasBurningAccount", 2_500_000n);
      const others = [];
      for (let i = 0; i < 8; i++) others.push(await signedAndApproved(c, { amount: 1_000_000n + BigInt(i) }));
      const itemOf = async (s: { terms: Terms; signature: Hex }) => ({
        terms: s.terms,
        signature: s.signature,
        gasReimbursement: 0n,
        expectedPeriod: await currentPeriod(c.chain, s.terms),
      });
      const items = [];
      for (const [i, o] of others.entries()) {
        if (i === 2) items.push(await itemOf(burner));
        items.push(await itemOf(o));
      }
      const relayer = relayerOf(c.chain);
      // The simulation (priced at zero) passes for every item.
      const { result } = await c.chain.publicClient.simulateContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items],
        account: relayer,
      });
      assert.equal(result, 9n);
      // As the service estimates: from the relayer's address, with no fees named (priced at zero).
      const estimate = await c.chain.publicClient.estimateContractGas({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items],
        account: relayer.address,
      });
      // The limit a relayer gives it: the estimate with a margin, plus the cap for the one contract payer.
      const hash = await c.chain.wallet(relayer).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items],
        account: relayer,
        chain: c.chain.chain,
        gas: (estimate * 12n) / 10n + cap,
      });
      const batch = await c.chain.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(batch.status, "success");
      const skipped = parseEventLogs({ abi: recurringChargesAbi, logs: batch.logs, eventName: "ChargeSkipped" });
      assert.deepEqual(
        skipped.map((e) => [
          Number(e.args.index),
          e.args.subscriptionId,
          e.args.reason === "0x" ? "out of gas" : decodeErrorResult({ abi: recurringChargesAbi, data: e.args.reason }).errorName,
        ]),
        [[2, burner.id, "InvalidSignature"]],
        "the burner is skipped with its reason",
      );
      assert.deepEqual(
        parseEventLogs({ abi: recurringChargesAbi, logs: batch.logs, eventName: "Charged" }).map((e) => e.args.subscriptionId),
        others.map((o) => o.id),
        "every other item is charged",
      );
      assert.equal(await balanceOf(c.chain, c.usdc, burner.account), 100_000_000n, "the burner paid nothing");

      // Alone, with a generous limit: it reverts when its check has used the cap.
      const alone = await c.chain.publicClient.waitForTransactionReceipt({
        hash: await c.chain.wallet(relayer).writeContract({
          address: c.recurring,
          abi: recurringChargesAbi,
          functionName: "charge",
          args: [burner.terms, burner.signature, 0n, await currentPeriod(c.chain, burner.terms)],
          account: relayer,
          chain: c.chain.chain,
          gas: 3_000_000n,
        }),
      });
      assert.equal(alone.status, "reverted");
      assert.isBelow(Number(alone.gasUsed), Number(cap + 100_000n));
    });

    it("with less gas left than the cap needs, a failed check is an out of gas (no reason), not the payer's InvalidSignature", async () => {
      const c = ctx();
      const burner = await contractPayer(c, "GasBurningAccount", 2_500_000n);
      const relayer = relayerOf(c.chain);
      const item = { terms: burner.terms, signature: burner.signature, gasReimbursement: 0n, expectedPeriod: await currentPeriod(c.chain, burner.terms) };
      // About 120,000 for the item: the check gets 63/64 of what is left, less than the cap.
      const hash = await c.chain.wallet(relayer).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [[item]],
        account: relayer,
        chain: c.chain.chain,
        gas: 180_000n,
      });
      const batch = await c.chain.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(batch.status, "success");
      const [skipped] = parseEventLogs({ abi: recurringChargesAbi, logs: batch.logs, eventName: "ChargeSkipped" });
      assert.include(skipped!.args, { index: 0n, subscriptionId: burner.id, reason: "0x" });
    });

    it("an ERC-6492 wrapper stays refused for a contract payer (UnsupportedSignatureFormat), before its code runs", async () => {
      const c = ctx();
      const burner = await contractPayer(c, "GasBurningAccount", 2_000_000n);
      await expectRevert(chargeCall(c, burner.terms, wrap6492(burner.signature, c.other.address)), "UnsupportedSignatureFormat");
    });
  });

  it("never holds a balance across a mix of charges", async () => {
    const c = ctx();
    const subs = [];
    for (const k of [1n, 2n, 3n]) subs.push(await signedAndApproved(c, { amount: 1_000_000n * k }));
    for (const s of subs) await chargeAsRelayer(c.chain, s.terms, s.signature, 1_000n);
    await c.chain.advanceTime(subs[0]!.terms.period);
    for (const s of subs) await chargeAsRelayer(c.chain, s.terms, "0x", 2_000n);
    assert.equal(await balanceOf(c.chain, c.usdc, c.recurring), 0n);
  });

  describe("chargeBatch: many charges in one transaction, each on its own", () => {
    type Item = { terms: Terms; signature: Hex; gasReimbursement: bigint; expectedPeriod: bigint };
    const batchCall = (c: ReturnType<typeof ctx>, items: Item[], from = relayerOf(c.chain), gas?: bigint) =>
      c.chain.wallet(from).writeContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items],
        account: from,
        chain: c.chain.chain,
        ...(gas ? { gas } : {}),
      });
    const item = async (c: ReturnType<typeof ctx>, terms: Terms, signature: Hex = "0x", period?: bigint): Promise<Item> => ({
      terms,
      signature,
      gasReimbursement: 1_000n,
      expectedPeriod: period ?? (await currentPeriod(c.chain, terms)),
    });
    /** A payer of its own (a local key past the funded users) with `units` of USDC and an allowance. */
    async function payerWith(c: ReturnType<typeof ctx>, index: number, units: bigint) {
      const account = localAccount(index);
      await c.chain.testClient.setBalance({ address: account.address, value: 10n ** 18n });
      if (units > 0n) await send(c.chain, c.payer, { address: c.usdc, abi: fiatTokenAbi, functionName: "transfer", args: [account.address, units] });
      await approve(c.chain, account, c.usdc, c.recurring, 10n ** 12n);
      return account;
    }

    it("mixed outcomes: renewals and first charges go through; revoked, short of funds, already charged, wrong period, bad signature and a token refusal are skipped with their reasons", async () => {
      const c = ctx();
      const roles = c.chain.usdcRoles;
      const renewal = await signedAndApproved(c, { amount: 3_000_000n });
      const alreadyCharged = await signedAndApproved(c, { amount: 4_000_000n });
      const revoked = await signedAndApproved(c, { amount: 5_000_000n });
      for (const s of [renewal, alreadyCharged, revoked]) await chargeAsRelayer(c.chain, s.terms, s.signature);
      await c.chain.advanceTime(renewal.terms.period);
      await chargeAsRelayer(c.chain, alreadyCharged.terms, "0x");
      await send(c.chain, c.payer, { address: c.recurring, abi: recurringChargesAbi, functionName: "revoke", args: [revoked.terms] });
      const first = await signedAndApproved(c, { amount: 6_000_000n });
      const wrongPeriod = await signedAndApproved(c, { amount: 7_000_000n });
      const badSignature = await signedAndApproved(c, { amount: 8_000_000n });
      const broke = await payerWith(c, 1000, 0n);
      const brokeTerms = await makeTerms(c.chain, broke.address, c.merchant.address);
      const shunned = localAccount(2000); // a recipient USDC blacklists
      await send(c.chain, roles.blacklister, { address: c.usdc, abi: fiatTokenAbi, functionName: "blacklist", args: [shunned.address] });
      const toShunned = await signedAndApproved(c, { recipient: shunned.address, amount: 9_000_000n });

      const items = [
        await item(c, renewal.terms),
        await item(c, revoked.terms),
        await item(c, brokeTerms, await signTerms(c.chain, broke, brokeTerms)),
        await item(c, alreadyCharged.terms),
        await item(c, first.terms, first.signature),
        await item(c, wrongPeriod.terms, wrongPeriod.signature, 5n),
        await item(c, badSignature.terms, await signTerms(c.chain, c.other, badSignature.terms)),
        await item(c, toShunned.terms, toShunned.signature),
      ];
      const before = await balanceOf(c.chain, c.usdc, c.payer.address);
      const { result } = await c.chain.publicClient.simulateContract({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items],
        account: relayerOf(c.chain),
      });
      assert.equal(result, 2n, "charged: the renewal and the first charge");
      const receipt = await c.chain.publicClient.waitForTransactionReceipt({ hash: await batchCall(c, items) });
      assert.equal(receipt.status, "success", "one item's failure never reverts the batch");

      const charged = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
      assert.deepEqual(
        charged.map((e) => [e.args.subscriptionId, e.args.periodIndex]),
        [
          [renewal.id, 1n],
          [first.id, 0n],
        ],
      );
      const skipped = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" });
      const reasons = skipped.map((e) => {
        const decoded = decodeErrorResult({ abi: recurringChargesAbi, data: e.args.reason });
        return [Number(e.args.index), e.args.subscriptionId, String(decoded.errorName), decoded.args] as unknown[];
      });
      const id = (t: Terms) => subscriptionIdOf(84532, c.recurring, t);
      assert.deepEqual(reasons, [
        [1, revoked.id, "SubscriptionRevoked", [revoked.id]],
        [2, id(brokeTerms), "InsufficientBalance", [broke.address, 0n, brokeTerms.amount + 1_000n]],
        [3, alreadyCharged.id, "PeriodAlreadyCharged", [alreadyCharged.id, 1n, await reads(c).chargedBlock([alreadyCharged.id, 1n])]],
        [5, wrongPeriod.id, "PeriodMismatch", [5n, 0n]],
        [6, badSignature.id, "InvalidSignature", [c.payer.address]],
        [7, toShunned.id, "Error", ["Blacklistable: account is blacklisted"]],
      ]);
      // A skipped item moved nothing and recorded nothing.
      assert.equal(before - (await balanceOf(c.chain, c.usdc, c.payer.address)), 3_000_000n + 6_000_000n + 2_000n, "only the two charges were paid");
      for (const s of [wrongPeriod, badSignature, toShunned]) assert.deepEqual(await reads(c).subscriptions([s.id]), [0n, 0, false]);
      assert.equal(await balanceOf(c.chain, c.usdc, c.recurring), 0n);
    });

    it("the same subscription twice in one batch: the second is skipped (PeriodAlreadyCharged); an empty batch charges nothing", async () => {
      const c = ctx();
      const s = await signedAndApproved(c);
      const items = [await item(c, s.terms, s.signature), await item(c, s.terms, s.signature)];
      const receipt = await c.chain.publicClient.waitForTransactionReceipt({ hash: await batchCall(c, items) });
      assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }), 1);
      const [skipped] = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" });
      assert.equal(decodeErrorResult({ abi: recurringChargesAbi, data: skipped!.args.reason }).errorName, "PeriodAlreadyCharged");
      const empty = await c.chain.publicClient.waitForTransactionReceipt({ hash: await batchCall(c, []) });
      assert.equal(empty.status, "success");
      assert.lengthOf(empty.logs, 0);
    });

    it("the gas limit the service gives a batch (batchGasLimit) carries small batches and large ones, cold and warm: no batch runs out of gas", async () => {
      const c = ctx();
      const figures = batchedRenewalGas();
      // A renewal's own limit, as the service gives it: the dearest renewal measured, with its margin.
      const renewalAlone = (measuredChargeGas(undefined, RENEWAL_GAS_FIGURE) * 12n) / 10n;
      const relayer = relayerOf(c.chain);
      // Renewals of payers and merchants no earlier transaction in this block touched: the dearest case.
      let next = 2000;
      const fresh = async () => {
        const payer = await payerWith(c, next++, 10n ** 9n);
        const merchant = localAccount(next++).address;
        return { payer, merchant };
      };
      const shapes: Array<{ name: string; n: number; shared: boolean }> = [
        { name: "2 renewals, one payer and merchant", n: 2, shared: true },
        { name: "2 renewals, two payers and merchants", n: 2, shared: false },
        { name: "3 renewals, one payer and merchant", n: 3, shared: true },
        { name: "20 renewals, twenty payers and merchants", n: 20, shared: false },
      ];
      for (const shape of shapes) {
        const parties: Array<Awaited<ReturnType<typeof fresh>>> = [];
        for (let i = 0; i < shape.n; i++) parties.push(shape.shared && i > 0 ? parties[0]! : await fresh());
        const subs = [];
        for (const [i, { payer, merchant }] of parties.entries()) {
          const terms = await makeTerms(c.chain, payer.address, merchant, { amount: 1_000_000n + BigInt(i) });
          const signature = await signTerms(c.chain, payer, terms);
          await chargeAsRelayer(c.chain, terms, signature);
          subs.push({ terms, signature });
        }
        await c.chain.advanceTime(subs[0]!.terms.period);
        // As the service sends them: renewals without their signature (checked on the first charge only).
        const items = await Promise.all(subs.map(({ terms }) => item(c, terms, "0x")));
        const gas = batchGasLimit(
          items.map((it) => ({ payer: it.terms.payer, recipient: it.terms.recipient, renewal: true, newSlot: false, gas: renewalAlone })),
          figures,
        );
        const receipt = await c.chain.publicClient.waitForTransactionReceipt({ hash: await batchCall(c, items, relayer, gas) });
        assert.equal(receipt.status, "success", `${shape.name}: a limit of ${gas} (used ${receipt.gasUsed})`);
        // At least the 1.2 margin's half left over (gas used counts refunds, which execution must first hold).
        assert.isAtMost(Number(receipt.gasUsed) * 1.1, Number(gas), `${shape.name}: headroom`);
        assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }), shape.n, shape.name);
      }
    });

    it("a batch short of gas for its last item skips that item (empty reason) and keeps the others charged; with too little left to try one, it stops there", async () => {
      const c = ctx();
      const subs = [];
      for (let i = 0; i < 3; i++) subs.push(await signedAndApproved(c, { amount: 2_000_000n + BigInt(i) }));
      for (const s of subs) await chargeAsRelayer(c.chain, s.terms, s.signature);
      await c.chain.advanceTime(subs[0]!.terms.period);
      const items = await Promise.all(subs.map((s) => item(c, s.terms, "0x")));
      const relayer = relayerOf(c.chain);
      const sendWith = async (gas: bigint) => c.chain.publicClient.waitForTransactionReceipt({ hash: await batchCall(c, items, relayer, gas) });
      const snapshot = await c.chain.snapshot();
      const full = await sendWith(3_000_000n);
      assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: full.logs, eventName: "Charged" }), 3);
      // What the whole batch used, and what its last item alone costs in it.
      await c.chain.revert(snapshot);
      const twoItems = await c.chain.publicClient.estimateContractGas({
        address: c.recurring,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [items.slice(0, 2)],
        account: relayer,
      });
      const lastItem = full.gasUsed - twoItems;
      const beforeShort = await c.chain.snapshot();
      const short = await sendWith(full.gasUsed - lastItem / 2n);
      assert.equal(short.status, "success", "the batch stands");
      const charged = parseEventLogs({ abi: recurringChargesAbi, logs: short.logs, eventName: "Charged" });
      assert.deepEqual(
        charged.map((e) => e.args.subscriptionId),
        [subs[0]!.id, subs[1]!.id],
        "the first two charged",
      );
      const [skipped] = parseEventLogs({ abi: recurringChargesAbi, logs: short.logs, eventName: "ChargeSkipped" });
      assert.include(skipped!.args, { index: 2n, subscriptionId: subs[2]!.id, reason: "0x" }, "the last skipped: out of gas");
      assert.deepEqual(await reads(c).subscriptions([subs[2]!.id]), [0n, 1, false], "its period not charged");

      // Less than the reserve left before an item: it is not tried, and nothing is recorded for it.
      await c.chain.revert(beforeShort);
      const data = encodeFunctionData({ abi: recurringChargesAbi, functionName: "chargeBatch", args: [items.slice(0, 1)] });
      const bytes = hexToBytes(data);
      const calldataGas = bytes.reduce((sum, b) => sum + (b === 0 ? 4n : 16n), 0n);
      const stopped = await c.chain.publicClient.waitForTransactionReceipt({
        hash: await c.chain
          .wallet(relayer)
          .sendTransaction({ to: c.recurring, data, gas: 21_000n + calldataGas + 15_000n, account: relayer, chain: c.chain.chain }),
      });
      assert.equal(stopped.status, "success");
      assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: stopped.logs, eventName: "Charged" }), 0);
      assert.lengthOf(parseEventLogs({ abi: recurringChargesAbi, logs: stopped.logs, eventName: "ChargeSkipped" }), 0);
    });

    it("only a relayer sends a batch, and an item can be charged only from inside a batch", async () => {
      const c = ctx();
      const s = await signedAndApproved(c);
      const one = await item(c, s.terms, s.signature);
      await expectRevert(batchCall(c, [one], c.other), "NotRelayer", [c.other.address]);
      for (const from of [c.other, relayerOf(c.chain)]) {
        await expectRevert(
          c.chain.wallet(from).writeContract({
            address: c.recurring,
            abi: recurringChargesAbi,
            functionName: "chargeBatchItem",
            args: [one],
            account: from,
            chain: c.chain.chain,
          }),
          "NotRelayer",
          [from.address],
        );
      }
      assert.deepEqual(await reads(c).subscriptions([s.id]), [0n, 0, false]);
    });
  });
});
