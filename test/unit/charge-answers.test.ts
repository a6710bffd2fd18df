import { assert } from "chai";
import { pad, type Address, type Hex, type PublicClient } from "viem";
import { agreeOnLogs, agreeOnReceipt } from "../../src/chain/agreement.js";
import type { RecurringChargesReader } from "../../src/chain/contracts/recurring-charges.js";
import type { Finality } from "../../src/config.js";
import { DomainError } from "../../src/errors.js";
import {
  alreadyChargedAnswer,
  answerWithoutRelayer,
  chargedInAnswer,
  paidAnswer,
  periodAnswer,
  periodCloses,
  refuseNearClose,
  sendMargin,
  type ChargeChain,
} from "../../src/recurring/charge-answers.js";
import type { Terms } from "../../src/recurring/terms.js";
import { fakeLog, fakeNodes, fakeReceipt, honestView } from "../helpers/fake-nodes.js";

/*
 * A charge's answers (interface.md: POST /v1/charges; "Charge result CONFIRMING", "Charge repeated
 * for a paid period"): CHARGED and ALREADY_CHARGED are successes standing on what a majority of the
 * nodes hold final, CONFIRMING (WAIT) before that, never a success ahead of the chain; the period's
 * bounds and next_period_at from the signed terms; the refusals before anything is sent.
 */

const ID = pad("0x5b", { size: 32 });
const TX = pad("0xc1", { size: 32 });
const OTHER_TX = pad("0xc2", { size: 32 });
const CONTRACT: Address = "0x00000000000000000000000000000000000000cc";
const FINALITY: Finality = { kind: "confirmations", confirmations: 5 };
const terms = (change: Partial<Terms> = {}): Terms => ({
  payer: "0x00000000000000000000000000000000000000a1",
  recipient: "0x00000000000000000000000000000000000000a2",
  token: "0x00000000000000000000000000000000000000a3",
  amount: 12_500_000n,
  period: 1_000n,
  start: 10_000n,
  end: 0n,
  salt: pad("0x1", { size: 32 }),
  feeBps: 100,
  networkFee: 0n,
  maxGasReimbursement: 0n,
  ...change,
});

/** RecurringCharges as the test says it reads, and a chain whose latest block is `latest`. */
function chain(options: {
  latest: bigint;
  logs?: Array<{ blockNumber: bigint; transactionHash: Hex; logIndex?: number }>;
  chargedBlock?: bigint;
  subscription?: { revoked: boolean; paidCount: number; lastPeriod: bigint };
  client?: PublicClient;
}) {
  const asked: string[] = [];
  const contract = {
    chargedLogs: async (id: Hex, period: bigint, block: bigint) => {
      asked.push(`chargedLogs ${id === ID} ${period} ${block}`);
      return (options.logs ?? []).map((l) => ({
        ...l,
        logIndex: l.logIndex ?? 0,
        address: CONTRACT,
        topics: [],
        data: "0x",
        blockHash: pad("0x1", { size: 32 }),
      }));
    },
    chargedBlock: async (id: Hex, period: bigint, at?: bigint) => {
      asked.push(`chargedBlock ${id === ID} ${period} ${at}`);
      return options.chargedBlock ?? 0n;
    },
    subscription: async (id: Hex, at?: bigint) => {
      asked.push(`subscription ${id === ID} ${at}`);
      return options.subscription ?? { revoked: false, paidCount: 0, lastPeriod: 0n };
    },
  } as unknown as RecurringChargesReader;
  const client = Object.assign(options.client ?? ({} as PublicClient), { getBlockNumber: async () => options.latest });
  return { chain: { client, finality: FINALITY, contract } satisfies ChargeChain, asked };
}

async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  const outcome = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instanceOf(outcome, DomainError);
  return outcome as DomainError;
}

describe("a charge's answer (charge-answers)", () => {
  it("CONFIRMING is WAIT, not ok, with the period's bounds, and the transaction and amount once one is named", () => {
    assert.deepEqual(periodAnswer("CONFIRMING", terms(), ID, 2n), {
      status: "CONFIRMING",
      ok: false,
      already_paid: false,
      action: "WAIT",
      subscription_id: ID,
      period_index: 2,
      period_start: 12_000,
      period_end: 13_000,
      next_period_at: 13_000,
    });
    const named = periodAnswer("CONFIRMING", terms(), ID, 0n, TX);
    assert.equal(named.tx_hash, TX);
    assert.equal(named.amount, "12.500000");
  });

  it("next_period_at is null when the subscription ends by the period's end, the period's end otherwise", () => {
    assert.isNull(periodAnswer("CONFIRMING", terms({ end: 13_000n }), ID, 2n).next_period_at, "ends with the period");
    assert.isNull(periodAnswer("CONFIRMING", terms({ end: 12_500n }), ID, 2n).next_period_at, "ends inside it");
    assert.equal(periodAnswer("CONFIRMING", terms({ end: 13_001n }), ID, 2n).next_period_at, 13_000);
    assert.equal(periodAnswer("CONFIRMING", terms({ end: 0n }), ID, 2n).next_period_at, 13_000, "0: no end");
  });

  it("CHARGED and ALREADY_CHARGED are ok and SUCCESS, naming the transaction the agreed proof names; only ALREADY_CHARGED is already paid", async () => {
    const receipt = await agreeOnReceipt("charged", {} as PublicClient, FINALITY, { transactionHash: TX, blockNumber: 5n } as never);
    const charged = paidAnswer("CHARGED", terms(), ID, 1n, receipt!);
    assert.include(charged, { status: "CHARGED", ok: true, already_paid: false, action: "SUCCESS", tx_hash: TX, amount: "12.500000", period_start: 11_000 });
    const { chain: c } = chain({ latest: 100n, logs: [{ blockNumber: 90n, transactionHash: OTHER_TX }] });
    const already = await chargedInAnswer(c, terms(), ID, 1n, 90n);
    assert.include(already, { status: "ALREADY_CHARGED", ok: true, already_paid: true, action: "SUCCESS", tx_hash: OTHER_TX });
  });

  it("a paid answer stands on a transaction: agreed logs naming none are refused", async () => {
    const { chain: c } = chain({ latest: 100n });
    const noHash = await agreeOnLogs("already_charged", c.client, FINALITY, [{ transactionHash: null, blockNumber: 1n } as never]);
    assert.throws(() => paidAnswer("ALREADY_CHARGED", terms(), ID, 1n, noHash as never), /stands on a transaction/);
    assert.throws(() => paidAnswer("ALREADY_CHARGED", terms(), ID, 1n, [] as never), /stands on a transaction/);
  });
});

describe("a period charged by a transaction this call did not follow (chargedInAnswer)", () => {
  it("ALREADY_CHARGED once the block is final (at the finality head), CONFIRMING with the transaction a block before", async () => {
    const logs = [{ blockNumber: 95n, transactionHash: TX }];
    const final = chain({ latest: 100n, logs });
    assert.equal((await chargedInAnswer(final.chain, terms(), ID, 3n, 95n)).status, "ALREADY_CHARGED");
    assert.deepEqual(final.asked, ["chargedLogs true 3 95"], "the period's logs in the block the contract names");
    const young = await chargedInAnswer(chain({ latest: 99n, logs }).chain, terms(), ID, 3n, 95n);
    assert.include(young, { status: "CONFIRMING", ok: false, action: "WAIT", tx_hash: TX });
  });

  it("no log is no claim: a block named with no Charged log in it answers CONFIRMING, never a success", async () => {
    const none = await chargedInAnswer(chain({ latest: 100n }).chain, terms(), ID, 3n, 90n);
    assert.equal(none.status, "CONFIRMING");
    assert.notProperty(none, "tx_hash");
    const elsewhere = await chargedInAnswer(chain({ latest: 100n, logs: [{ blockNumber: 91n, transactionHash: TX }] }).chain, terms(), ID, 3n, 90n);
    assert.equal(elsewhere.status, "CONFIRMING", "a log of another block proves nothing of this one");
  });

  it("stands on the majority: a log one node shows and the others do not hold answers CONFIRMING", async () => {
    const charged = fakeLog(TX, 90n, 0, { address: CONTRACT, topics: [pad("0xee", { size: 32 })], data: "0x" });
    const held = honestView(100n, [fakeReceipt(TX, 90n, [charged])]);
    const f = fakeNodes([held, honestView(100n), honestView(100n)], { quorum: 2 });
    const log = { blockNumber: 90n, transactionHash: TX, logIndex: 0 };
    const lied = await chargedInAnswer(chain({ latest: 100n, logs: [log], client: f.client }).chain, terms(), ID, 3n, 90n);
    assert.equal(lied.status, "CONFIRMING");
    const g = fakeNodes([held, held, honestView(100n)], { quorum: 2 });
    const { chain: c } = chain({ latest: 100n, logs: [{ ...log }], client: g.client });
    (c.contract as unknown as { chargedLogs: () => Promise<unknown> }).chargedLogs = async () => [
      { address: CONTRACT, topics: charged.topics, data: "0x", logIndex: 0, transactionHash: TX, blockNumber: 90n, blockHash: charged.blockHash },
    ];
    assert.equal((await chargedInAnswer(c, terms(), ID, 3n, 90n)).status, "ALREADY_CHARGED");
  });
  it("a forged Charged log listed before the real one by the node read does not hide it: the real one stands, the forged one is blamed", async () => {
    const charged = fakeLog(TX, 90n, 1, { address: CONTRACT, topics: [pad("0xee", { size: 32 })], data: "0x" });
    const held = honestView(100n, [fakeReceipt(TX, 90n, [charged])]);
    const f = fakeNodes([held, held, held], { quorum: 2 });
    const { chain: c } = chain({ latest: 100n, client: f.client });
    const real = {
      address: CONTRACT,
      topics: charged.topics,
      data: "0x" as Hex,
      logIndex: 1,
      transactionHash: TX,
      blockNumber: 90n,
      blockHash: charged.blockHash,
    };
    const forged = { ...real, logIndex: 0, transactionHash: OTHER_TX };
    (c.contract as unknown as { chargedLogs: () => Promise<unknown> }).chargedLogs = async () => [forged, real];
    assert.include(await chargedInAnswer(c, terms(), ID, 3n, 90n), { status: "ALREADY_CHARGED", tx_hash: TX });
    assert.deepEqual(f.blamed, [forged]);
  });
});

describe("a period's close and the margin before it", () => {
  it("a period closes at its end, or at the subscription's end when that is sooner", () => {
    assert.equal(periodCloses(terms(), 2n), 13_000n);
    assert.equal(periodCloses(terms({ end: 12_400n }), 2n), 12_400n);
    assert.equal(periodCloses(terms({ end: 13_000n }), 2n), 13_000n);
    assert.equal(periodCloses(terms({ end: 20_000n }), 2n), 13_000n);
  });

  it("the margin is 60 s, or a quarter of a period shorter than 240 s", () => {
    assert.equal(sendMargin(terms({ period: 86_400n })), 60n);
    assert.equal(sendMargin(terms({ period: 240n })), 60n);
    assert.equal(sendMargin(terms({ period: 236n })), 59n);
    assert.equal(sendMargin(terms({ period: 100n })), 25n);
  });

  it("within the margin of the close: NOT_DUE, retry once the next period starts; a second earlier is sent", () => {
    const closes = 13_000n;
    const error = (() => {
      try {
        refuseNearClose(terms(), 2n, closes - 60n);
      } catch (e) {
        return e as DomainError;
      }
      return null;
    })();
    assert.equal(error?.code, "NOT_DUE");
    assert.equal(error?.retryAfter, 61);
    assert.doesNotThrow(() => refuseNearClose(terms(), 2n, closes - 61n));
  });
});

describe("the period already charged when simulated (alreadyChargedAnswer)", () => {
  it("answers from the block the contract names", async () => {
    const { chain: c, asked } = chain({ latest: 100n, chargedBlock: 90n, logs: [{ blockNumber: 90n, transactionHash: TX }] });
    assert.equal((await alreadyChargedAnswer(c, terms(), ID, 4n)).status, "ALREADY_CHARGED");
    assert.deepEqual(asked, ["chargedBlock true 4 undefined", "chargedLogs true 4 90"]);
  });

  it("a block of 0 is the chain moving under the charge: RPC_ERROR, retried, never an answer", async () => {
    const error = await refusal(alreadyChargedAnswer(chain({ latest: 100n, chargedBlock: 0n }).chain, terms(), ID, 4n));
    assert.equal(error.code, "RPC_ERROR");
    assert.equal(error.action, "RETRY");
  });
});

describe("a charge asked of a service without a relayer key (answerWithoutRelayer)", () => {
  const block = { number: 500n, timestamp: 12_100n };

  it("the subscription's state answers first: revoked, then ended", async () => {
    const revoked = chain({ latest: 500n, subscription: { revoked: true, paidCount: 0, lastPeriod: 0n } });
    assert.equal((await refusal(answerWithoutRelayer(revoked.chain, terms({ end: 12_000n }), ID, 2n, block))).code, "PERMISSION_REVOKED");
    assert.deepEqual(revoked.asked, ["subscription true 500"], "read at the block");
    const ended = chain({ latest: 500n });
    assert.equal((await refusal(answerWithoutRelayer(ended.chain, terms({ end: 12_100n }), ID, 2n, block))).code, "SUBSCRIPTION_EXPIRED");
    const notYet = await refusal(answerWithoutRelayer(ended.chain, terms({ end: 12_101n }), ID, 2n, block));
    assert.equal(notYet.code, "NOT_DUE", "a second before its end it is not ended: the close (its end) is near");
  });

  it("this period charged: its answer, from the block the contract names at the block read", async () => {
    const paid = chain({
      latest: 500n,
      chargedBlock: 450n,
      subscription: { revoked: false, paidCount: 3, lastPeriod: 2n },
      logs: [{ blockNumber: 450n, transactionHash: TX }],
    });
    assert.include(await answerWithoutRelayer(paid.chain, terms(), ID, 2n, block), { status: "ALREADY_CHARGED", tx_hash: TX });
    assert.include(paid.asked, "chargedBlock true 2 500");
  });

  it("another period charged last, none charged, or a charged block of 0: no relayer, or NOT_DUE near the close", async () => {
    for (const subscription of [
      { revoked: false, paidCount: 3, lastPeriod: 1n },
      { revoked: false, paidCount: 0, lastPeriod: 2n },
    ]) {
      const other = chain({ latest: 500n, chargedBlock: 450n, subscription, logs: [{ blockNumber: 450n, transactionHash: TX }] });
      const error = await refusal(answerWithoutRelayer(other.chain, terms(), ID, 2n, block));
      assert.equal(
        error.code,
        "RELAYER_UNAVAILABLE",
        JSON.stringify(subscription, (_, v) => (typeof v === "bigint" ? `${v}` : v)),
      );
      assert.equal(error.detail, "no relayer key");
    }
    const moved = chain({ latest: 500n, chargedBlock: 0n, subscription: { revoked: false, paidCount: 3, lastPeriod: 2n } });
    assert.equal((await refusal(answerWithoutRelayer(moved.chain, terms(), ID, 2n, block))).code, "RELAYER_UNAVAILABLE");
    const late = await refusal(answerWithoutRelayer(chain({ latest: 500n }).chain, terms(), ID, 2n, { number: 500n, timestamp: 12_950n }));
    assert.equal(late.code, "NOT_DUE");
    assert.equal(late.retryAfter, 51);
  });
});
