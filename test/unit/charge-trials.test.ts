import { assert } from "chai";
import { decodeFunctionData, encodeFunctionResult, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { termsWords } from "../../src/recurring/charge-encoding.js";
import { ChargeTrials, TRIAL_ROUNDS, type TrialCharge } from "../../src/recurring/charge-trials.js";
import type { Terms } from "../../src/recurring/terms.js";
import { until } from "../helpers/until.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Hex;
const CONTRACT = address(0xc0);
const RELAYER = address(0xee);
const FEE_COLLECTOR = address(0xfc);

/** A renewal of subscription `n` (payer and recipient its own: no group is split for them). */
function renewal(n: number): { charge: TrialCharge; id: Hex } {
  const terms: Terms = {
    payer: address(0x1000 + n),
    recipient: address(0x2000 + n),
    token: address(0x3000),
    amount: 1_000_000n,
    period: 3600n,
    start: 1_700_000_000n,
    end: 0n,
    salt: `0x${n.toString(16).padStart(64, "0")}`,
    feeBps: 100,
    networkFee: 0n,
    maxGasReimbursement: 10_000n,
  };
  return { charge: { terms, words: termsWords(terms), signature: "0x", gasReimbursement: 10_000n, expectedPeriod: 1n }, id: terms.salt };
}

/**
 * A node that holds each `chargeBatch` call until the test lets it answer, and then charges every
 * item; the subscriptions' records read one period paid.
 */
function heldNode() {
  const calls: Array<{ items: number; answer: () => void }> = [];
  const client = {
    call: ({ data }: { data: Hex }) =>
      new Promise<{ data: Hex }>((resolve) => {
        const { args } = decodeFunctionData({ abi: recurringChargesAbi, data });
        const items = (args[0] as unknown[]).length;
        calls.push({
          items,
          answer: () => resolve({ data: encodeFunctionResult({ abi: recurringChargesAbi, functionName: "chargeBatch", result: BigInt(items) }) }),
        });
      }),
    multicall: async ({ contracts }: { contracts: unknown[] }) => contracts.map(() => ({ status: "success", result: [0n, 1, 0n] })),
  } as unknown as PublicClient;
  return { client, calls };
}

describe("the charges' trials (charge-trials.ts)", () => {
  const trialsOn = (client: PublicClient) =>
    new ChargeTrials({ client, contract: CONTRACT, relayer: RELAYER, feeCollector: FEE_COLLECTOR, maxItems: 100, now: () => 0 });

  /** Trials on a held node with every round under way, each one charge sent in a turn of its own. */
  async function everyRoundUnderWay() {
    const node = heldNode();
    const trials = trialsOn(node.client);
    const answers: Array<Promise<unknown>> = [];
    for (let n = 0; n < TRIAL_ROUNDS; n++) {
      const { charge, id } = renewal(n);
      answers.push(trials.trial(charge, id));
      await until(() => node.calls.length === n + 1, `round ${n + 1}`);
    }
    return { node, trials, answers };
  }

  it("a charge alone is tried at once, in a call of its own, and passes with its paid count", async () => {
    const node = heldNode();
    const trials = trialsOn(node.client);
    const { charge, id } = renewal(1);
    const passed = trials.trial(charge, id);
    await until(() => node.calls.length === 1, "the trial's call");
    assert.equal(node.calls[0]!.items, 1);
    node.calls[0]!.answer();
    assert.deepEqual(await passed, { paidCountBefore: 1 });
  });

  it(`while ${TRIAL_ROUNDS} rounds wait on the node, charges arriving gather, and leave in one call when a round ends`, async () => {
    const { node, trials, answers } = await everyRoundUnderWay();
    // Thirty more, each in a turn of its own, while every round is under way.
    for (let n = TRIAL_ROUNDS; n < TRIAL_ROUNDS + 30; n++) {
      const { charge, id } = renewal(n);
      answers.push(trials.trial(charge, id));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(node.calls.length, TRIAL_ROUNDS, "nothing more sent while the rounds wait");
    node.calls[0]!.answer();
    await until(() => node.calls.length === TRIAL_ROUNDS + 1, "the gathered trial");
    assert.equal(node.calls[TRIAL_ROUNDS]!.items, 30, "the thirty in one call");
    for (const call of node.calls.slice(1)) call.answer();
    for (const passed of await Promise.all(answers)) assert.deepEqual(passed, { paidCountBefore: 1 });
  });

  it("a round holds at most maxItems a call: what gathered beyond leaves in as many calls as needed, together", async () => {
    const { node, trials, answers } = await everyRoundUnderWay();
    for (let n = TRIAL_ROUNDS; n < TRIAL_ROUNDS + 250; n++) {
      const { charge, id } = renewal(n);
      answers.push(trials.trial(charge, id));
    }
    node.calls[0]!.answer();
    await until(() => node.calls.length === TRIAL_ROUNDS + 3, "the gathered trials");
    assert.deepEqual(
      node.calls.slice(TRIAL_ROUNDS).map((c) => c.items),
      [100, 100, 50],
    );
    for (const call of node.calls.slice(1)) call.answer();
    assert.lengthOf(await Promise.all(answers), TRIAL_ROUNDS + 250);
  });
});
