import { assert } from "chai";
import { encodeErrorResult, encodeFunctionData, getAddress, isAddressEqual, parseEventLogs, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { exhaustingAccountAbi, recurringChargesAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES, type LocalChain } from "../../dev/localchain/harness.js";
import { COVERAGE_BUILD } from "../../dev/deploy/build-mode.js";
import { subscriptionIdOf, type Terms } from "../../src/recurring/terms.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { approve } from "../helpers/tx.js";
import { deployTestContract } from "../helpers/deploy.js";
import { chargeAsRelayer, currentPeriod, makeTerms, relayerOf, signTerms } from "../helpers/subscriptions.js";

/**
 * The gas a batch keeps back from each item's self-call (RecurringCharges' `ITEM_GAS_RESERVE`, its
 * NatSpec's rule): what is left to record an item that ran out of gas as skipped and go on.
 */
const ITEM_GAS_RESERVE = 20_000n;

/** One step of an EVM trace (debug_traceTransaction's struct log); the stack's top is its last entry. */
interface Step {
  op: string;
  gas: number;
  depth: number;
  stack?: string[];
}

interface Trace {
  failed: boolean;
  returnValue: string;
  structLogs: Step[];
}

/** The EVM's own record of a mined transaction, step by step: the gas each opcode saw. */
async function traceOf(chain: LocalChain, hash: Hex): Promise<Trace> {
  return (await chain.provider.request({
    method: "debug_traceTransaction",
    params: [hash, { disableStorage: true, disableMemory: true }],
  })) as Trace;
}

/** What each `gasleft()` (the GAS opcode) of the frame at `depth` read, in order, from `from` on. */
function gasReads(steps: Step[], depth: number, from = 0): bigint[] {
  const reads: bigint[] = [];
  for (let i = from; i < steps.length - 1; i++) {
    if (steps[i]!.op === "GAS" && steps[i]!.depth === depth) reads.push(BigInt(steps[i + 1]!.stack!.at(-1)!));
  }
  return reads;
}

/** The calls (`op`) the frame at `depth` made to `target`: where, the gas asked for, and the gas the callee started with. */
function callsTo(steps: Step[], depth: number, op: "CALL" | "STATICCALL", target: Address) {
  const calls: { at: number; asked: bigint; given: bigint | undefined }[] = [];
  for (let i = 0; i < steps.length - 1; i++) {
    const step = steps[i]!;
    if (step.op !== op || step.depth !== depth) continue;
    const to = getAddress(`0x${BigInt(step.stack!.at(-2)!).toString(16).padStart(40, "0")}`);
    if (!isAddressEqual(to, target)) continue;
    const next = steps[i + 1]!;
    calls.push({ at: i, asked: BigInt(step.stack!.at(-1)!), given: next.depth === depth + 1 ? BigInt(next.gas) : undefined });
  }
  return calls;
}

describe("RecurringCharges at its gas edges (each transaction sent with an exact gas limit, read in its trace)", () => {
  const local = useLocalChain();
  before(function () {
    // Instrumented bytecode (npm run coverage) reads gasleft() for every line it counts: the edges
    // are the real build's.
    if (COVERAGE_BUILD) this.skip();
  });
  const recurringOf = (chain: LocalChain) => chain.deployment.contracts.RecurringCharges.address;

  /** Sends `data` to RecurringCharges from the relayer with exactly `gas`; the receipt and the trace. */
  async function sendExact(chain: LocalChain, data: Hex, gas: bigint) {
    const relayer = relayerOf(chain);
    const hash = await chain.wallet(relayer).sendTransaction({ to: recurringOf(chain), data, gas, account: relayer, chain: chain.chain });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    return { receipt, trace: await traceOf(chain, hash) };
  }

  describe("chargeBatch keeps ITEM_GAS_RESERVE back from each item", () => {
    /** Two subscriptions charged once, both due again: a batch of their renewals. */
    async function dueRenewals(chain: LocalChain) {
      const merchant = chain.accounts[LOCAL_ROLES.firstUser + 2]!;
      const subs: { terms: Terms; id: Hex }[] = [];
      for (const payer of [chain.accounts[LOCAL_ROLES.firstUser]!, chain.accounts[LOCAL_ROLES.firstUser + 1]!]) {
        await approve(chain, payer, chain.deployment.token.address, recurringOf(chain), 10n ** 12n);
        const terms = await makeTerms(chain, payer.address, merchant.address);
        await chargeAsRelayer(chain, terms, await signTerms(chain, payer, terms));
        subs.push({ terms, id: subscriptionIdOf(84532, recurringOf(chain), terms) });
      }
      await chain.advanceTime(subs[0]!.terms.period);
      const items = [];
      for (const s of subs) items.push({ terms: s.terms, signature: "0x" as Hex, gasReimbursement: 0n, expectedPeriod: await currentPeriod(chain, s.terms) });
      return { subs, data: encodeFunctionData({ abi: recurringChargesAbi, functionName: "chargeBatch", args: [items] }) };
    }

    it("each item's call gets what the batch has left less the reserve; with the reserve left the batch stops before the item (nothing reported), with one gas more it starts it (skipped: out of gas)", async () => {
      const chain = local.chain;
      const recurring = recurringOf(chain);
      const { subs, data } = await dueRenewals(chain);
      const events = (logs: Parameters<typeof parseEventLogs>[0]["logs"]) => parseEventLogs({ abi: recurringChargesAbi, logs });
      const fresh = await chain.snapshot();

      // Gas enough for both: each item's self-call asks for what the loop read less the reserve.
      const ample = 1_000_000n;
      const full = await sendExact(chain, data, ample);
      assert.deepEqual(
        events(full.receipt.logs).map((e) => e.eventName),
        ["Charged", "Charged"],
      );
      const reads = gasReads(full.trace.structLogs, 1);
      const calls = callsTo(full.trace.structLogs, 1, "CALL", recurring);
      assert.lengthOf(reads, 2, "one gasleft() read before each item");
      assert.deepEqual(
        calls.map((call) => call.asked),
        reads.map((read) => read - ITEM_GAS_RESERVE),
      );
      assert.deepEqual(
        calls.map((call) => call.given),
        calls.map((call) => call.asked),
        "each item gets all it asks for",
      );

      // The loop's read before the first item is the limit less a fixed cost (calldata, dispatch).
      const before = ample - reads[0]!;

      await chain.revert(fresh);
      const fresh2 = await chain.snapshot();
      const atReserve = await sendExact(chain, data, before + ITEM_GAS_RESERVE);
      assert.equal(atReserve.receipt.status, "success", "the batch stands");
      assert.deepEqual(gasReads(atReserve.trace.structLogs, 1), [ITEM_GAS_RESERVE], "the reserve left before the first item");
      assert.lengthOf(callsTo(atReserve.trace.structLogs, 1, "CALL", recurring), 0, "no item started");
      assert.lengthOf(events(atReserve.receipt.logs), 0, "nothing reported");
      const reader = { address: recurring, abi: recurringChargesAbi } as const;
      assert.deepEqual(await chain.publicClient.readContract({ ...reader, functionName: "subscriptions", args: [subs[0]!.id] }), [0n, 1, false]);

      await chain.revert(fresh2);
      const oneMore = await sendExact(chain, data, before + ITEM_GAS_RESERVE + 1n);
      assert.equal(oneMore.receipt.status, "success", "the batch stands");
      assert.deepEqual(gasReads(oneMore.trace.structLogs, 1)[0], ITEM_GAS_RESERVE + 1n);
      assert.deepEqual(
        callsTo(oneMore.trace.structLogs, 1, "CALL", recurring).map((call) => call.asked),
        [1n],
        "the first item started with the one gas over the reserve",
      );
      const reported = events(oneMore.receipt.logs);
      assert.deepEqual(
        reported.map((e) => e.eventName),
        ["ChargeSkipped"],
      );
      assert.include(reported[0]!.args, { index: 0n, subscriptionId: subs[0]!.id, reason: "0x" }, "skipped as out of gas");
      assert.deepEqual(await chain.publicClient.readContract({ ...reader, functionName: "subscriptions", args: [subs[0]!.id] }), [0n, 1, false]);
    });
  });

  describe("a contract payer's failed check is InvalidSignature only when it had the whole SIGNATURE_GAS_CAP", () => {
    /** A payer whose isValidSignature uses all the gas it gets (ExhaustingAccount), with the owner's signature: only the gas fails it. */
    async function exhaustingPayer(chain: LocalChain, owner: HDAccount) {
      const account = await deployTestContract(chain, owner, exhaustingAccountAbi, "ExhaustingAccount", "ExhaustingAccount.sol");
      const terms = await makeTerms(chain, account, chain.accounts[LOCAL_ROLES.firstUser + 1]!.address);
      const signature = await signTerms(chain, owner, terms);
      const data = encodeFunctionData({ abi: recurringChargesAbi, functionName: "charge", args: [terms, signature, 0n, await currentPeriod(chain, terms)] });
      return { account, data };
    }

    it("the check gets the whole cap or all but 1/64 of what is left (EIP-150); given less than the cap, its failure is an out of gas (no data), given the cap, InvalidSignature; at the edge the rule reads SIGNATURE_GAS_CAP / 63 left after the check", async () => {
      const chain = local.chain;
      const recurring = recurringOf(chain);
      const cap = await chain.publicClient.readContract({ address: recurring, abi: recurringChargesAbi, functionName: "SIGNATURE_GAS_CAP" });
      const { account, data } = await exhaustingPayer(chain, chain.accounts[LOCAL_ROLES.firstUser]!);
      const invalidSignature = encodeErrorResult({ abi: recurringChargesAbi, errorName: "InvalidSignature", args: [account] });
      /** The charge sent with exactly `gas`: the gas its payer's check started with, what the contract read after it, what it reverted with. */
      const attempt = async (gas: bigint) => {
        const { receipt, trace } = await sendExact(chain, data, gas);
        assert.equal(receipt.status, "reverted");
        const [check] = callsTo(trace.structLogs, 1, "STATICCALL", account);
        assert.isDefined(check?.given, "the payer's check ran");
        return {
          given: check!.given!,
          readAfter: gasReads(trace.structLogs, 1, check!.at)[0],
          revert: trace.returnValue === "" ? "0x" : `0x${trace.returnValue.replace(/^0x/, "")}`,
        };
      };

      const ample = await attempt(600_000n);
      assert.equal(ample.given, cap, "the check is capped");
      assert.equal(ample.revert, invalidSignature, "it ran out of the cap: the payer's own failure");

      // The largest limit at which the check is given less than the cap (it gets cap - 1 there): its
      // failure may be the relayer's short gas, so it must not be reported as the payer's.
      let low = 600_000n - 2n * cap; // given less than the cap
      let high = 600_000n; // given the cap
      assert.isBelow(Number((await attempt(low)).given), Number(cap));
      while (high - low > 1n) {
        const mid = (low + high) / 2n;
        if ((await attempt(mid)).given < cap) low = mid;
        else high = mid;
      }
      const starved = await attempt(low);
      assert.equal(starved.given, cap - 1n);
      assert.equal(starved.revert, "0x", "one gas short of the cap: an out of gas, not the payer's InvalidSignature");
      assert.equal((await attempt(high)).given, cap);

      // A check starved below the cap keeps back at most a 64th of what it could have had, so it leaves
      // at most SIGNATURE_GAS_CAP / 63 when it returns, less once the instructions after it ran: that
      // much left when the contract reads gasleft() means the check had its whole cap (the payer's
      // verdict), and one gas less is an out of gas. Just under the edge the check may still have had
      // the cap: the contract errs toward an out of gas there, which a retry with more gas settles.
      const edge = cap / 63n;
      const edgeLimit = 600_000n - (ample.readAfter! - edge);
      const atEdge = await attempt(edgeLimit);
      assert.equal(atEdge.readAfter, edge);
      assert.equal(atEdge.given, cap);
      assert.equal(atEdge.revert, invalidSignature, "SIGNATURE_GAS_CAP / 63 left: InvalidSignature");
      const belowEdge = await attempt(edgeLimit - 1n);
      assert.equal(belowEdge.readAfter, edge - 1n);
      assert.equal(belowEdge.revert, "0x", "one gas less left: an out of gas");
    });
  });
});
