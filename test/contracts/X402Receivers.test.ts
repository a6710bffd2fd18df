import { assert } from "chai";
import fc from "fast-check";
import {
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  keccak256,
  parseEventLogs,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
} from "viem";
import { brokenBalanceTokenAbi, falseReturningTokenAbi, fiatTokenAbi, noReturnTokenAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import { tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { LOCAL_ROLES, type LocalChain } from "../../dev/localchain/harness.js";
import { creationBytecode } from "../../dev/deploy/artifacts.js";
import { placeFiatToken } from "../../dev/localchain/usdc.js";
import { deployTestContract } from "../helpers/deploy.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { expectRevert, revertData } from "../helpers/reverts.js";
import { signWithViem } from "../helpers/signers.js";
import { balanceOf, send } from "../helpers/tx.js";

const ref = (label: string): Hex => keccak256(toHex(label));

/**
 * X402Receivers on Circle's USDC: a merchant's receiver (its static x402 payTo) whose funds only leave
 * split, a settlement in one transaction whose only guard is USDC's nonce, and what strangers can do.
 */
describe("X402Receivers: one x402 receiver per merchant", () => {
  const local = useLocalChain();
  const setup = async () => {
    const chain = local.chain;
    const receivers = chain.deployment.contracts.X402Receivers.address;
    const usdc = chain.deployment.token.address;
    const collector = chain.deployment.parameters.feeCollector;
    const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const stranger = chain.accounts[LOCAL_ROLES.firstUser + 2]!;
    const receiver = await chain.publicClient.readContract({
      address: receivers,
      abi: x402ReceiversAbi,
      functionName: "receiverOf",
      args: [merchant.address, usdc],
    });
    const validBefore = (await chain.publicClient.getBlock()).timestamp + 600n;
    const authorize = async (overrides: { to?: Address; value?: bigint; validBefore?: bigint; nonce?: Hex } = {}) => {
      const message = {
        from: buyer.address,
        to: overrides.to ?? receiver,
        value: overrides.value ?? 10_000_000n,
        validAfter: 0n,
        validBefore: overrides.validBefore ?? validBefore,
        nonce: overrides.nonce ?? ref("nonce 1"),
      };
      const signature = await signWithViem(
        buyer,
        transferAuthorizationTypedData(tokenDomain(chain.deployment.chainId, usdc, chain.deployment.token.eip712), message),
      );
      return { ...message, signature };
    };
    type Authorization = Awaited<ReturnType<typeof authorize>>;
    const settle = (a: Authorization, recipient: Address = merchant.address, from = stranger) =>
      chain.wallet(from).writeContract({
        address: receivers,
        abi: x402ReceiversAbi,
        functionName: "settle",
        args: [usdc, recipient, a.from, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
        account: from,
        chain: chain.chain,
      });
    const mined = (hash: Promise<Hex>) => hash.then((h) => chain.publicClient.waitForTransactionReceipt({ hash: h }));
    /** The merchant's receiver split by a stranger, mined. */
    const split = () =>
      mined(
        chain.wallet(stranger).writeContract({
          address: receivers,
          abi: x402ReceiversAbi,
          functionName: "split",
          args: [usdc, merchant.address],
          account: stranger,
          chain: chain.chain,
        }),
      );
    const balances = (...accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(chain, usdc, a)));
    return { chain, receivers, usdc, collector, buyer, merchant, stranger, receiver, authorize, settle, mined, split, balances };
  };

  it("the receiver's address is CREATE2 of X402Receivers, salt keccak256(abi.encode(recipient, token)), known before it exists", async () => {
    const { chain, receivers, usdc, merchant, receiver } = await setup();
    const codeHash = await chain.publicClient.readContract({ address: receivers, abi: x402ReceiversAbi, functionName: "RECEIVER_CODE_HASH" });
    assert.equal(codeHash, keccak256(creationBytecode("X402Receiver")));
    const salt = keccak256(encodeAbiParameters([{ type: "address" }, { type: "address" }], [merchant.address, usdc]));
    assert.equal(receiver, getContractAddress({ opcode: "CREATE2", from: receivers, salt, bytecodeHash: codeHash }));
    assert.equal(await chain.publicClient.getCode({ address: receiver }), undefined);
  });

  it("one transaction: the authorization pays the receiver, which splits it out and keeps nothing; ReceiverPaid names payer, recipient, nonce, amount and fee", async () => {
    const { buyer, merchant, collector, receiver, receivers, authorize, settle, mined, balances, chain } = await setup();
    for (const label of ["first (deploys the receiver)", "second (deployed)"]) {
      const before = await balances(buyer.address, merchant.address, collector, receiver, receivers);
      const a = await authorize({ nonce: ref(label) });
      const receipt = await mined(settle(a));
      assert.equal(receipt.status, "success");
      const after = await balances(buyer.address, merchant.address, collector, receiver, receivers);
      assert.deepEqual(
        after.map((b, i) => b - before[i]!),
        [-10_000_000n, 9_800_000n, 200_000n, 0n, 0n],
        label,
      );
      const [paid] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverPaid", logs: receipt.logs });
      assert.deepEqual(
        [getAddress(paid!.args.recipient), getAddress(paid!.args.payer), paid!.args.nonce, paid!.args.amount, paid!.args.fee],
        [merchant.address, buyer.address, a.nonce, 10_000_000n, 200_000n],
      );
      assert.isEmpty(parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: receipt.logs }));
    }
    assert.notEqual(await chain.publicClient.getCode({ address: receiver }), undefined, "the receiver stays deployed");
  });

  it("USDC's nonce is the guard: the same authorization again reverts and moves nothing", async () => {
    const { buyer, merchant, authorize, settle, mined, balances } = await setup();
    const a = await authorize();
    assert.equal((await mined(settle(a))).status, "success");
    const before = await balances(buyer.address, merchant.address);
    await expectRevert(settle(a), "Error", ["FiatTokenV2: authorization is used or canceled"]);
    assert.deepEqual(await balances(buyer.address, merchant.address), before);
  });

  it("expired, wrong amount, or redirected to another recipient's receiver: USDC refuses, nothing moves", async () => {
    const { buyer, stranger, receiver, authorize, settle, balances } = await setup();
    const before = await balances(buyer.address, receiver);
    await expectRevert(settle(await authorize({ validBefore: 1n })), "Error", ["FiatTokenV2: authorization is expired"]);
    await expectRevert(settle({ ...(await authorize({ value: 1n })), value: 10_000_000n }), "Error", ["FiatTokenV2: invalid signature"]);
    // The stranger's own receiver is another address: the buyer's signature names the merchant's.
    await expectRevert(settle(await authorize(), stranger.address), "Error", ["FiatTokenV2: invalid signature"]);
    assert.deepEqual(await balances(buyer.address, receiver), before);
  });

  it("front-run straight to USDC: the funds wait at the receiver until anyone's split sends them out split", async () => {
    const { chain, usdc, merchant, collector, stranger, receiver, authorize, split, balances } = await setup();
    const a = await authorize();
    await send(chain, stranger, {
      address: usdc,
      abi: fiatTokenAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
    });
    assert.equal((await balances(receiver))[0], 10_000_000n);
    const before = await balances(merchant.address, collector);
    const receipt = await split();
    const after = await balances(merchant.address, collector, receiver);
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!, after[2]], [9_800_000n, 200_000n, 0n]);
    const [reported] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: receipt.logs });
    assert.deepEqual([reported!.args.amount, reported!.args.fee, getAddress(reported!.args.receiver)], [10_000_000n, 200_000n, receiver]);
  });

  it("a plain transfer waiting at the receiver is split by the next settlement too, reported as its own ReceiverSplit", async () => {
    const { chain, usdc, buyer, merchant, collector, receiver, authorize, settle, mined, balances } = await setup();
    await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [receiver, 1_000_001n] });
    const before = await balances(merchant.address, collector);
    const receipt = await mined(settle(await authorize()));
    const after = await balances(merchant.address, collector, receiver);
    const total = 11_000_001n;
    const fee = (total * 200n) / 10_000n;
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!, after[2]], [total - fee, fee, 0n]);
    const [split] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: receipt.logs });
    assert.deepEqual([split!.args.amount, split!.args.fee], [1_000_001n, fee - 200_000n]);
  });

  it("a receiver holding a second ERC-20 (another FiatToken, as EURC is) is split by anyone's splitAsset, with its fee; ReceiverSplit names that token", async () => {
    const { chain, usdc, receivers, merchant, collector, stranger, receiver, mined, balances } = await setup();
    const eurc = "0x00000000000000000000000000000000000e0C00" as Address;
    // Placing a FiatToken sends as local keys only: no impersonating wallet is needed.
    await placeFiatToken({ ...chain, wallet: (a) => chain.wallet(a), rpcWallet: undefined as never }, eurc, chain.usdcRoles);
    await send(chain, chain.usdcRoles.minter, { address: eurc, abi: fiatTokenAbi, functionName: "mint", args: [receiver, 123_456_789n] });
    const eurcOf = (a: Address) => balanceOf(chain, eurc, a);
    const before = await Promise.all([eurcOf(merchant.address), eurcOf(collector)]);
    const usdcBefore = await balances(merchant.address, collector);
    const receipt = await mined(
      chain.wallet(stranger).writeContract({
        address: receivers,
        abi: x402ReceiversAbi,
        functionName: "splitAsset",
        args: [usdc, merchant.address, eurc],
        account: stranger,
        chain: chain.chain,
      }),
    );
    const fee = (123_456_789n * 200n) / 10_000n;
    const after = await Promise.all([eurcOf(merchant.address), eurcOf(collector), eurcOf(receiver)]);
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!, after[2]], [123_456_789n - fee, fee, 0n]);
    assert.deepEqual(await balances(merchant.address, collector), usdcBefore, "no USDC moved");
    const [split] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: receipt.logs });
    assert.deepEqual(
      [getAddress(split!.args.token), getAddress(split!.args.receiver), split!.args.amount, split!.args.fee],
      [getAddress(eurc), receiver, 123_456_789n, fee],
    );
  });

  it("nobody but X402Receivers can move a receiver's funds: a direct call is refused", async () => {
    const { chain, usdc, buyer, stranger, receiver, receivers, merchant, balances } = await setup();
    await send(chain, stranger, { address: receivers, abi: x402ReceiversAbi, functionName: "deployReceiver", args: [merchant.address, usdc] });
    await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [receiver, 5n] });
    // The three words X402Receivers sends, with the stranger as recipient and no fee.
    const data =
      `0x${BigInt(usdc).toString(16).padStart(64, "0")}${stranger.address.slice(2).toLowerCase().padStart(64, "0")}${stranger.address.slice(2).toLowerCase().padStart(64, "0")}` as Hex;
    let refused = false;
    await chain
      .wallet(stranger)
      .sendTransaction({ to: receiver, data, account: stranger, chain: chain.chain, gas: 200_000n })
      .then(
        (h) => chain.publicClient.waitForTransactionReceipt({ hash: h }).then((r) => (refused = r.status === "reverted")),
        () => (refused = true),
      );
    assert.isTrue(refused);
    assert.deepEqual(await balances(receiver), [5n]);
    assert.equal(await revertDataOf(chain, { from: stranger.address, to: receiver, data }), "0x", "refused with no data");
  });

  it("deployReceiver by anyone, once: a second call changes nothing; the zero recipient is refused", async () => {
    const { chain, usdc, stranger, receiver, receivers, merchant } = await setup();
    await send(chain, stranger, { address: receivers, abi: x402ReceiversAbi, functionName: "deployReceiver", args: [merchant.address, usdc] });
    const code = await chain.publicClient.getCode({ address: receiver });
    await send(chain, stranger, { address: receivers, abi: x402ReceiversAbi, functionName: "deployReceiver", args: [merchant.address, usdc] });
    assert.equal(await chain.publicClient.getCode({ address: receiver }), code);
    await expectRevert(
      chain.publicClient.simulateContract({
        address: receivers,
        abi: x402ReceiversAbi,
        functionName: "split",
        args: [usdc, "0x0000000000000000000000000000000000000000"],
        account: stranger,
      }),
      "InvalidRecipient",
    );
  });

  it("stateful invariants (fast-check) over settlements, replays, front-runs, plain transfers, splits and other tokens of any balance: a receiver never keeps a balance after a settlement or split, payouts sum to what arrived, the fee is never skipped (fee ≥ floor(bps × moved), any token), an authorization pays once", async function () {
    this.timeout(300_000);
    const { chain, usdc, receivers, buyer, merchant, collector, stranger } = await setup();
    // Recipients include the buyer and the fee collector themselves: the split must hold even then.
    const recipients: Address[] = [merchant.address, buyer.address, collector];
    const receiverOf = (r: Address) =>
      chain.publicClient.readContract({ address: receivers, abi: x402ReceiversAbi, functionName: "receiverOf", args: [r, usdc] });
    const receiverAddresses = await Promise.all(recipients.map(receiverOf));
    const watched = [...new Set([buyer.address, stranger.address, receivers, ...recipients, ...receiverAddresses])];
    const domain = tokenDomain(chain.deployment.chainId, usdc, chain.deployment.token.eip712);
    const validBefore = (await chain.publicClient.getBlock()).timestamp + 86_400n;
    const operation = fc.record({
      kind: fc.constantFrom("settle", "settle", "replay", "front-run", "plain", "split", "other"),
      recipient: fc.nat({ max: recipients.length - 1 }),
      amount: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(1n, 49n, 50n, 1_000_000n) }, { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 10n ** 9n }) }),
      // Another token's balance, any size a token can report (past what USDC could ever hold).
      otherUnits: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 2n ** 255n }), fc.constantFrom(2n ** 256n - 1n)),
    });
    let snapshot = await chain.snapshot();
    const seen = { settled: 0, refused: 0, split: 0, other: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 6 }), async (operations) => {
        await chain.revert(snapshot);
        snapshot = await chain.snapshot();
        const start = new Map(await Promise.all(watched.map(async (a) => [a, await balanceOf(chain, usdc, a)] as const)));
        const expected = new Map<Address, bigint>(watched.map((a) => [a, 0n]));
        const move = (from: Address, to: Address, units: bigint) => {
          expected.set(from, expected.get(from)! - units);
          expected.set(to, expected.get(to)! + units);
        };
        const used: Array<{ recipient: number; a: Awaited<ReturnType<typeof signed>> }> = [];
        let n = 0;
        async function signed(to: Address, value: bigint) {
          const message = { from: buyer.address, to, value, validAfter: 0n, validBefore, nonce: keccak256(toHex(`invariant ${n++}`)) };
          return { ...message, signature: await signWithViem(buyer, transferAuthorizationTypedData(domain, message)) };
        }
        /** The receiver's whole balance leaves, split, to its recipient and the fee collector. */
        const splitOut = (i: number) => {
          const receiver = receiverAddresses[i]!;
          const total = expected.get(receiver)! + start.get(receiver)!;
          const fee = (total * 200n) / 10_000n;
          move(receiver, recipients[i]!, total - fee);
          move(receiver, collector, fee);
        };
        for (const op of operations) {
          const receiver = receiverAddresses[op.recipient]!;
          const recipient = recipients[op.recipient]!;
          if (op.kind === "settle" || (op.kind === "replay" && used.length === 0)) {
            const a = await signed(receiver, op.amount);
            await send(chain, stranger, {
              address: receivers,
              abi: x402ReceiversAbi,
              functionName: "settle",
              args: [usdc, recipient, a.from, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
            });
            used.push({ recipient: op.recipient, a });
            move(buyer.address, receiver, op.amount);
            splitOut(op.recipient);
            seen.settled++;
          } else if (op.kind === "replay") {
            const { recipient: i, a } = used[used.length - 1]!;
            await expectRevert(
              chain.publicClient.simulateContract({
                address: receivers,
                abi: x402ReceiversAbi,
                functionName: "settle",
                args: [usdc, recipients[i]!, a.from, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
                account: stranger,
              }),
              "Error",
              ["FiatTokenV2: authorization is used or canceled"],
            );
            seen.refused++;
          } else if (op.kind === "front-run") {
            const a = await signed(receiver, op.amount);
            await send(chain, stranger, {
              address: usdc,
              abi: fiatTokenAbi,
              functionName: "transferWithAuthorization",
              args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
            });
            move(buyer.address, receiver, op.amount);
          } else if (op.kind === "plain") {
            await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [receiver, op.amount] });
            move(buyer.address, receiver, op.amount);
          } else if (op.kind === "other") {
            // An ERC-20 that is not USDC (returns nothing from transfer, as USDT does), outside the USDC
            // ledger; a fresh one each time, so no balance it reports can overflow another's.
            const other = await deployTestContract(chain, buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
            const read = (a: Address) => chain.publicClient.readContract({ address: other, abi: noReturnTokenAbi, functionName: "balanceOf", args: [a] });
            await send(chain, buyer, { address: other, abi: noReturnTokenAbi, functionName: "mint", args: [receiver, op.otherUnits] });
            const [held, recipientBefore, feeBefore] = await Promise.all([read(receiver), read(recipient), read(collector)]);
            await send(chain, stranger, { address: receivers, abi: x402ReceiversAbi, functionName: "splitAsset", args: [usdc, recipient, other] });
            const fee = (held * 200n) / 10_000n;
            const [heldAfter, recipientAfter, feeAfter] = await Promise.all([read(receiver), read(recipient), read(collector)]);
            assert.equal(heldAfter, 0n, "nothing of another token stays in a receiver");
            assert.isTrue(feeAfter - feeBefore >= fee, "fee ≥ floor(bps × moved) on another token");
            if (recipient !== collector) assert.deepEqual([recipientAfter - recipientBefore, feeAfter - feeBefore], [held - fee, fee]);
            seen.other++;
          } else {
            await send(chain, stranger, { address: receivers, abi: x402ReceiversAbi, functionName: "split", args: [usdc, recipient] });
            splitOut(op.recipient);
            seen.split++;
          }
          for (const a of watched) assert.equal((await balanceOf(chain, usdc, a)) - start.get(a)!, expected.get(a)!, `balance of ${a} after ${op.kind}`);
          if (op.kind === "settle" || op.kind === "split") assert.equal(await balanceOf(chain, usdc, receiver), 0n, "the receiver keeps nothing");
          assert.equal(expected.get(receivers), 0n, "X402Receivers never holds a balance");
        }
      }),
      { numRuns: 25, seed: 20261129, endOnFailure: true },
    );
    assert.isAbove(seen.settled, 20);
    assert.isAbove(seen.refused, 3);
    assert.isAbove(seen.split, 5);
    assert.isAbove(seen.other, 5);
  });

  it("refuses a bad configuration (a fee above 100%, the zero fee collector) and accepts exactly 100%", async () => {
    const { chain, buyer } = await setup();
    const deploy = (args: readonly [Address, number]) =>
      chain.wallet(buyer).deployContract({ abi: x402ReceiversAbi, bytecode: creationBytecode("X402Receivers"), args, account: buyer, chain: chain.chain });
    await expectRevert(deploy([buyer.address, 10_001]), "InvalidConfiguration", [buyer.address, 10_001]);
    await expectRevert(deploy([zeroAddress, 200]), "InvalidConfiguration", [zeroAddress, 200]);
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: await deploy([buyer.address, 10_000]) });
    assert.equal(receipt.status, "success");
    const read = (functionName: "FEE_BPS" | "FEE_COLLECTOR") =>
      chain.publicClient.readContract({ address: receipt.contractAddress!, abi: x402ReceiversAbi, functionName });
    assert.deepEqual([await read("FEE_BPS"), await read("FEE_COLLECTOR")], [10_000, buyer.address]);
  });

  it("the zero recipient is refused by every function (InvalidRecipient), even with an authorization naming its receiver", async () => {
    const { chain, usdc, receivers, stranger, authorize } = await setup();
    const simulate = { address: receivers, abi: x402ReceiversAbi, account: stranger } as const;
    const zeroReceiver = await chain.publicClient.readContract({
      address: receivers,
      abi: x402ReceiversAbi,
      functionName: "receiverOf",
      args: [zeroAddress, usdc],
    });
    const a = await authorize({ to: zeroReceiver });
    const settleArgs = [usdc, zeroAddress, a.from, a.value, a.validAfter, a.validBefore, a.nonce, a.signature] as const;
    await expectRevert(chain.publicClient.simulateContract({ ...simulate, functionName: "settle", args: settleArgs }), "InvalidRecipient", []);
    await expectRevert(chain.publicClient.simulateContract({ ...simulate, functionName: "deployReceiver", args: [zeroAddress, usdc] }), "InvalidRecipient", []);
    await expectRevert(chain.publicClient.simulateContract({ ...simulate, functionName: "split", args: [usdc, zeroAddress] }), "InvalidRecipient", []);
    await expectRevert(
      chain.publicClient.simulateContract({ ...simulate, functionName: "splitAsset", args: [usdc, zeroAddress, usdc] }),
      "InvalidRecipient",
      [],
    );
  });

  it("the recipient blacklisted by USDC: settle reverts with Circle's own reason (the receiver's transfer, bubbled whole), nothing moves, and the authorization pays once cleared", async () => {
    const { chain, usdc, buyer, merchant, collector, receiver, authorize, settle, mined, balances } = await setup();
    const roles = chain.usdcRoles;
    await send(chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "blacklist", args: [merchant.address] });
    const a = await authorize();
    const before = await balances(buyer.address, merchant.address, collector, receiver);
    await expectRevert(settle(a), "Error", ["Blacklistable: account is blacklisted"]);
    assert.deepEqual(await balances(buyer.address, merchant.address, collector, receiver), before);
    await send(chain, roles.blacklister, { address: usdc, abi: fiatTokenAbi, functionName: "unBlacklist", args: [merchant.address] });
    assert.equal((await mined(settle(a))).status, "success");
    const after = await balances(buyer.address, merchant.address, collector, receiver);
    assert.deepEqual(
      after.map((b, i) => b - before[i]!),
      [-10_000_000n, 9_800_000n, 200_000n, 0n],
    );
  });

  it("split: an empty receiver is deployed, moves nothing and reports nothing; one unit is split (fee 0) and reported", async () => {
    const { chain, usdc, buyer, merchant, receiver, split, balances } = await setup();
    const empty = await split();
    assert.equal(empty.status, "success");
    assert.notEqual(await chain.publicClient.getCode({ address: receiver }), undefined, "split deploys the receiver");
    assert.isEmpty(parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: empty.logs }));
    await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [receiver, 1n] });
    const before = await balances(merchant.address);
    const one = await split();
    const [reported] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: one.logs });
    assert.deepEqual([reported!.args.amount, reported!.args.fee], [1n, 0n]);
    assert.deepEqual(await balances(merchant.address, receiver), [before[0]! + 1n, 0n]);
  });

  it("splitAsset on a receiver not yet deployed deploys it and splits, reports nothing when nothing is held and one unit when one is; odd tokens: a false transfer is SafeERC20FailedOperation (the balance stays), a reverting balanceOf bubbles its reason whole, a silent one reverts with no data", async () => {
    const { chain, usdc, buyer, merchant, collector, stranger, receiver, receivers, mined } = await setup();
    const splitAsset = (asset: Address) =>
      chain.wallet(stranger).writeContract({
        address: receivers,
        abi: x402ReceiversAbi,
        functionName: "splitAsset",
        args: [usdc, merchant.address, asset],
        account: stranger,
        chain: chain.chain,
      });
    const plain = await deployTestContract(chain, buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
    const plainOf = (a: Address) => chain.publicClient.readContract({ address: plain, abi: noReturnTokenAbi, functionName: "balanceOf", args: [a] });
    await send(chain, buyer, { address: plain, abi: noReturnTokenAbi, functionName: "mint", args: [receiver, 1_234_567n] });
    assert.equal(await chain.publicClient.getCode({ address: receiver }), undefined);
    assert.equal((await mined(splitAsset(plain))).status, "success");
    // floor(1,234,567 × 2%) = 24,691: both parts of the receiver's fee (whole ten-thousands and the rest) count.
    assert.deepEqual(await Promise.all([plainOf(merchant.address), plainOf(collector), plainOf(receiver)]), [1_234_567n - 24_691n, 24_691n, 0n]);
    // What a merchant's books read: no ReceiverSplit when the receiver holds none of the asset, one for a single unit.
    const reported = async (asset: Address) =>
      parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: (await mined(splitAsset(asset))).logs });
    assert.isEmpty(await reported(plain), "nothing held: nothing reported");
    await send(chain, buyer, { address: plain, abi: noReturnTokenAbi, functionName: "mint", args: [receiver, 1n] });
    assert.deepEqual(
      (await reported(plain)).map((l) => [l.args.token, l.args.amount, l.args.fee]),
      [[plain, 1n, 0n]],
    );

    const falseToken = await deployTestContract(chain, buyer, falseReturningTokenAbi, "FalseReturningToken", "HostileTokens.sol");
    await send(chain, buyer, { address: falseToken, abi: falseReturningTokenAbi, functionName: "mint", args: [receiver, 555n] });
    await send(chain, buyer, { address: falseToken, abi: falseReturningTokenAbi, functionName: "setFailTransfers", args: [true] });
    await expectRevert(splitAsset(falseToken), "SafeERC20FailedOperation", [falseToken]);
    assert.equal(
      await chain.publicClient.readContract({ address: falseToken, abi: falseReturningTokenAbi, functionName: "balanceOf", args: [receiver] }),
      555n,
    );

    const broken = await deployTestContract(chain, buyer, brokenBalanceTokenAbi, "BrokenBalanceToken", "HostileTokens.sol");
    await expectRevert(splitAsset(broken), "BalanceUnavailable", [receiver]);
    await send(chain, buyer, { address: broken, abi: brokenBalanceTokenAbi, functionName: "setSilent", args: [true] });
    const data = encodeFunctionData({ abi: x402ReceiversAbi, functionName: "splitAsset", args: [usdc, merchant.address, broken] });
    assert.equal(await revertDataOf(chain, { from: stranger.address, to: receivers, data }), "0x", "a balance read of nothing: an empty revert");
  });
});

/** The revert data of an eth_call that must revert (an assertion fails when it answers). */
async function revertDataOf(chain: LocalChain, call: { from: Address; to: Address; data: Hex }): Promise<string | null> {
  const error = await chain.publicClient.request({ method: "eth_call", params: [call, "latest"] }).then(
    () => assert.fail("expected the call to revert"),
    (e: unknown) => e,
  );
  return revertData(error);
}
