import { assert } from "chai";
import fc from "fast-check";
import { encodeAbiParameters, erc20Abi, keccak256, parseEventLogs, toHex, type Address, type Hex } from "viem";
import { noReturnTokenAbi, recurringChargesAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { subscriptionIdOf, type Terms } from "../../src/recurring/terms.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { approve, balanceOf, send } from "../helpers/tx.js";
import { depositAddressOf, payThrough, SPLITTER_ENTRY_POINTS, type PaymentParties, type SplitterPayment } from "../helpers/splitter-entry-points.js";
import { makeTerms, relayerOf, signTerms } from "../helpers/subscriptions.js";
import { deployTestContract } from "../helpers/deploy.js";

/**
 * Stateful property tests on the contracts (fast-check, fixed seed: a failure replays exactly, and
 * fast-check prints the shrunk sequence). Each run starts from the same fresh chain (snapshot/revert),
 * applies a random sequence of operations, and checks the invariants against a model after each one.
 */
const RUNS = { numRuns: 30, seed: 20261125, endOnFailure: true } as const;

/** A ledger of expected token movements, account by account. */
class Ledger {
  readonly #deltas = new Map<Address, bigint>();
  move(from: Address, to: Address, units: bigint): void {
    this.#deltas.set(from, (this.#deltas.get(from) ?? 0n) - units);
    this.#deltas.set(to, (this.#deltas.get(to) ?? 0n) + units);
  }
  of(account: Address): bigint {
    return this.#deltas.get(account) ?? 0n;
  }
}

describe("contract invariants (stateful property tests)", function () {
  this.timeout(300_000);
  const local = useLocalChain();

  describe("Splitter", () => {
    const keyOf = (p: SplitterPayment): Hex =>
      keccak256(
        encodeAbiParameters(
          [{ type: "address" }, { type: "address" }, { type: "uint256" }, { type: "bytes32" }],
          [p.token, p.recipient, p.amount, p.reference],
        ),
      );

    it("never keeps a balance (nor do payment addresses once settled and forwarded), pays out exactly what was paid (amount - fee and fee), settles each payment once, and takes the fee on everything that leaves a payment address (fee ≥ floor(bps × moved), any balance at or above the amount, any token), over any sequence of payments through any entry point, deposits and forwards", async () => {
      const chain = local.chain;
      const usdc = chain.deployment.token.address;
      const collector = chain.deployment.parameters.feeCollector;
      const parties: PaymentParties = {
        chain,
        splitter: chain.deployment.contracts.Splitter.address,
        buyer: chain.accounts[LOCAL_ROLES.firstUser]!,
        submitter: chain.accounts[LOCAL_ROLES.firstUser + 2]!,
      };
      // Recipients include the buyer and the fee collector themselves: the split must hold even then.
      const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
      const recipients: Address[] = [merchant.address, parties.buyer.address, collector];
      /** Who may sign as a recipient (the fee collector has no local key: deposits name the other two). */
      const walletOf = (recipient: Address) => [merchant, parties.buyer].find((a) => a.address === recipient)!;
      const watched = [...new Set([parties.buyer.address, parties.submitter.address, parties.splitter, ...recipients])];
      const feeOf = (units: bigint) => (units * 200n) / 10_000n;
      // Few references and amounts, so a sequence often repeats a payment (the settle-once path).
      const amount = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(1n, 49n, 50n, 1_000_000n) },
        { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 10n ** 9n }) },
      );
      const operation = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant("pay" as const),
            entry: fc.nat({ max: SPLITTER_ENTRY_POINTS.length - 1 }),
            recipient: fc.nat({ max: recipients.length - 1 }),
            amount,
            reference: fc.nat({ max: 1 }),
          }),
        },
        {
          // A plain transfer to a payment's address (short of the amount, the amount, or more), then a
          // forward of the payment's own token by its recipient or by a stranger.
          weight: 2,
          arbitrary: fc.record({
            kind: fc.constant("deposit" as const),
            recipient: fc.nat({ max: 1 }),
            amount,
            reference: fc.nat({ max: 1 }),
            units: fc.constantFrom(-1n, 0n, 1n, -10n),
            byRecipient: fc.boolean(),
          }),
        },
        {
          // Another ERC-20 sent to a payment's address, in any quantity (past 2^96 too): anyone forwards it.
          weight: 1,
          arbitrary: fc.record({
            kind: fc.constant("other" as const),
            recipient: fc.nat({ max: 1 }),
            amount,
            reference: fc.nat({ max: 1 }),
            units: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.constantFrom(1n, 49n, 50n, 2n ** 96n - 1n, 2n ** 96n)),
          }),
        },
      );
      const other = await deployTestContract(chain, parties.buyer, noReturnTokenAbi, "NoReturnToken", "HostileTokens.sol");
      let snapshot = await chain.snapshot();
      const seen = { settled: 0, refused: 0, forwarded: 0, forwardRefused: 0, overpaid: 0, otherForwarded: 0 };

      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 10 }), async (operations) => {
          await chain.revert(snapshot);
          snapshot = await chain.snapshot();
          const start = await Promise.all(watched.map((a) => balanceOf(chain, usdc, a)));
          const ledger = new Ledger();
          const settled = new Map<Hex, bigint>();
          const held = new Map<Address, { payment: SplitterPayment; units: bigint }>();
          const hold = (deposit: Address, payment: SplitterPayment, units: bigint) => {
            ledger.move(parties.buyer.address, deposit, units);
            held.set(deposit, { payment, units: (held.get(deposit)?.units ?? 0n) + units });
          };
          /**
           * Runs `move`, a transaction out of payment address `deposit`, and checks the fee collector's
           * take against what left the address: at least floor(bps × moved), whatever moved (a forward,
           * a settlement of the amount or of more, any token). A settlement's `moved` also counts what
           * its own authorization brought in (`arriving`).
           */
          const movement = async (deposit: Address, arriving: bigint, move: () => Promise<unknown>, token: Address = usdc) => {
            const read = (a: Address) => chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [a] });
            const before = await Promise.all([read(deposit), read(collector)]);
            await move();
            const after = await Promise.all([read(deposit), read(collector)]);
            const moved = before[0]! + arriving - after[0]!;
            const take = after[1]! - before[1]!;
            assert.isTrue(take >= feeOf(moved), `the fee collector's take ${take} on ${moved} moved out of a payment address`);
            return moved;
          };
          /** A forward of the payment's own token: the ledger's split of everything waiting at the address. */
          const forwardAll = (deposit: Address, payment: SplitterPayment) => {
            const units = held.get(deposit)?.units ?? 0n;
            ledger.move(deposit, payment.recipient, units - feeOf(units));
            ledger.move(deposit, collector, feeOf(units));
            held.delete(deposit);
            return units;
          };
          const forward = (payment: SplitterPayment & { asset?: Address }, by: PaymentParties["buyer"]) =>
            send(chain, by, {
              address: parties.splitter,
              abi: splitterAbi,
              functionName: "forwardDeposit",
              args: [payment.token, payment.recipient, payment.amount, payment.reference, payment.asset ?? usdc],
            });
          // The EIP-3009 entry points sign USDC's nonce authorizationNonce(recipient, reference):
          // USDC takes one authorization per buyer for it, whatever the amount.
          const authorizationsUsed = new Set<string>();
          for (const op of operations) {
            const payment: SplitterPayment = {
              token: usdc,
              recipient: recipients[op.recipient]!,
              amount: op.amount,
              reference: keccak256(toHex(op.reference)),
            };
            const key = keyOf(payment);
            const deposit = await depositAddressOf(parties, payment);
            if (op.kind === "deposit") {
              const units = op.amount + op.units > 0n ? op.amount + op.units : 1n;
              await send(chain, parties.buyer, { address: usdc, abi: erc20Abi, functionName: "transfer", args: [deposit, units] });
              hold(deposit, payment, units);
              const waiting = held.get(deposit)!.units;
              const allowed = settled.has(key) || (op.byRecipient && waiting < payment.amount);
              const by = op.byRecipient ? walletOf(payment.recipient) : parties.submitter;
              const outcome = await movement(deposit, 0n, () => forward(payment, by)).then(
                (moved) => ({ moved }),
                (error: unknown) => ({ error }),
              );
              if (allowed) {
                assert.property(outcome, "moved", "a forward the rule allows goes through");
                assert.equal((outcome as { moved: bigint }).moved, forwardAll(deposit, payment));
                seen.forwarded++;
              } else {
                assert.property(outcome, "error", "the payment's own token, unsettled: a stranger, or the amount or more, is refused");
                assert.match(
                  String((outcome as { error: unknown }).error),
                  waiting >= payment.amount && op.byRecipient ? /DepositCoversAmount/ : /NotRecipient/,
                );
                seen.forwardRefused++;
              }
            } else if (op.kind === "other") {
              // Not USDC: outside the ledger. Whatever arrives leaves whole, by anyone's forward, with
              // the fee on all of it; 2^96 or more cannot be packed in the forwarder's instructions.
              await send(chain, parties.buyer, { address: other, abi: noReturnTokenAbi, functionName: "mint", args: [deposit, op.units] });
              const waiting = await chain.publicClient.readContract({ address: other, abi: erc20Abi, functionName: "balanceOf", args: [deposit] });
              const read = (a: Address) => chain.publicClient.readContract({ address: other, abi: erc20Abi, functionName: "balanceOf", args: [a] });
              const recipientBefore = await read(payment.recipient);
              const outcome = await movement(deposit, 0n, () => forward({ ...payment, asset: other }, parties.submitter), other).then(
                (moved) => ({ moved }),
                (error: unknown) => ({ error }),
              );
              if (waiting >= 2n ** 96n) {
                assert.match(String((outcome as { error: unknown }).error), /InvalidPayment/);
              } else {
                assert.equal((outcome as { moved: bigint }).moved, waiting);
                if (payment.recipient !== collector) assert.equal((await read(payment.recipient)) - recipientBefore, waiting - feeOf(waiting));
                assert.equal(await read(deposit), 0n);
                seen.otherForwarded++;
              }
            } else {
              const entry = SPLITTER_ENTRY_POINTS[op.entry]!;
              const nonce = `${payment.recipient}:${payment.reference}`;
              const byAuthorization = entry.name.startsWith("payWithAuthorization");
              const throughAddress = entry.name.startsWith("settleDeposit");
              const pay = () => payThrough(entry, parties, payment);
              const outcome = await (throughAddress && !settled.has(key) ? movement(deposit, payment.amount, pay) : pay()).then(
                (receipt) => ({ receipt }),
                (error: unknown) => ({ error }),
              );
              if (settled.has(key) || (byAuthorization && authorizationsUsed.has(nonce))) {
                assert.property(outcome, "error", `${entry.name}: a settled payment (or a used authorization) must not settle again`);
                seen.refused++;
                // A plain transfer made before the refusal waits at the payment address (forwarded below).
                if (entry.holdsOnRefusal) hold(deposit, payment, payment.amount);
              } else {
                seen.settled++;
                if (byAuthorization) authorizationsUsed.add(nonce);
                assert.property(outcome, "receipt", `${entry.name}: an open payment settles`);
                settled.set(key, await chain.publicClient.getBlockNumber());
                // Settling through the address moves what waited there too, and the fee is on all of it.
                const waiting = throughAddress ? (held.get(deposit)?.units ?? 0n) : 0n;
                const fee = feeOf(payment.amount + waiting);
                if (waiting > 0n) seen.overpaid++;
                ledger.move(parties.buyer.address, payment.recipient, payment.amount);
                ledger.move(deposit, payment.recipient, waiting);
                ledger.move(payment.recipient, collector, fee);
                held.delete(deposit);
              }
            }
            const now = await Promise.all(watched.map((a) => balanceOf(chain, usdc, a)));
            for (const [i, account] of watched.entries()) assert.equal(now[i]! - start[i]!, ledger.of(account), `balance of ${account}`);
            assert.equal(ledger.of(parties.splitter), 0n);
            for (const [address, { units }] of held) assert.equal(await balanceOf(chain, usdc, address), units, "a deposit not moved waits at its address");
          }
          // Whatever waits at a payment's address reaches its recipient, less the fee; the address keeps
          // nothing: forwarded by anyone once settled, by the recipient when short, settled otherwise.
          for (const [deposit, { payment, units }] of held) {
            const before = await Promise.all([balanceOf(chain, usdc, payment.recipient), balanceOf(chain, usdc, collector)]);
            const key = keyOf(payment);
            const fee = feeOf(units);
            if (settled.has(key)) await movement(deposit, 0n, () => forward(payment, parties.submitter));
            else if (units < payment.amount) await movement(deposit, 0n, () => forward(payment, walletOf(payment.recipient)));
            else {
              await movement(deposit, 0n, () =>
                send(chain, parties.submitter, {
                  address: parties.splitter,
                  abi: splitterAbi,
                  functionName: "settleDeposit",
                  args: [payment.token, payment.recipient, payment.amount, payment.reference],
                }),
              );
            }
            const after = await Promise.all([balanceOf(chain, usdc, payment.recipient), balanceOf(chain, usdc, collector)]);
            if (payment.recipient !== collector) assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], [units - fee, fee]);
            assert.equal(await balanceOf(chain, usdc, deposit), 0n);
          }
          for (const [key, block] of settled) {
            const recorded = await chain.publicClient.readContract({ address: parties.splitter, abi: splitterAbi, functionName: "settledBlock", args: [key] });
            assert.equal(recorded, block, "the guard records the block of the one settlement");
          }
        }),
        // More runs than the default: a run splits its operations between payments and deposits.
        { ...RUNS, numRuns: 100 },
      );
      assert.isAbove(seen.refused, 10, "the runs try settled payments again");
      assert.isAbove(seen.settled, 40, "the runs settle payments");
      assert.isAbove(seen.forwarded, 10, "the runs forward deposits");
      assert.isAbove(seen.forwardRefused, 10, "the runs try forwards the rule refuses");
      assert.isAbove(seen.overpaid, 0, "the runs settle payment addresses holding more than the amount");
      assert.isAbove(seen.otherForwarded, 5, "the runs forward other tokens");
    });
  });

  describe("RecurringCharges", () => {
    it("charges a subscription at most once per period, only the period its block is in and only when it named that period, and only within its terms, over any sequence of charges, batches, revokes and time", async () => {
      const chain = local.chain;
      const recurring = chain.deployment.contracts.RecurringCharges.address;
      const usdc = chain.deployment.token.address;
      const payer = chain.accounts[LOCAL_ROLES.firstUser]!;
      const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
      const relayer = relayerOf(chain);
      const HOUR = 3600n;
      // Three subscriptions: open-ended, ending after three periods, and one that starts later.
      const base = (await chain.publicClient.getBlock()).timestamp;
      const plans: Array<Partial<Terms>> = [
        { period: HOUR, start: base, end: 0n, amount: 2_000_000n },
        { period: 2n * HOUR, start: base, end: base + 6n * HOUR, amount: 3_000_000n },
        { period: HOUR, start: base + 3n * HOUR, end: 0n, amount: 1_500_000n },
      ];
      const subscriptions = await Promise.all(
        plans.map(async (plan) => {
          const terms = await makeTerms(chain, payer.address, merchant, plan);
          return { terms, signature: await signTerms(chain, payer, terms), id: subscriptionIdOf(84532, recurring, terms) };
        }),
      );
      await approve(chain, payer, usdc, recurring, 10n ** 12n);
      // A charge names a period: mostly the block's own, sometimes the one before or after (a charge
      // meant for another period, as one sent in p and mined in p+1 is).
      const offset = fc.constantFrom(0n, 0n, 0n, -1n, 1n);
      const reimbursement = fc.constantFrom(0n, 7n, 50_000n, 50_001n);
      const chargeOf = fc.record({ sub: fc.nat({ max: 2 }), offset, reimbursement });
      const operation = fc.oneof(
        { weight: 4, arbitrary: fc.record({ kind: fc.constant("charge" as const), charge: chargeOf }) },
        { weight: 2, arbitrary: fc.record({ kind: fc.constant("batch" as const), charges: fc.array(chargeOf, { minLength: 1, maxLength: 4 }) }) },
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant("wait" as const),
            seconds: fc.oneof(fc.constantFrom(1n, HOUR - 1n, HOUR, 2n * HOUR), fc.bigInt({ min: 1n, max: 3n * HOUR })),
          }),
        },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant("revoke" as const), sub: fc.nat({ max: 2 }) }) },
      );
      let snapshot = await chain.snapshot();
      const seen = { charged: 0, refused: 0, otherPeriod: 0, batched: 0 };

      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 12 }), async (operations) => {
          await chain.revert(snapshot);
          snapshot = await chain.snapshot();
          const payerStart = await balanceOf(chain, usdc, payer.address);
          let clock = (await chain.publicClient.getBlock()).timestamp;
          let paid = 0n;
          const charged = subscriptions.map(() => new Map<bigint, bigint>());
          const revoked = subscriptions.map(() => false);
          /** The model: whether this charge, in a block at `clock`, charges (and then books it). */
          const model = (c: { sub: number; offset: bigint; reimbursement: bigint }, blockNumber: bigint) => {
            const { terms } = subscriptions[c.sub]!;
            const period = clock >= terms.start ? (clock - terms.start) / terms.period : -1n;
            const named = period + c.offset < 0n ? 0n : period + c.offset;
            const due =
              !revoked[c.sub] &&
              clock >= terms.start &&
              (terms.end === 0n || clock < terms.end) &&
              named === period &&
              !charged[c.sub]!.has(period) &&
              c.reimbursement <= terms.maxGasReimbursement;
            seen[due ? "charged" : "refused"]++;
            if (named !== period && clock >= terms.start) seen.otherPeriod++;
            if (due) {
              charged[c.sub]!.set(period, blockNumber);
              paid += terms.amount + c.reimbursement;
            }
            return { due, period, named };
          };
          const namedPeriod = (c: { sub: number; offset: bigint }) => {
            const { terms } = subscriptions[c.sub]!;
            const period = clock >= terms.start ? (clock - terms.start) / terms.period : -1n;
            return period + c.offset < 0n ? 0n : period + c.offset;
          };
          for (const op of operations) {
            if (op.kind === "wait") {
              clock += op.seconds;
              continue;
            }
            clock += 1n;
            await chain.testClient.setNextBlockTimestamp({ timestamp: clock });
            if (op.kind === "revoke") {
              await send(chain, payer, { address: recurring, abi: recurringChargesAbi, functionName: "revoke", args: [subscriptions[op.sub]!.terms] });
              revoked[op.sub] = true;
              continue;
            }
            const items = op.kind === "charge" ? [op.charge] : op.charges;
            const args = items.map((c) => ({
              terms: subscriptions[c.sub]!.terms,
              signature: subscriptions[c.sub]!.signature,
              gasReimbursement: c.reimbursement,
              expectedPeriod: namedPeriod(c),
            }));
            // Sent with a fixed gas limit, so a refused charge is mined (reverted) rather than refused by the estimate.
            const hash =
              op.kind === "charge"
                ? await chain.wallet(relayer).writeContract({
                    address: recurring,
                    abi: recurringChargesAbi,
                    functionName: "charge",
                    args: [args[0]!.terms, args[0]!.signature, args[0]!.gasReimbursement, args[0]!.expectedPeriod],
                    account: relayer,
                    chain: chain.chain,
                    gas: 1_000_000n,
                  })
                : await chain.wallet(relayer).writeContract({
                    address: recurring,
                    abi: recurringChargesAbi,
                    functionName: "chargeBatch",
                    args: [args],
                    account: relayer,
                    chain: chain.chain,
                    gas: 3_000_000n,
                  });
            const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
            const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
            assert.equal(block.timestamp, clock);
            const outcomes = items.map((c) => ({ ...model(c, receipt.blockNumber), sub: c.sub }));
            if (op.kind === "charge")
              assert.equal(receipt.status, outcomes[0]!.due ? "success" : "reverted", `charge of subscription ${op.charge.sub} at ${clock}`);
            else {
              seen.batched++;
              assert.equal(receipt.status, "success", "a batch never reverts for its items");
              const skipped = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "ChargeSkipped" });
              assert.deepEqual(
                skipped.map((e) => Number(e.args.index)),
                outcomes.flatMap((o, i) => (o.due ? [] : [i])),
                "exactly the items the model refuses are skipped",
              );
            }
            const events = parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" });
            assert.deepEqual(
              events.map((e) => [e.args.subscriptionId, e.args.periodIndex]),
              outcomes.filter((o) => o.due).map((o) => [subscriptions[o.sub]!.id, o.period]),
              "each charge is for the period of its block, and only the one it named",
            );
          }
          assert.equal(await balanceOf(chain, usdc, recurring), 0n, "the contract keeps nothing");
          assert.equal(payerStart - (await balanceOf(chain, usdc, payer.address)), paid, "the payer paid exactly the charges");
          // No period is charged twice, and none is consumed by a charge meant for another: every record
          // is exactly the model's.
          for (const [i, sub] of subscriptions.entries()) {
            const last = clock >= sub.terms.start ? (clock - sub.terms.start) / sub.terms.period + 1n : 0n;
            for (let period = 0n; period <= last; period++) {
              const recorded = await chain.publicClient.readContract({
                address: recurring,
                abi: recurringChargesAbi,
                functionName: "chargedBlock",
                args: [sub.id, period],
              });
              assert.equal(recorded, charged[i]!.get(period) ?? 0n, `subscription ${i} period ${period}`);
            }
          }
        }),
        RUNS,
      );
      assert.isAbove(seen.otherPeriod, 10, "the runs send charges meant for another period");
      assert.isAbove(seen.batched, 10, "the runs send batches");
      assert.isAbove(seen.charged, 20, "the runs charge");
      assert.isAbove(seen.refused, 20, "the runs try charges the contract must refuse");
    });
  });
});
