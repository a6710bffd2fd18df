import { assert } from "chai";
import { encodeAbiParameters, encodeFunctionData, erc20Abi, getContractAddress, keccak256, parseEventLogs, toHex, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import {
  brokenBalanceTokenAbi,
  depositForwarderAbi,
  falseReturningTokenAbi,
  fiatTokenAbi,
  noReturnTokenAbi,
  splitterAbi,
} from "../../src/generated/contracts.js";
import { creationBytecode } from "../../dev/deploy/artifacts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { expectRevert, revertData } from "../helpers/reverts.js";
import { balanceOf, send } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";

const ref = (label: string): Hex => keccak256(toHex(label));

/**
 * A payment address per payment: a plain transfer to it from anywhere pays; anyone settles it through
 * the Splitter with the same split, guard and `Paid`; what cannot settle as the payment still reaches
 * the recipient. Every odd case of issue "Pay from anywhere" is here, on Circle's USDC.
 */
describe("Splitter: payment addresses (deposits)", () => {
  const local = useLocalChain();
  const setup = () => {
    const chain = local.chain;
    const splitter = chain.deployment.contracts.Splitter.address;
    const usdc = chain.deployment.token.address;
    const collector = chain.deployment.parameters.feeCollector;
    const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const stranger = chain.accounts[LOCAL_ROLES.firstUser + 2]!;
    const payment = { token: usdc, recipient: merchant.address, amount: 10_000_000n, reference: ref("order-7") };
    const args = [payment.token, payment.recipient, payment.amount, payment.reference] as const;
    const read = chain.publicClient.readContract;
    const depositAddress = () => read({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args });
    const transfer = (to: Address, units: bigint, from = buyer) =>
      send(chain, from, { address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, units] });
    const settle = (from = stranger) =>
      chain.wallet(from).writeContract({ address: splitter, abi: splitterAbi, functionName: "settleDeposit", args, account: from, chain: chain.chain });
    const forward = (asset: Address, from = stranger) =>
      chain
        .wallet(from)
        .writeContract({ address: splitter, abi: splitterAbi, functionName: "forwardDeposit", args: [...args, asset], account: from, chain: chain.chain });
    const settledBlock = () =>
      read({
        address: splitter,
        abi: splitterAbi,
        functionName: "settledBlock",
        args: [keccak256(encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }], [...args]))],
      });
    const mined = (hash: Promise<Hex>) => hash.then((h) => chain.publicClient.waitForTransactionReceipt({ hash: h }));
    return { chain, splitter, usdc, collector, buyer, merchant, stranger, payment, depositAddress, transfer, settle, forward, settledBlock, mined };
  };

  it("derives the address with CREATE2 from the Splitter and the payment's key, the same for anyone who computes it", async () => {
    const { splitter, payment, depositAddress } = setup();
    const key = keccak256(
      encodeAbiParameters(
        [{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }],
        [payment.token, payment.recipient, payment.amount, payment.reference],
      ),
    );
    const expected = getContractAddress({ opcode: "CREATE2", from: splitter, salt: key, bytecode: creationBytecode("DepositForwarder") });
    assert.equal(await depositAddress(), expected);
  });

  it("a plain transfer from a fresh account (an exchange withdrawal) pays: a stranger settles it with the split, the guard and Paid; the address keeps nothing, not even code", async () => {
    const { chain, splitter, usdc, collector, merchant, payment, depositAddress, transfer, settle, settledBlock, mined } = setup();
    const exchange = privateKeyToAccount(generatePrivateKey());
    await chain.testClient.setBalance({ address: exchange.address, value: 10n ** 18n });
    await transfer(exchange.address, 50_000_000n);
    const deposit = await depositAddress();
    const hash = await chain.wallet(exchange as never).writeContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "transfer",
      args: [deposit, payment.amount],
      account: exchange,
      chain: chain.chain,
    });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    const before = await Promise.all([merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
    const receipt = await mined(settle());
    assert.equal(receipt.status, "success");
    const fee = (payment.amount * 200n) / 10_000n;
    const after = await Promise.all([merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], [payment.amount - fee, fee]);
    assert.equal(await balanceOf(chain, usdc, deposit), 0n);
    assert.equal(await balanceOf(chain, usdc, splitter), 0n);
    assert.equal(await chain.publicClient.getCode({ address: deposit }), undefined, "the forwarder self-destructed");
    assert.equal(await settledBlock(), receipt.blockNumber);
    const paid = parseEventLogs({ abi: splitterAbi, logs: receipt.logs, eventName: "Paid" });
    assert.equal(paid.length, 1);
    assert.include(paid[0]!.args, { payer: deposit, recipient: payment.recipient, token: usdc, amount: payment.amount, fee });
  });

  it("pays 100 × the amount into a payment address: the fee collector gets floor(held × bps / 10,000), the recipient the rest; Paid keeps the payment's own amount and fee, PaidInExcess from the address says what moved", async () => {
    const { chain, usdc, collector, merchant, payment, depositAddress, transfer, settle, mined } = setup();
    const deposit = await depositAddress();
    // A remainder (held mod 10,000) whose fee is a whole number of units: floor(held × bps / 10,000) at its edge.
    const held = payment.amount * 100n + 1_234_550n;
    await transfer(deposit, held);
    const before = await Promise.all([merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
    const receipt = await mined(settle());
    const after = await Promise.all([merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
    const fee = (held * 200n) / 10_000n;
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], [held - fee, fee]);
    assert.equal(await balanceOf(chain, usdc, deposit), 0n);
    const [paid] = parseEventLogs({ abi: splitterAbi, logs: receipt.logs, eventName: "Paid" });
    assert.include(paid!.args, { amount: payment.amount, fee: (payment.amount * 200n) / 10_000n, payer: deposit });
    const excess = parseEventLogs({ abi: depositForwarderAbi, logs: receipt.logs, eventName: "PaidInExcess" });
    assert.lengthOf(excess, 1);
    assert.equal(excess[0]!.address.toLowerCase(), deposit.toLowerCase(), "emitted by the payment address itself");
    assert.deepEqual(excess[0]!.args, { moved: held, fee });
  });

  it("exactly the amount: no PaidInExcess", async () => {
    const { payment, depositAddress, transfer, settle, mined } = setup();
    await transfer(await depositAddress(), payment.amount);
    const receipt = await mined(settle());
    assert.isEmpty(parseEventLogs({ abi: depositForwarderAbi, logs: receipt.logs, eventName: "PaidInExcess" }));
  });

  it("less than the amount: settle refuses (DepositBelowAmount) until a top-up; then it settles", async () => {
    const { payment, depositAddress, transfer, settle, settledBlock, mined } = setup();
    const deposit = await depositAddress();
    await transfer(deposit, 4_000_000n);
    await expectRevert(settle(), "DepositBelowAmount", [deposit, 4_000_000n, payment.amount]);
    assert.equal(await settledBlock(), 0n);
    await transfer(deposit, 6_000_000n);
    assert.equal((await mined(settle())).status, "success");
  });

  /** What a forward moved: the recipient's and the fee collector's gains in `token`, and its event. */
  const forwarded = async (ctx: ReturnType<typeof setup>, token: Address, hash: Promise<Hex>) => {
    const { chain, merchant, collector, mined } = ctx;
    const read = (a: Address) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [a] });
    const before = await Promise.all([read(merchant.address), read(collector)]);
    const receipt = await mined(hash);
    const after = await Promise.all([read(merchant.address), read(collector)]);
    const events = parseEventLogs({ abi: splitterAbi, logs: receipt.logs, eventName: "DepositForwarded" });
    assert.lengthOf(events, 1);
    return { recipientGot: after[0]! - before[0]!, feeGot: after[1]! - before[1]!, event: events[0]!.args };
  };
  const feeOf = (units: bigint) => (units * 200n) / 10_000n;

  it("a short deposit never sticks: only the recipient may forward it (to refund it), with the fee split; a stranger may not", async () => {
    const ctx = setup();
    const { usdc, merchant, payment, depositAddress, transfer, forward, settledBlock } = ctx;
    const deposit = await depositAddress();
    // One unit short: the likeliest fee-free path there would be, were a short forward free.
    const short = payment.amount - 1n;
    await transfer(deposit, short);
    await expectRevert(forward(usdc), "NotRecipient");
    const moved = await forwarded(ctx, usdc, forward(usdc, merchant));
    assert.equal(moved.feeGot, feeOf(short));
    assert.equal(moved.recipientGot, short - feeOf(short));
    assert.include(moved.event, { recipient: payment.recipient, token: usdc, amount: short, fee: feeOf(short) });
    assert.equal(await balanceOf(ctx.chain, usdc, deposit), 0n);
    assert.equal(await settledBlock(), 0n, "a forward settles nothing");
  });

  it("the recipient tries to forward a full unsettled deposit, and fails (DepositCoversAmount); above the amount too; it settles through settleDeposit, with Paid", async () => {
    const ctx = setup();
    const { chain, usdc, merchant, payment, depositAddress, transfer, settle, forward, settledBlock, mined } = ctx;
    const deposit = await depositAddress();
    await transfer(deposit, payment.amount);
    await expectRevert(forward(usdc, merchant), "DepositCoversAmount", [deposit, payment.amount, payment.amount]);
    await transfer(deposit, 1n);
    await expectRevert(forward(usdc, merchant), "DepositCoversAmount", [deposit, payment.amount + 1n, payment.amount]);
    await expectRevert(forward(usdc), "NotRecipient");
    assert.equal(await balanceOf(chain, usdc, deposit), payment.amount + 1n, "nothing moved");
    assert.equal(await settledBlock(), 0n);
    const receipt = await mined(settle());
    assert.lengthOf(parseEventLogs({ abi: splitterAbi, logs: receipt.logs, eventName: "Paid" }), 1);
    assert.equal(await settledBlock(), receipt.blockNumber);
  });

  it("a second transfer into a settled address cannot settle again: anyone forwards it, with the fee split", async () => {
    const ctx = setup();
    const { chain, usdc, payment, depositAddress, transfer, settle, forward, settledBlock, mined } = ctx;
    const deposit = await depositAddress();
    await transfer(deposit, payment.amount);
    const first = await mined(settle());
    await transfer(deposit, payment.amount);
    await expectRevert(settle(), "AlreadySettled");
    const moved = await forwarded(ctx, usdc, forward(usdc));
    assert.equal(moved.feeGot, feeOf(payment.amount), "a reused address pays the fee as a payment does");
    assert.equal(moved.recipientGot, payment.amount - feeOf(payment.amount));
    assert.include(moved.event, { amount: payment.amount, fee: feeOf(payment.amount) });
    assert.equal(await balanceOf(chain, usdc, deposit), 0n);
    assert.equal(await settledBlock(), first.blockNumber, "the payment's settlement is unchanged");
  });

  it("another token sent to the address: anyone forwards it, with the fee split (rounded down)", async () => {
    const ctx = setup();
    const { chain, buyer, depositAddress, forward } = ctx;
    const other = await deployTestContract(chain, buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
    await send(chain, buyer, { address: other, abi: noReturnTokenAbi, functionName: "mint", args: [await depositAddress(), 777n] });
    const moved = await forwarded(ctx, other, forward(other));
    assert.deepEqual([moved.recipientGot, moved.feeGot], [762n, 15n]);
    assert.include(moved.event, { token: other, amount: 777n, fee: 15n });
  });

  it("USDC sent to the address of a payment named in another token, unsettled: anyone forwards it, with the fee split", async () => {
    const ctx = setup();
    const { chain, splitter, usdc, buyer, stranger, payment, transfer } = ctx;
    const other = await deployTestContract(chain, buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
    const otherArgs = [other, payment.recipient, payment.amount, payment.reference] as const;
    const deposit = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args: otherArgs });
    await transfer(deposit, payment.amount);
    const hash = chain.wallet(stranger).writeContract({
      address: splitter,
      abi: splitterAbi,
      functionName: "forwardDeposit",
      args: [...otherArgs, usdc],
      account: stranger,
      chain: chain.chain,
    });
    const moved = await forwarded(ctx, usdc, hash);
    assert.deepEqual([moved.recipientGot, moved.feeGot], [payment.amount - feeOf(payment.amount), feeOf(payment.amount)]);
  });

  it("a forward of a balance that would not fit the forwarder's 96-bit instructions (2^96 or more) is refused (InvalidPayment), nothing moves", async () => {
    const ctx = setup();
    const { chain, buyer, payment, depositAddress, forward } = ctx;
    const other = await deployTestContract(chain, buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
    const huge = 2n ** 96n;
    await send(chain, buyer, { address: other, abi: noReturnTokenAbi, functionName: "mint", args: [await depositAddress(), huge] });
    await expectRevert(forward(other), "InvalidPayment", [payment.recipient, huge]);
    const fits = huge - 1n;
    const small = await deployTestContract(chain, buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
    await send(chain, buyer, { address: small, abi: noReturnTokenAbi, functionName: "mint", args: [await depositAddress(), fits] });
    const moved = await forwarded(ctx, small, forward(small));
    assert.deepEqual([moved.recipientGot, moved.feeGot], [fits - feeOf(fits), feeOf(fits)]);
  });

  it("a token whose transfer answers false: forwarding refuses (SafeERC20FailedOperation, as SafeERC20 checks) and its balance stays", async () => {
    const { chain, buyer, depositAddress, forward } = setup();
    const other = await deployTestContract(chain, buyer, falseReturningTokenAbi, "FalseReturningToken", "HostileTokens.sol");
    await send(chain, buyer, { address: other, abi: falseReturningTokenAbi, functionName: "mint", args: [await depositAddress(), 555n] });
    await send(chain, buyer, { address: other, abi: falseReturningTokenAbi, functionName: "setFailTransfers", args: [true] });
    await expectRevert(forward(other), "SafeERC20FailedOperation", [other]);
    assert.equal(
      await chain.publicClient.readContract({ address: other, abi: falseReturningTokenAbi, functionName: "balanceOf", args: [await depositAddress()] }),
      555n,
    );
  });

  it("a token whose balanceOf reverts: settling a payment in it reverts with the token's own reason, whole; nothing moves", async () => {
    const { chain, buyer, merchant, splitter } = setup();
    const broken = await deployTestContract(chain, buyer, brokenBalanceTokenAbi, "BrokenBalanceToken", "HostileTokens.sol");
    const args = [broken, merchant.address, 10_000_000n, ref("order-broken")] as const;
    const deposit = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args });
    const settle = chain
      .wallet(buyer)
      .writeContract({ address: splitter, abi: splitterAbi, functionName: "settleDeposit", args, account: buyer, chain: chain.chain });
    await expectRevert(settle, "BalanceUnavailable", [deposit]);
  });

  it("a token whose balanceOf answers nothing: settling a payment in it reverts with no data at all", async () => {
    const { chain, buyer, merchant, splitter } = setup();
    const broken = await deployTestContract(chain, buyer, brokenBalanceTokenAbi, "BrokenBalanceToken", "HostileTokens.sol");
    await send(chain, buyer, { address: broken, abi: brokenBalanceTokenAbi, functionName: "setSilent", args: [true] });
    const args = [broken, merchant.address, 10_000_000n, ref("order-silent")] as const;
    const data = encodeFunctionData({ abi: splitterAbi, functionName: "settleDeposit", args });
    const answer = await chain.publicClient.request({ method: "eth_call", params: [{ from: buyer.address, to: splitter, data }, "latest"] }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.isNotNull(answer, "the settlement reverts");
    assert.equal(revertData(answer), "0x", "and says nothing: the forwarder's own empty revert, not a token's or a garbled one");
  });

  it("cannot be redirected: another recipient names another (empty) address, and the instructions are empty outside a settlement", async () => {
    const { chain, splitter, usdc, stranger, payment, depositAddress, transfer } = setup();
    await transfer(await depositAddress(), payment.amount);
    const otherArgs = [usdc, stranger.address, payment.amount, payment.reference] as const;
    const redirected = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args: otherArgs });
    await expectRevert(
      chain
        .wallet(stranger)
        .writeContract({ address: splitter, abi: splitterAbi, functionName: "settleDeposit", args: otherArgs, account: stranger, chain: chain.chain }),
      "DepositBelowAmount",
      [redirected, 0n, payment.amount],
    );
    // The forwarder's one question (a call with empty calldata) has no answer outside a settlement:
    // what to move and to whom are zero words; only the fee collector and the fee are there.
    const { data } = await chain.publicClient.call({ to: splitter, data: "0x" });
    const words = (data ?? "0x").slice(2).match(/.{64}/g) ?? [];
    assert.deepEqual(words.slice(0, 2), ["0".repeat(64), "0".repeat(64)]);
    assert.equal(`0x${words[2]!.slice(24)}`, chain.deployment.parameters.feeCollector.toLowerCase());
    assert.equal(BigInt(`0x${words[2]!.slice(0, 24)}`), BigInt(chain.deployment.parameters.feeBps));
    // Any other unknown call still reverts with no data, as it did before the Splitter answered that question.
    const unknown = await chain.publicClient.request({ method: "eth_call", params: [{ to: splitter, data: "0x12345678" }, "latest"] }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.isNotNull(unknown, "an unknown call reverts");
    assert.equal(revertData(unknown), "0x", "with no data");
    // ETH is still refused: the answer is not payable.
    const withValue = await chain.publicClient.call({ to: splitter, data: "0x", value: 1n, account: stranger.address }).then(
      () => "answered",
      () => "reverted",
    );
    assert.equal(withValue, "reverted");
  });

  it("an amount of 2^96 or more is refused (InvalidPayment): the forwarder's instructions could not hold it, so it would check too little", async () => {
    const { chain, splitter, usdc, stranger, payment } = setup();
    const huge = 2n ** 96n;
    const args = [usdc, payment.recipient, huge, payment.reference] as const;
    await expectRevert(
      chain.wallet(stranger).writeContract({ address: splitter, abi: splitterAbi, functionName: "settleDeposit", args, account: stranger, chain: chain.chain }),
      "InvalidPayment",
      [payment.recipient, huge],
    );
  });

  it("forwarding for a payment to the zero address is refused (InvalidPayment): nothing is ever sent to it", async () => {
    const { chain, splitter, usdc, stranger, payment } = setup();
    const zero = "0x0000000000000000000000000000000000000000" as const;
    // Another asset than the payment's token, so the recipient-only rule does not answer first.
    const forwardToZero = chain.wallet(stranger).writeContract({
      address: splitter,
      abi: splitterAbi,
      functionName: "forwardDeposit",
      args: [usdc, zero, payment.amount, payment.reference, splitter],
      account: stranger,
      chain: chain.chain,
    });
    await expectRevert(forwardToZero, "InvalidPayment", [zero, payment.amount]);
  });

  it("a deployment whose fee is 100%: a settlement sends the fee collector all of it and the recipient nothing, not even a transfer of 0; Paid says so", async () => {
    const { chain, usdc, collector, buyer, merchant, stranger, payment, transfer, mined } = setup();
    const hash = await chain
      .wallet(buyer)
      .deployContract({ abi: splitterAbi, bytecode: creationBytecode("Splitter"), args: [collector, 10_000], account: buyer, chain: chain.chain });
    const splitter = (await chain.publicClient.waitForTransactionReceipt({ hash })).contractAddress!;
    const args = [payment.token, payment.recipient, payment.amount, payment.reference] as const;
    const deposit = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args });
    await transfer(deposit, payment.amount);
    const before = await Promise.all([merchant.address, collector].map((a) => balanceOf(chain, usdc, a)));
    const receipt = await mined(
      chain.wallet(stranger).writeContract({ address: splitter, abi: splitterAbi, functionName: "settleDeposit", args, account: stranger, chain: chain.chain }),
    );
    const after = await Promise.all([merchant.address, collector, deposit].map((a) => balanceOf(chain, usdc, a)));
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!, after[2]], [0n, payment.amount, 0n]);
    const lower = (a: Address) => a.toLowerCase();
    const out = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" }).filter((l) => lower(l.args.from) === lower(deposit));
    assert.deepEqual(
      out.map((l) => [lower(l.address), lower(l.args.to), l.args.value]),
      [[lower(usdc), lower(collector), payment.amount]],
      "one transfer out of the payment address: the fee",
    );
    const [paid] = parseEventLogs({ abi: splitterAbi, logs: receipt.logs, eventName: "Paid" });
    assert.include(paid!.args, { payer: deposit, recipient: payment.recipient, amount: payment.amount, fee: payment.amount });
  });

  it("USDC paused, or the recipient blacklisted: settle reverts with Circle's reason, the deposit waits at the address, and settles once it clears", async () => {
    const { chain, usdc, payment, depositAddress, transfer, settle, settledBlock, mined } = setup();
    const roles = chain.usdcRoles;
    const deposit = await depositAddress();
    await transfer(deposit, payment.amount);
    await send(chain, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "pause", args: [] });
    await expectRevert(settle(), "Error", ["Pausable: paused"]);
    await send(chain, roles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "unpause", args: [] });
    await send(chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "blacklist", args: [payment.recipient] });
    await expectRevert(settle(), "Error", ["Blacklistable: account is blacklisted"]);
    assert.equal(await settledBlock(), 0n);
    assert.equal(await balanceOf(chain, usdc, deposit), payment.amount);
    await send(chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "unBlacklist", args: [payment.recipient] });
    assert.equal((await mined(settle())).status, "success");
  });
});
