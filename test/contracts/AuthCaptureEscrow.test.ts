import { assert } from "chai";
import { encodeAbiParameters, getAddress, keccak256, parseEventLogs, toHex, zeroAddress, type Address } from "viem";
import { authCaptureEscrowAbi, erc3009PaymentCollectorAbi, testRefundCollectorAbi, tokenStoreAbi } from "../../src/generated/contracts.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { deployTestContract } from "../helpers/deploy.js";
import { escrowCall, hashOf, holdParties, holdTerms, signHold, stateOf, type PaymentInfo } from "../helpers/holds.js";
import { expectRevert } from "../helpers/reverts.js";
import { approve, balanceOf } from "../helpers/tx.js";

/**
 * The project's stand-in for Commerce Payments' `AuthCaptureEscrow` and EIP-3009 collector, at the
 * canonical addresses on the local chain, with Circle's USDC: every rule the protocol's docs name
 * (operations, fees, token collectors, security), each by the custom error the canonical escrow raises.
 */
describe("AuthCaptureEscrow (the stand-in): holds with the payer's ERC-3009 authorization", () => {
  const local = useLocalChain();
  const setup = async (overrides: Partial<PaymentInfo> = {}) => {
    const chain = local.chain;
    const p = holdParties(chain);
    const info = await holdTerms(chain, overrides);
    const signature = await signHold(chain, p.payer, info);
    const call = escrowCall.bind(null, chain);
    const balances = (...accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(chain, p.usdc, a)));
    const store = await chain.publicClient.readContract({
      address: p.escrow,
      abi: authCaptureEscrowAbi,
      functionName: "getTokenStore",
      args: [p.operator.address],
    });
    const authorize = (amount = info.maxAmount, from = p.operator, i = info, sig = signature) =>
      call(from, { functionName: "authorize", args: [i, amount, p.collector, sig] });
    const capture = (amount: bigint, from = p.operator, feeAmount = (amount * 200n) / 10_000n, feeReceiver: Address = p.feeReceiver, i = info) =>
      call(from, { functionName: "capture", args: [i, amount, feeAmount, feeReceiver] });
    return { chain, ...p, info, signature, call, balances, store, authorize, capture };
  };

  it("authorize moves the signed maximum from the payer, returns the excess and holds the amount in the operator's store", async () => {
    const { payer, collector, escrow, store, info, balances, authorize, chain } = await setup();
    const before = await balances(payer.address, store, collector, escrow);
    const receipt = await authorize(40_000_000n);
    const after = await balances(payer.address, store, collector, escrow);
    assert.deepEqual(
      after.map((b, i) => b - before[i]!),
      [-40_000_000n, 40_000_000n, 0n, 0n],
    );
    const [event] = parseEventLogs({ abi: authCaptureEscrowAbi, eventName: "PaymentAuthorized", logs: receipt.logs });
    assert.equal(event!.args.paymentInfoHash, await hashOf(chain, info));
    assert.equal(event!.args.amount, 40_000_000n);
    assert.equal(getAddress(event!.args.tokenCollector), collector);
    assert.deepEqual(await stateOf(chain, info), { collected: true, capturable: 40_000_000n, refundable: 0n });
  });

  it("a hold of 50.00: capture 30.00, then 15.00, then void: the receiver gets 45.00 less 2%, the fee receiver the 2%, the payer 5.00 back", async () => {
    const { payer, receiver, feeReceiver, store, info, balances, authorize, capture, call, operator, chain } = await setup();
    const before = await balances(payer.address, receiver.address, feeReceiver, store);
    await authorize();
    const first = await capture(30_000_000n);
    await capture(15_000_000n);
    const voided = await call(operator, { functionName: "void", args: [info] });
    const after = await balances(payer.address, receiver.address, feeReceiver, store);
    assert.deepEqual(
      after.map((b, i) => b - before[i]!),
      [-45_000_000n, 44_100_000n, 900_000n, 0n],
    );
    const [captured] = parseEventLogs({ abi: authCaptureEscrowAbi, eventName: "PaymentCaptured", logs: first.logs });
    assert.deepInclude(captured!.args, { amount: 30_000_000n, feeAmount: 600_000n });
    const [void_] = parseEventLogs({ abi: authCaptureEscrowAbi, eventName: "PaymentVoided", logs: voided.logs });
    assert.equal(void_!.args.amount, 5_000_000n);
    assert.deepEqual(await stateOf(chain, info), { collected: true, capturable: 0n, refundable: 45_000_000n });
  });

  it("refuses a capture above what is still authorized (InsufficientAuthorization), after partial captures too", async () => {
    const { chain, info, authorize, capture } = await setup();
    await authorize(40_000_000n);
    const hash = await hashOf(chain, info);
    await expectRevert(capture(40_000_001n), "InsufficientAuthorization", [hash, 40_000_000n, 40_000_001n]);
    await capture(30_000_000n);
    await expectRevert(capture(10_000_001n), "InsufficientAuthorization", [hash, 10_000_000n, 10_000_001n]);
  });

  it("refuses a capture at or after the authorization expiry (AfterAuthorizationExpiry), and allows it the second before", async () => {
    const { chain, info, authorize, capture } = await setup();
    await authorize();
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(info.authorizationExpiry - 1) });
    await capture(1_000_000n);
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(info.authorizationExpiry) });
    await expectRevert(capture(1_000_000n), "AfterAuthorizationExpiry", [info.authorizationExpiry, info.authorizationExpiry]);
  });

  it("refuses a fee amount outside the signed bounds of the part (each rounded down), to another receiver than the one signed, or a fee to nobody", async () => {
    const { info, authorize, capture, stranger, balances, feeReceiver } = await setup({ minFeeBps: 100, maxFeeBps: 200 });
    await authorize();
    // 1.00 at 1% to 2%: 10,000 to 20,000 units.
    await expectRevert(capture(1_000_000n, undefined, 9_999n), "FeeAmountOutOfRange", [9_999n, 10_000n, 20_000n]);
    await expectRevert(capture(1_000_000n, undefined, 20_001n), "FeeAmountOutOfRange", [20_001n, 10_000n, 20_000n]);
    // 199 units: the bounds round down to 1 and 3.
    await expectRevert(capture(199n, undefined, 0n), "FeeAmountOutOfRange", [0n, 1n, 3n]);
    await expectRevert(capture(199n, undefined, 4n), "FeeAmountOutOfRange", [4n, 1n, 3n]);
    await expectRevert(capture(1_000_000n, undefined, 15_000n, stranger.address), "InvalidFeeReceiver", [stranger.address, info.feeReceiver]);
    const [before] = await balances(feeReceiver);
    await capture(1_000_000n, undefined, 15_000n);
    await capture(199n, undefined, 3n);
    const [after] = await balances(feeReceiver);
    assert.equal(after! - before!, 15_003n, "the fee moved is the fee amount named");
  });

  it("with no signed fee receiver the operator names one per capture, but never the zero address for a non-zero fee", async () => {
    const { balances, authorize, capture, stranger } = await setup({ feeReceiver: zeroAddress });
    await authorize();
    await expectRevert(capture(1_000_000n, undefined, 20_000n, zeroAddress), "ZeroFeeReceiver", []);
    const [before] = await balances(stranger.address);
    await capture(1_000_000n, undefined, 20_000n, stranger.address);
    const [after] = await balances(stranger.address);
    assert.equal(after! - before!, 20_000n);
  });

  it("refuses a replayed authorization: the same payment again (PaymentAlreadyCollected), the signature for other terms (USDC refuses it)", async () => {
    const { chain, info, signature, authorize } = await setup();
    await authorize(10_000_000n);
    const hash = await hashOf(chain, info);
    await expectRevert(authorize(10_000_000n), "PaymentAlreadyCollected", [hash]);
    // The same signature for a payment that differs only in its salt: its nonce is another hash.
    const other = { ...info, salt: 2n };
    await expectRevert(authorize(10_000_000n, undefined, other, signature), "Error", ["FiatTokenV2: invalid signature"]);
  });

  it("refuses a capture after void (InsufficientAuthorization) and a second void (ZeroAuthorization)", async () => {
    const { chain, info, authorize, capture, call, operator } = await setup();
    await authorize();
    await call(operator, { functionName: "void", args: [info] });
    const hash = await hashOf(chain, info);
    await expectRevert(capture(1n), "InsufficientAuthorization", [hash, 0n, 1n]);
    await expectRevert(call(operator, { functionName: "void", args: [info] }), "ZeroAuthorization", [hash]);
  });

  it("refuses a stranger calling any of the operator's functions (InvalidSender), and the collector and the operator's store to anyone but their escrow", async () => {
    const { chain, info, signature, authorize, capture, call, stranger, operator, collector, store } = await setup();
    const refused = [stranger.address, operator.address];
    await expectRevert(authorize(info.maxAmount, stranger), "InvalidSender", refused);
    await authorize();
    await expectRevert(capture(1_000_000n, stranger), "InvalidSender", refused);
    await expectRevert(call(stranger, { functionName: "void", args: [info] }), "InvalidSender", refused);
    await expectRevert(call(stranger, { functionName: "refund", args: [info, 1n, collector, "0x"] }), "InvalidSender", refused);
    await expectRevert(
      call(stranger, { functionName: "charge", args: [{ ...info, salt: 3n }, 1n, collector, signature, 0n, info.feeReceiver] }),
      "InvalidSender",
      refused,
    );
    await expectRevert(
      chain.publicClient.simulateContract({
        address: collector,
        abi: erc3009PaymentCollectorAbi,
        functionName: "collectTokens",
        args: [info, store, 1n, signature],
        account: stranger,
      }),
      "OnlyAuthCaptureEscrow",
      [],
    );
    // The operator's store holds the authorized funds: only the escrow that created it (at its first
    // payout, here a capture) moves them.
    await capture(1_000_000n);
    for (const caller of [stranger, operator])
      await expectRevert(
        chain.publicClient.simulateContract({
          address: store,
          abi: tokenStoreAbi,
          functionName: "sendTokens",
          args: [holdParties(chain).usdc, caller.address, 1n],
          account: caller,
        }),
        "OnlyAuthCaptureEscrow",
        [],
      );
  });

  it("lets only the payer reclaim, and only from the authorization expiry on", async () => {
    const { chain, info, authorize, call, payer, operator, balances } = await setup();
    await authorize();
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(info.authorizationExpiry - 1) });
    await expectRevert(call(payer, { functionName: "reclaim", args: [info] }), "BeforeAuthorizationExpiry", [
      info.authorizationExpiry - 1,
      info.authorizationExpiry,
    ]);
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(info.authorizationExpiry) });
    await expectRevert(call(operator, { functionName: "reclaim", args: [info] }), "InvalidSender", [operator.address, payer.address]);
    const [before] = await balances(payer.address);
    const receipt = await call(payer, { functionName: "reclaim", args: [info] });
    const [after] = await balances(payer.address);
    assert.equal(after! - before!, info.maxAmount);
    const [event] = parseEventLogs({ abi: authCaptureEscrowAbi, eventName: "PaymentReclaimed", logs: receipt.logs });
    assert.equal(event!.args.amount, info.maxAmount);
    const hash = await hashOf(chain, info);
    await expectRevert(call(payer, { functionName: "reclaim", args: [info] }), "ZeroAuthorization", [hash]);
  });

  it("refunds at most what was captured, before the refund expiry, and only through a refund collector", async () => {
    const { chain, info, authorize, capture, call, operator, payer, escrow, collector, usdc, balances } = await setup();
    const refunds = await deployTestContract(chain, operator, testRefundCollectorAbi, "TestRefundCollector", "TestRefundCollector.sol", [escrow]);
    await approve(chain, operator, usdc, refunds, 10n ** 12n);
    await authorize();
    await capture(20_000_000n);
    await expectRevert(call(operator, { functionName: "refund", args: [info, 20_000_001n, refunds, "0x"] }), "RefundExceedsCapture", [
      20_000_001n,
      20_000_000n,
    ]);
    await expectRevert(call(operator, { functionName: "refund", args: [info, 1n, collector, "0x"] }), "InvalidCollectorForOperation", []);
    const [before] = await balances(payer.address);
    await call(operator, { functionName: "refund", args: [info, 15_000_000n, refunds, "0x"] });
    const [after] = await balances(payer.address);
    assert.equal(after! - before!, 15_000_000n);
    await expectRevert(call(operator, { functionName: "refund", args: [info, 5_000_001n, refunds, "0x"] }), "RefundExceedsCapture", [5_000_001n, 5_000_000n]);
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(info.refundExpiry) });
    await expectRevert(call(operator, { functionName: "refund", args: [info, 1n, refunds, "0x"] }), "AfterRefundExpiry", [
      info.refundExpiry,
      info.refundExpiry,
    ]);
  });

  it("refuses to authorize outside the signed terms: over maxAmount, zero, after the pre-approval expiry, disordered expiries, bad fee bounds, a refund collector", async () => {
    const { chain, info, operator, escrow, authorize } = await setup();
    await expectRevert(authorize(info.maxAmount + 1n), "ExceedsMaxAmount", [info.maxAmount + 1n, info.maxAmount]);
    await expectRevert(authorize(0n), "ZeroAmount", []);
    const signed = async (overrides: Partial<PaymentInfo>) => {
      const terms = await holdTerms(chain, overrides);
      return [terms, await signHold(chain, holdParties(chain).payer, terms)] as const;
    };
    const [disordered, s1] = await signed({ authorizationExpiry: info.refundExpiry + 1 });
    await expectRevert(authorize(1n, operator, disordered, s1), "InvalidExpiries", [info.preApprovalExpiry, info.refundExpiry + 1, info.refundExpiry]);
    const [overflow, s2] = await signed({ maxFeeBps: 10_001 });
    await expectRevert(authorize(1n, operator, overflow, s2), "FeeBpsOverflow", [10_001]);
    const [range, s3] = await signed({ minFeeBps: 300, maxFeeBps: 200 });
    await expectRevert(authorize(1n, operator, range, s3), "InvalidFeeBpsRange", [300, 200]);
    const refunds = await deployTestContract(chain, operator, testRefundCollectorAbi, "TestRefundCollector", "TestRefundCollector.sol", [escrow]);
    await expectRevert(escrowCall(chain, operator, { functionName: "authorize", args: [info, 1n, refunds, "0x"] }), "InvalidCollectorForOperation", []);
    await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(info.preApprovalExpiry) });
    await expectRevert(authorize(), "AfterPreApprovalExpiry", [info.preApprovalExpiry, info.preApprovalExpiry]);
  });

  it("charge collects and pays out in one call, with the fee; the payment is then refundable, not capturable", async () => {
    const { chain, info, signature, call, operator, collector, receiver, feeReceiver, payer, balances } = await setup();
    const before = await balances(payer.address, receiver.address, feeReceiver);
    const receipt = await call(operator, { functionName: "charge", args: [info, 10_000_000n, collector, signature, 200_000n, feeReceiver] });
    const after = await balances(payer.address, receiver.address, feeReceiver);
    assert.deepEqual(
      after.map((b, i) => b - before[i]!),
      [-10_000_000n, 9_800_000n, 200_000n],
    );
    assert.lengthOf(parseEventLogs({ abi: authCaptureEscrowAbi, eventName: "PaymentCharged", logs: receipt.logs }), 1);
    assert.deepEqual(await stateOf(chain, info), { collected: true, capturable: 0n, refundable: 10_000_000n });
  });

  it("names a payment by its terms, the chain id and the escrow's own address (getHash)", async () => {
    const { chain, info, escrow } = await setup();
    const termsHash = keccak256(
      encodeAbiParameters(
        [
          { type: "bytes32" },
          { type: "address" },
          { type: "address" },
          { type: "address" },
          { type: "address" },
          { type: "uint120" },
          { type: "uint48" },
          { type: "uint48" },
          { type: "uint48" },
          { type: "uint16" },
          { type: "uint16" },
          { type: "address" },
          { type: "uint256" },
        ],
        [
          keccak256(
            toHex(
              "PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)",
            ),
          ),
          info.operator,
          info.payer,
          info.receiver,
          info.token,
          info.maxAmount,
          info.preApprovalExpiry,
          info.authorizationExpiry,
          info.refundExpiry,
          info.minFeeBps,
          info.maxFeeBps,
          info.feeReceiver,
          info.salt,
        ],
      ),
    );
    const expected = keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "address" }, { type: "bytes32" }], [84532n, escrow, termsHash]));
    assert.equal(await hashOf(chain, info), expected);
  });
});
