import { assert } from "chai";
import type supertest from "supertest";
import { getAbiItem, parseEventLogs, toFunctionSelector, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { useService } from "../helpers/service.js";
import { manySubscriptions } from "../helpers/recurring.js";
import { until } from "../helpers/until.js";

const CHARGE_BATCH = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "chargeBatch" }));
const CHARGE = toFunctionSelector(getAbiItem({ abi: recurringChargesAbi, name: "charge" }));

/**
 * A renewal's path (charges.ts, charge-view.ts): the period the chain's time most likely is in is
 * looked up and tried before the view answers, and only the view decides; a batch is priced with the
 * L1 prices already read.
 */
describe("a charge's path waits for no round trip it does not need", function () {
  this.timeout(120_000);
  const h = useService({ CHARGE_BATCH_WAIT_MS: "200" });
  const recurring = () => h.service.deployment.contracts.RecurringCharges.address.toLowerCase();
  const charge = (api: supertest.Agent, subscription: string) => api.post("/v1/charges").send({ subscription });
  const trialsSeen = () => h.proxy.contractCalls.filter((c) => c.to === recurring() && c.selector === CHARGE_BATCH && c.method === "eth_call").length;
  const lonesSeen = () => h.proxy.contractCalls.filter((c) => c.to === recurring() && c.selector === CHARGE).length;

  /** Holds every request reading a block until `release` is called; `held` counts those waiting. */
  function holdBlockReads() {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const state = { held: 0, release };
    h.proxy.gate = async (methods) => {
      if (!methods.includes("eth_getBlockByNumber")) return;
      state.held++;
      await released;
      state.held--;
    };
    return state;
  }

  /** Subscriptions charged for period 0 and settled: the service has read the chain's time. */
  async function settledFirstCharges(count: number) {
    const subs = await manySubscriptions(h, h.api, count);
    for (const a of await Promise.all(subs.map((s) => charge(h.api, s.subscription)))) assert.include(a.body, { status: "CONFIRMING", period_index: 0 });
    await h.chain.mine(2);
    for (const a of await Promise.all(subs.map((s) => charge(h.api, s.subscription)))) assert.include(a.body, { status: "CHARGED", period_index: 0 });
    return subs;
  }

  async function chargedOnce(subs: Array<{ id: Hex }>, period: bigint, hashes: Set<Hex>) {
    const ids = [];
    for (const hash of hashes) {
      const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
      for (const e of parseEventLogs({ abi: recurringChargesAbi, logs: receipt.logs, eventName: "Charged" }))
        if (e.args.periodIndex === period) ids.push(e.args.subscriptionId);
    }
    assert.sameMembers(
      ids,
      subs.map((s) => s.id),
      `each subscription charged once for period ${period}`,
    );
  }

  it("a renewal is tried while the view is still read, and answered for the period the view names", async () => {
    const [first, ...subs] = await settledFirstCharges(4);
    // The next period, well inside it, on the chain and on the service's clock alike; one renewal
    // shows the service that period (its view is read before anything else: a period's edge passed).
    await h.chain.advanceTime(4200);
    h.clock.advance(4200);
    assert.include((await charge(h.api, first!.subscription)).body, { status: "CONFIRMING", period_index: 1 });
    const trialsBefore = trialsSeen();
    const hold = holdBlockReads();
    const answers = Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    await until(() => hold.held > 0 && trialsSeen() > trialsBefore, "the renewals' trial sent while their view's block read waits");
    assert.isAbove(hold.held, 0, "the view's block read has not been answered yet");
    hold.release();
    const answered = await answers;
    for (const a of answered) assert.include(a.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(a.body));
    assert.equal(trialsSeen() - trialsBefore, 1, "one trial for the three renewals, none again after the view");
    await chargedOnce(subs, 1n, new Set(answered.map((a) => a.body.tx_hash as Hex)));
  });

  it("a guess the view does not confirm is dropped: the period it names is charged, and a period recorded already is never tried", async () => {
    const subs = await settledFirstCharges(2);
    // The chain moves a period on; the service's clock does not: its guess names period 0, charged and recorded.
    await h.chain.advanceTime(4200);
    const before = { trials: trialsSeen(), lones: lonesSeen() };
    const answered = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of answered) assert.include(a.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(a.body));
    await chargedOnce(subs, 1n, new Set(answered.map((a) => a.body.tx_hash as Hex)));
    assert.equal(trialsSeen() - before.trials, 1, "period 1 tried once; period 0 (recorded) never");
    assert.equal(lonesSeen() - before.lones, 0, "nothing simulated alone: no trial failed");
    // Had period 0 been tried, its failure would keep the subscriptions out of trials for a day.
    await h.chain.mine(2);
    await h.chain.advanceTime(3600);
    h.clock.advance(3600);
    const next = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of next) assert.include(a.body, { status: "CONFIRMING", period_index: 2 }, JSON.stringify(a.body));
    assert.equal(lonesSeen() - before.lones, 0, "the next period is tried with the others, not alone");
  });

  it("a period's edge passed on the service's clock since the last view: nothing is tried before the view, which names the period", async () => {
    const subs = await settledFirstCharges(2);
    const { terms } = h.service.capabilities.read(subs[0]!.subscription);
    const edge = terms.start + 3600n;
    // The service reads the chain's time once more (period 0, charged already), at a block the test knows.
    const again = await charge(h.api, subs[0]!.subscription);
    assert.include(again.body, { status: "ALREADY_CHARGED", period_index: 0 });
    const seen = (await h.chain.publicClient.getBlock()).timestamp;
    // The chain ten seconds short of period 1; the service's clock, by the last view, a second past it.
    await h.chain.advanceTime(edge - 10n - seen);
    h.clock.advance(Number(edge + 1n - seen));
    const before = { trials: trialsSeen(), lones: lonesSeen() };
    const answered = await Promise.all(subs.map((s) => charge(h.api, s.subscription)));
    for (const a of answered) assert.include(a.body, { status: "ALREADY_CHARGED", period_index: 0 }, JSON.stringify(a.body));
    assert.deepEqual({ trials: trialsSeen(), lones: lonesSeen() }, before, "period 1 (not begun on chain) neither tried nor simulated");
  });

  it("a batch of renewals is priced (its L1 data fee) with the prices already read, never waiting on a newer view's round trip", async () => {
    const [a1, a2, b] = await settledFirstCharges(3);
    // Past a period's edge on both clocks: the renewals below read their view before anything else.
    await h.chain.advanceTime(4200);
    h.clock.advance(4200);
    const trialsBefore = trialsSeen();
    const batch = Promise.all([a1!, a2!].map((s) => charge(h.api, s.subscription)));
    // Their view answered (their trial follows it); while they wait for company in the batcher
    // (CHARGE_BATCH_WAIT_MS), another charge starts a newer view, held at the node.
    await until(() => trialsSeen() > trialsBefore, "the two renewals' trial");
    const hold = holdBlockReads();
    const other = charge(h.api, b!.subscription).then((r) => r); // sent now (supertest sends when awaited)
    await until(() => hold.held > 0, "the newer view waits at the node");
    const answered = await Promise.race([batch, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000).unref())]);
    assert.isNotNull(answered, "the batch was answered while the newer view waited");
    assert.isAbove(hold.held, 0);
    for (const a of answered!) assert.include(a.body, { status: "CONFIRMING", period_index: 1 }, JSON.stringify(a.body));
    assert.equal(answered![0]!.body.tx_hash, answered![1]!.body.tx_hash, "one batch");
    hold.release();
    assert.include((await other).body, { status: "CONFIRMING", period_index: 1 });
  });
});
