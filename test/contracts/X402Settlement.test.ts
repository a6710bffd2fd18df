import { assert } from "chai";
import { getAddress, keccak256, parseEventLogs, toHex, type Address, type Hex } from "viem";
import { depositForwarderAbi, fiatTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { expectRevert } from "../helpers/reverts.js";
import { signWithViem } from "../helpers/signers.js";
import { balanceOf, send } from "../helpers/tx.js";

const ref = (label: string): Hex => keccak256(toHex(label));

/**
 * `settleDepositFromAuthorization`, the x402 facilitator's settlement on Circle's USDC: the buyer's
 * TransferWithAuthorization to the payment address and the address's settlement in one transaction,
 * and what a stranger can do with the same authorization (the rows shared with every entry point are
 * in SplitterEntryPoints.test.ts).
 */
describe("Splitter: settling a payment address with the buyer's authorization (x402)", () => {
  const local = useLocalChain();
  const setup = async () => {
    const chain = local.chain;
    const splitter = chain.deployment.contracts.Splitter.address;
    const usdc = chain.deployment.token.address;
    const collector = chain.deployment.parameters.feeCollector;
    const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const stranger = chain.accounts[LOCAL_ROLES.firstUser + 2]!;
    const payment = [usdc, merchant.address, 10_000_000n, ref("x402 order")] as const;
    const payTo = await chain.publicClient.readContract({ address: splitter, abi: splitterAbi, functionName: "depositAddress", args: payment });
    const validBefore = (await chain.publicClient.getBlock()).timestamp + 600n;
    const authorize = async (overrides: { to?: Address; value?: bigint; validBefore?: bigint; nonce?: Hex } = {}) => {
      const message = {
        from: buyer.address,
        to: overrides.to ?? payTo,
        value: overrides.value ?? payment[2],
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
    const settle = (a: Authorization, from = stranger, args: readonly [Address, Address, bigint, Hex] = payment) =>
      chain.wallet(from).writeContract({
        address: splitter,
        abi: splitterAbi,
        functionName: "settleDepositFromAuthorization",
        args: [...args, a.from, a.validAfter, a.validBefore, a.nonce, a.signature],
        account: from,
        chain: chain.chain,
      });
    const mined = (hash: Promise<Hex>) => hash.then((h) => chain.publicClient.waitForTransactionReceipt({ hash: h }));
    const balances = (...accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(chain, usdc, a)));
    return { chain, splitter, usdc, collector, buyer, merchant, stranger, payment, payTo, authorize, settle, mined, balances };
  };

  it("one transaction: the authorization moves the amount to the payment address and the address splits it; Paid names the buyer", async () => {
    const { buyer, merchant, collector, splitter, payTo, authorize, settle, mined, balances } = await setup();
    const before = await balances(buyer.address, merchant.address, collector, payTo, splitter);
    const receipt = await mined(settle(await authorize()));
    assert.equal(receipt.status, "success");
    const after = await balances(buyer.address, merchant.address, collector, payTo, splitter);
    assert.deepEqual(
      after.map((b, i) => b - before[i]!),
      [-10_000_000n, 9_800_000n, 200_000n, 0n, 0n],
    );
    const [paid] = parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs });
    assert.equal(getAddress(paid!.args.payer), buyer.address);
  });

  it("a plain transfer already waiting at the payment address leaves with the authorization's amount, the fee on all of it (PaidInExcess)", async () => {
    const { chain, usdc, buyer, merchant, collector, payTo, authorize, settle, mined, balances } = await setup();
    await send(chain, buyer, { address: usdc, abi: fiatTokenAbi, functionName: "transfer", args: [payTo, 990_000_001n] });
    const before = await balances(merchant.address, collector);
    const receipt = await mined(settle(await authorize()));
    const after = await balances(merchant.address, collector, payTo);
    const moved = 1_000_000_001n;
    const fee = (moved * 200n) / 10_000n;
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!, after[2]], [moved - fee, fee, 0n]);
    const [excess] = parseEventLogs({ abi: depositForwarderAbi, eventName: "PaidInExcess", logs: receipt.logs });
    assert.deepEqual(excess!.args, { moved, fee });
    const [paid] = parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs });
    assert.include(paid!.args, { amount: 10_000_000n, fee: 200_000n });
  });

  it("front-run straight to USDC: the funds wait at the payment address, and the same call still splits them (Paid names the address)", async () => {
    const { chain, usdc, merchant, collector, stranger, payTo, authorize, settle, mined, balances } = await setup();
    const a = await authorize();
    await send(chain, stranger, {
      address: usdc,
      abi: fiatTokenAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
    });
    assert.equal((await balances(payTo))[0], 10_000_000n);
    const before = await balances(merchant.address, collector);
    const receipt = await mined(settle(a));
    assert.equal(receipt.status, "success");
    const after = await balances(merchant.address, collector, payTo);
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!, after[2]], [9_800_000n, 200_000n, 0n]);
    const [paid] = parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs });
    assert.equal(getAddress(paid!.args.payer), getAddress(payTo), "the authorization did not move the funds in this call");
  });

  it("front-run through the Splitter: the second submission reverts AlreadySettled, and the buyer paid once", async () => {
    const { buyer, merchant, payTo, authorize, settle, mined, balances, chain } = await setup();
    const a = await authorize();
    const first = await mined(settle(a, chain.accounts[LOCAL_ROLES.firstUser + 5]!));
    const before = await balances(buyer.address, merchant.address);
    await expectRevert(settle(a), "AlreadySettled");
    assert.deepEqual(await balances(buyer.address, merchant.address), before);
    assert.equal((await balances(payTo))[0], 0n);
    assert.equal(first.status, "success");
  });

  it("a stranger's own authorization or a made-up payer moves nothing: the token's refusal is the answer", async () => {
    const { buyer, stranger, payTo, authorize, settle, balances } = await setup();
    const before = await balances(buyer.address, payTo);
    // Expired, for another amount, or a signature over another address: USDC refuses each, nothing moves.
    await expectRevert(settle(await authorize({ validBefore: 1n })), "Error", ["FiatTokenV2: authorization is expired"]);
    const wrong = await authorize({ value: 1n });
    await expectRevert(settle({ ...wrong, value: 10_000_000n }), "Error", ["FiatTokenV2: invalid signature"]);
    await expectRevert(settle({ ...(await authorize()), from: stranger.address }), "Error", ["FiatTokenV2: invalid signature"]);
    assert.deepEqual(await balances(buyer.address, payTo), before);
  });

  it("cannot be redirected: the authorization names the payment address, so settling another payment with it finds nothing there", async () => {
    const { merchant, stranger, buyer, usdc, authorize, settle, balances, payTo } = await setup();
    const a = await authorize();
    const before = await balances(buyer.address, merchant.address, stranger.address, payTo);
    // The stranger's own recipient: another key, another (empty) address; the buyer's signature is not for it.
    const redirected = [usdc, stranger.address, 10_000_000n, ref("x402 order")] as const;
    await expectRevert(settle(a, stranger, redirected), "Error", ["FiatTokenV2: invalid signature"]);
    assert.deepEqual(await balances(buyer.address, merchant.address, stranger.address, payTo), before);
  });

  it("USDC paused: Circle's reason, not a settlement, and the authorization still pays once USDC resumes", async () => {
    const { chain, usdc, merchant, authorize, settle, mined, balances } = await setup();
    const a = await authorize();
    await send(chain, chain.usdcRoles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "pause", args: [] });
    await expectRevert(settle(a), "Error", ["Pausable: paused"]);
    await send(chain, chain.usdcRoles.pauser, { address: usdc, abi: fiatTokenAbi, functionName: "unpause", args: [] });
    const [before] = await balances(merchant.address);
    assert.equal((await mined(settle(a))).status, "success");
    const [after] = await balances(merchant.address);
    assert.equal(after! - before!, 9_800_000n);
  });

  it("an amount of 2^96 or more is refused (InvalidPayment), as settleDeposit refuses it", async () => {
    const { usdc, merchant, authorize, settle } = await setup();
    const huge = [usdc, merchant.address, 1n << 96n, ref("huge")] as const;
    await expectRevert(settle(await authorize({ value: 1n << 96n }), undefined, huge), "InvalidPayment", [merchant.address, 1n << 96n]);
  });
});
