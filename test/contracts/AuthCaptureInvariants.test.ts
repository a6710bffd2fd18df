import { assert } from "chai";
import fc from "fast-check";
import { parseEventLogs, zeroAddress, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { authCaptureEscrowAbi, testRefundCollectorAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { deployTestContract } from "../helpers/deploy.js";
import { escrowCall, hashOf, holdParties, holdTerms, signHold, stateOf, type EscrowCall, type PaymentInfo } from "../helpers/holds.js";
import { approve, balanceOf } from "../helpers/tx.js";

/** Fixed seed: a failure replays exactly, and fast-check prints the shrunk sequence. */
const RUNS = { numRuns: 40, seed: 20261129, endOnFailure: true } as const;

/** The phases of a payment's life the operations move the chain's clock through. */
const PHASES = ["authorizable", "capturable", "refundable", "final"] as const;

/** The model's record of one payment, in token units. */
interface Model {
  collected: boolean;
  authorized: bigint;
  captured: bigint;
  released: bigint;
  refunded: bigint;
}

/**
 * Stateful property tests on the stand-in escrow (fast-check, as Invariants.test.ts does): random
 * sequences of authorize, capture (fees in and out of the signed bounds), void, reclaim, refund and
 * moves of the clock across the expiries, on three payments of two operators, checked after every
 * operation against a model: each call succeeds exactly when the rules allow it; each operator's store
 * holds exactly the sum of what its payments may still capture (the escrow and the collector hold
 * nothing: captured funds leave at once, so `refundableAmount` is a bound, not a balance); captured +
 * voided or reclaimed ≤ authorized; refunded ≤ captured; and each capture's fee is within the signed
 * bounds and exactly `amount × feeBps / 10_000` rounded down, the rest to the receiver.
 */
describe("AuthCaptureEscrow (the stand-in): invariants (stateful property tests)", function () {
  this.timeout(600_000);
  const local = useLocalChain();

  it("keeps each store equal to what is capturable, captured + released ≤ authorized, refunded ≤ captured, and every fee within its bounds, over any sequence", async () => {
    const chain = local.chain;
    const p = holdParties(chain);
    const secondOperator = chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    const operators: HDAccount[] = [p.operator, p.operator, secondOperator];
    const refunds = await deployTestContract(chain, p.operator, testRefundCollectorAbi, "TestRefundCollector", "TestRefundCollector.sol", [p.escrow]);
    for (const operator of new Set(operators)) await approve(chain, operator, p.usdc, refunds, 10n ** 15n);
    const storeOf = (operator: Address) =>
      chain.publicClient.readContract({ address: p.escrow, abi: authCaptureEscrowAbi, functionName: "getTokenStore", args: [operator] });
    const stores = await Promise.all(operators.map((o) => storeOf(o.address)));
    /** Fee bounds per payment: a range, a fixed fee, no fee with a receiver the operator names. */
    const bounds = [
      { minFeeBps: 100, maxFeeBps: 300, feeReceiver: p.feeReceiver },
      { minFeeBps: 200, maxFeeBps: 200, feeReceiver: p.feeReceiver },
      { minFeeBps: 0, maxFeeBps: 0, feeReceiver: zeroAddress },
    ];
    const payment = fc.nat({ max: 2 });
    const units = fc.oneof(
      { weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 50_000_000n }) },
      { weight: 1, arbitrary: fc.constantFrom(0n, 1n, 49_999_999n, 50_000_000n, 50_000_001n) },
    );
    const operation = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant("authorize" as const), payment, units }) },
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant("capture" as const),
          payment,
          units: fc.oneof({ weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 20_000_000n }) }, { weight: 1, arbitrary: units }),
          // null: a fee within the payment's own bounds (its lowest); otherwise any, often outside them.
          feeBps: fc.option(fc.constantFrom(0, 99, 100, 150, 200, 201, 300, 301), { freq: 2 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("void" as const), payment }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("reclaim" as const), payment }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("refund" as const), payment, units }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("advance" as const), to: fc.nat({ max: PHASES.length - 1 }) }) },
    );
    let snapshot = await chain.snapshot();
    const seen = { succeeded: 0, refused: 0 };

    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 6, maxLength: 20 }), async (operations) => {
        await chain.revert(snapshot);
        snapshot = await chain.snapshot();
        const infos: PaymentInfo[] = await Promise.all(
          bounds.map((b, i) => holdTerms(chain, { ...b, operator: operators[i]!.address, salt: BigInt(i + 1), refundExpiry: 0 })),
        );
        // Expiries: authorizable for 10 minutes, capturable for an hour, refundable for two.
        for (const info of infos) info.refundExpiry = info.authorizationExpiry + 3600;
        const phaseStart = [0, infos[0]!.preApprovalExpiry, infos[0]!.authorizationExpiry, infos[0]!.refundExpiry];
        let phase = 0;
        const signatures: Hex[] = await Promise.all(infos.map((info) => signHold(chain, p.payer, info)));
        const models: Model[] = infos.map(() => ({ collected: false, authorized: 0n, captured: 0n, released: 0n, refunded: 0n }));
        const capturable = (m: Model) => m.authorized - m.captured - m.released;
        const receiverBefore = await balanceOf(chain, p.usdc, p.receiver.address);
        let receiverExpected = 0n;

        /** What the escrow's events say moved, per payment hash: the chain's own account, not the model's. */
        const hashes = await Promise.all(infos.map((info) => hashOf(chain, info)));
        const moved = new Map(hashes.map((h) => [h, { authorized: 0n, captured: 0n, released: 0n, refunded: 0n }]));
        const attempt = async (from: HDAccount, call: EscrowCall) => {
          let receipt: Awaited<ReturnType<typeof escrowCall>>;
          try {
            receipt = await escrowCall(chain, from, call);
          } catch {
            return null;
          }
          for (const log of parseEventLogs({ abi: authCaptureEscrowAbi, logs: receipt.logs })) {
            if (!("paymentInfoHash" in log.args) || !("amount" in log.args)) continue;
            const tally = moved.get(log.args.paymentInfoHash)!;
            if (log.eventName === "PaymentAuthorized") tally.authorized += log.args.amount;
            else if (log.eventName === "PaymentCaptured") tally.captured += log.args.amount;
            else if (log.eventName === "PaymentVoided" || log.eventName === "PaymentReclaimed") tally.released += log.args.amount;
            else if (log.eventName === "PaymentRefunded") tally.refunded += log.args.amount;
          }
          return receipt;
        };
        for (const op of operations) {
          if (op.kind === "advance") {
            if (op.to > phase) {
              phase = op.to;
              await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(phaseStart[phase]!) });
              await chain.mine(1);
            }
            continue;
          }
          const i = op.payment;
          const info = infos[i]!;
          const m = models[i]!;
          const operator = operators[i]!;
          let allowed: boolean;
          let receipt: Awaited<ReturnType<typeof attempt>>;
          if (op.kind === "authorize") {
            allowed = !m.collected && op.units > 0n && op.units <= info.maxAmount && phase === 0;
            receipt = await attempt(operator, { functionName: "authorize", args: [info, op.units, p.collector, signatures[i]!] });
            if (allowed) Object.assign(m, { collected: true, authorized: op.units });
          } else if (op.kind === "capture") {
            const feeReceiver = info.feeReceiver === zeroAddress ? p.stranger.address : info.feeReceiver;
            const feeBps = op.feeBps ?? info.minFeeBps;
            const feeAmount = (op.units * BigInt(feeBps)) / 10_000n;
            const [minFee, maxFee] = [info.minFeeBps, info.maxFeeBps].map((bps) => (op.units * BigInt(bps)) / 10_000n);
            const inBounds = feeAmount >= minFee! && feeAmount <= maxFee!;
            allowed = phase <= 1 && inBounds && op.units > 0n && op.units <= capturable(m);
            const feeBefore = await balanceOf(chain, p.usdc, feeReceiver);
            receipt = await attempt(operator, { functionName: "capture", args: [info, op.units, feeAmount, feeReceiver] });
            const fee = allowed ? feeAmount : 0n;
            assert.equal((await balanceOf(chain, p.usdc, feeReceiver)) - feeBefore, fee, "the fee receiver got exactly the fee");
            if (receipt) {
              const [captured] = parseEventLogs({ abi: authCaptureEscrowAbi, eventName: "PaymentCaptured", logs: receipt.logs });
              assert.isTrue(captured!.args.feeAmount >= minFee! && captured!.args.feeAmount <= maxFee!, "a capture's fee outside its bounds");
            }
            if (allowed) {
              m.captured += op.units;
              receiverExpected += op.units - fee;
            }
          } else if (op.kind === "void" || op.kind === "reclaim") {
            allowed = capturable(m) > 0n && (op.kind === "void" || phase >= 2);
            receipt = await attempt(op.kind === "void" ? operator : p.payer, { functionName: op.kind, args: [info] });
            if (allowed) m.released += capturable(m);
          } else {
            allowed = phase <= 2 && op.units > 0n && op.units <= m.captured - m.refunded;
            receipt = await attempt(operator, { functionName: "refund", args: [info, op.units, refunds, "0x"] });
            if (allowed) m.refunded += op.units;
          }
          assert.equal(
            receipt !== null,
            allowed,
            `${op.kind} ${allowed ? "refused" : "allowed"} against the rules: ${JSON.stringify(op, (_, v) => (typeof v === "bigint" ? String(v) : v))}`,
          );
          if (allowed) seen.succeeded++;
          else seen.refused++;

          // The invariants, after every operation.
          const states = await Promise.all(infos.map((info) => stateOf(chain, info)));
          for (const [j, model] of models.entries()) {
            const tally = moved.get(hashes[j]!)!;
            assert.isTrue(tally.captured + tally.released <= tally.authorized, "captured + voided or reclaimed > authorized");
            assert.isTrue(tally.refunded <= tally.captured, "refunded > captured");
            assert.deepEqual(states[j], {
              collected: tally.authorized > 0n,
              capturable: tally.authorized - tally.captured - tally.released,
              refundable: tally.captured - tally.refunded,
            });
            assert.deepEqual(states[j], { collected: model.collected, capturable: capturable(model), refundable: model.captured - model.refunded });
          }
          for (const store of new Set(stores)) {
            const held = states.filter((_, j) => stores[j] === store).reduce((sum, state) => sum + state.capturable, 0n);
            assert.equal(await balanceOf(chain, p.usdc, store), held, "a store holds other than the capturable amounts its escrow records");
          }
          assert.equal(await balanceOf(chain, p.usdc, p.escrow), 0n);
          assert.equal(await balanceOf(chain, p.usdc, p.collector), 0n);
        }
        assert.equal((await balanceOf(chain, p.usdc, p.receiver.address)) - receiverBefore, receiverExpected, "the receiver got other than captures less fees");
      }),
      RUNS,
    );
    // The sequences reached both sides of the rules.
    console.log(`      ${seen.succeeded} operations allowed, ${seen.refused} refused`);
    assert.isAbove(seen.succeeded, 60);
    assert.isAbove(seen.refused, 60);
  });
});
