import { assert } from "chai";
import { numberToHex, pad, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { agreedFor, agreeOnClaim, agreeOnLogs, agreeOnRead, agreeOnReceipt, NoMajorityError, type ClaimedLog } from "../../src/chain/agreement.js";
import type { Finality } from "../../src/config.js";
import type { DomainError } from "../../src/errors.js";
import { blockHash, fakeLog, fakeNodes, fakeReceipt, honestView, type NodeView } from "../helpers/fake-nodes.js";

/*
 * The door (DESIGN v7 "One door for verdicts"): a verdict stands only on what a majority of the
 * nodes hold final, field by field, and what it returns is made of those fields, never of one node's
 * object; a claim without its log is no claim. Each case is three nodes of our making, one of them
 * lying or lagging where the case says.
 */

const TX = pad("0xaa", { size: 32 });
const OTHER_TX = pad("0xbb", { size: 32 });
const SPLITTER: Address = "0x00000000000000000000000000000000000000c1";
const TOPIC = pad("0x7a", { size: 32 });
const AT = 95n;
/** 100 − 5 confirmations: block 95 is just final. */
const FINALITY: Finality = { kind: "confirmations", confirmations: 5 };
const logA = fakeLog(TX, AT, 0, { address: SPLITTER, topics: [TOPIC], data: "0x01" });
const logB = fakeLog(TX, AT, 1, { address: SPLITTER, topics: [TOPIC, pad("0x02", { size: 32 })], data: "0x02" });
const logC = fakeLog(OTHER_TX, AT, 2, { address: SPLITTER, topics: [TOPIC], data: "0x03" });
const calls = (_to: Address, data: Hex, block: bigint): Hex | "revert" => (data === "0x1234" && block === AT ? "0xAB" : "revert");
const honest = (): NodeView => honestView(100n, [fakeReceipt(TX, AT, [logA, logB]), fakeReceipt(OTHER_TX, AT, [logC])], calls);
/** Three honest nodes, `change` telling node 0's lie (or lag). */
const three = (change: (v: NodeView) => void = () => {}, quorum = 2) => {
  const lying = honest();
  change(lying);
  return fakeNodes([lying, honest(), honest()], { quorum });
};
const named = { transactionHash: TX, blockNumber: AT } as TransactionReceipt;
/** A log as the service read it (viem's shape), decoded. */
const claimed = (log: typeof logA, change: Partial<ClaimedLog> = {}): ClaimedLog & { eventName: string; args: object } => ({
  address: log.address,
  topics: log.topics as ClaimedLog["topics"],
  data: log.data,
  logIndex: Number(log.logIndex),
  transactionHash: log.transactionHash,
  blockNumber: BigInt(log.blockNumber),
  blockHash: log.blockHash,
  eventName: "Paid",
  args: { amount: 1n },
  ...change,
});
const logCore = (l: typeof logA) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: Number(l.logIndex) });

describe("the door for a receipt (agreeOnReceipt)", () => {
  it("answers the receipt a majority holds final, built from their answer, sets aside a node forging its status", async () => {
    const f = three((v) => (v.receipts.get(TX)!.status = "0x0"));
    const agreed = await agreeOnReceipt("charged", f.client, FINALITY, { ...named, status: "reverted" });
    assert.equal(agreed?.status, "success", "the majority's status, not the one handed in or the liar's");
    assert.equal(agreed?.blockHash, blockHash(AT));
    assert.equal(agreed?.logs.length, 2);
    assert.equal(agreedFor(agreed), "charged");
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("is final at the finality head and not a block before: 5 confirmations answer, 6 answer nothing", async () => {
    assert.isNotNull(await agreeOnReceipt("charged", three().client, FINALITY, named));
    const f = three();
    assert.isNull(await agreeOnReceipt("charged", f.client, { kind: "confirmations", confirmations: 6 }, named));
    assert.deepEqual(f.setAside, [], "every node behind: nobody disagreed");
  });

  it("under `safe`, the nodes' safe block decides: one below the receipt is behind, one answering none too", async () => {
    const safe = (s: bigint | null) =>
      fakeNodes(
        [0, 1, 2].map(() => ({ ...honest(), safe: s })),
        { quorum: 2 },
      ).client;
    assert.isNotNull(await agreeOnReceipt("charged", safe(AT), { kind: "safe" }, named));
    assert.isNull(await agreeOnReceipt("charged", safe(AT - 1n), { kind: "safe" }, named));
    assert.isNull(await agreeOnReceipt("charged", safe(null), { kind: "safe" }, named));
  });

  it("a node without the transaction whose head is below it is behind (no say); one past it holding none disagrees", async () => {
    const lagging = three((v) => {
      v.head = AT - 1n;
      v.receipts.clear();
    });
    assert.isNotNull(await agreeOnReceipt("charged", lagging.client, FINALITY, named));
    assert.deepEqual(lagging.setAside, []);
    const hiding = three((v) => v.receipts.clear());
    assert.isNotNull(await agreeOnReceipt("charged", hiding.client, FINALITY, named));
    assert.deepEqual(hiding.setAside, [[0, "disagreed"]]);
  });

  it("answers nothing when a majority holds no such transaction", async () => {
    const v = [honest(), honest(), honest()];
    v[1]!.receipts.clear();
    v[2]!.receipts.clear();
    const f = fakeNodes(v, { quorum: 2 });
    assert.isNull(await agreeOnReceipt("charged", f.client, FINALITY, named));
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("a receipt in a block its node holds under another hash counts for nothing: two such nodes are no majority", async () => {
    const forked = (v: NodeView) => (v.receipts.get(TX)!.blockHash = blockHash(AT, 1));
    const v = [honest(), honest(), honest()];
    forked(v[1]!);
    forked(v[2]!);
    assert.isNull(await agreeOnReceipt("charged", fakeNodes(v, { quorum: 2 }).client, FINALITY, named));
  });

  it("follows a transaction a reorg moved to a later block, checking that block's hash on each node", async () => {
    const moved = () => {
      const v = honest();
      v.receipts.set(TX, fakeReceipt(TX, AT, [logA, logB]));
      return v;
    };
    const f = fakeNodes([moved(), moved(), moved()], { quorum: 2 });
    const agreed = await agreeOnReceipt("charged", f.client, FINALITY, { ...named, blockNumber: AT - 1n });
    assert.equal(agreed?.blockNumber, AT);
    const v = [moved(), moved(), moved()];
    for (const n of v) n.blocks.set(AT, blockHash(AT, 1));
    assert.isNull(await agreeOnReceipt("charged", fakeNodes(v, { quorum: 2 }).client, FINALITY, { ...named, blockNumber: AT - 1n }), "its block is another's");
  });

  it("RPC_BUSY when two of three nodes are down; one node alone is taken as it is, sealed as a copy", async () => {
    const down = fakeNodes([honest(), { ...honest(), down: true }, { ...honest(), down: true }], { quorum: 2 });
    const busy = await agreeOnReceipt("charged", down.client, FINALITY, named).catch((e: unknown) => e);
    assert.equal((busy as DomainError).code, "RPC_BUSY");
    const own = { ...named, status: "success" } as TransactionReceipt;
    const alone = await agreeOnReceipt("refunded", {} as PublicClient, FINALITY, own);
    assert.notStrictEqual(alone, own);
    assert.equal(agreedFor(alone), "refunded");
    assert.equal(alone?.status, "success");
  });
});

describe("the door for logs and reads (agreeOnClaim)", () => {
  const claim = (change: object = {}) => ({ txHash: TX, blockNumber: AT, logs: [claimed(logB)], ...change });

  it("a claim naming logs must name one: no log is no claim", async () => {
    assert.isNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ logs: [] })));
    assert.isNull(await agreeOnClaim("valid", {} as PublicClient, FINALITY, claim({ logs: [] })));
  });

  it("stands when a majority holds its log in every field; a node forging that log is set aside", async () => {
    const f = three((v) => (v.receipts.get(TX)!.logs[1]!.data = "0xff"));
    const agreed = await agreeOnClaim("valid", f.client, FINALITY, claim());
    assert.equal(agreedFor(agreed), "valid");
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
    assert.deepEqual(f.blamed, []);
  });

  it("a claimed log a majority holds otherwise is no claim, and is blamed on the node that told it", async () => {
    for (const change of [
      { data: "0xff" as Hex },
      { logIndex: 0 },
      { address: SPLITTER.replace("c1", "c2") as Address },
      { topics: [TOPIC] as ClaimedLog["topics"] },
    ]) {
      const f = three();
      const forged = claimed(logB, change);
      assert.isNull(await agreeOnClaim("valid", f.client, FINALITY, claim({ logs: [forged] })), JSON.stringify(change));
      assert.deepEqual(f.blamed, [forged]);
    }
  });

  it("holds the claim's status: a reverted claim of a successful transaction is none, of a reverted one stands", async () => {
    assert.isNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ status: "reverted" })));
    const reverted = fakeNodes(
      [0, 1, 2].map(() => honestView(100n, [fakeReceipt(TX, AT, [], { status: "0x0" })])),
      { quorum: 2 },
    );
    assert.isNotNull(await agreeOnClaim("valid", reverted.client, FINALITY, { txHash: TX, blockNumber: AT, status: "reverted" }));
    assert.isNull(await agreeOnClaim("valid", reverted.client, FINALITY, { txHash: TX, blockNumber: AT, status: "success" }));
  });

  it("a claim naming its block's hash stands only on that hash; one naming none stands on whichever hash a majority holds", async () => {
    assert.isNotNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ blockHash: blockHash(AT) })));
    assert.isNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ blockHash: blockHash(AT, 1) })));
    const otherFork = () => {
      const v = honest();
      v.blocks.set(AT, blockHash(AT, 1));
      const r = v.receipts.get(TX)!;
      r.blockHash = blockHash(AT, 1);
      for (const l of r.logs) l.blockHash = blockHash(AT, 1);
      return v;
    };
    const split = fakeNodes([honest(), otherFork(), otherFork()], { quorum: 2 });
    assert.isNotNull(await agreeOnClaim("valid", split.client, FINALITY, claim()), "the log at its place, in either block");
    assert.isNull(await agreeOnClaim("valid", split.client, FINALITY, claim({ blockHash: blockHash(AT) })));
  });

  it("a whole receipt stands on every log and its sender and target: a hidden log or another sender is none", async () => {
    const from = "0x00000000000000000000000000000000000000f1" as Address;
    const to = "0x00000000000000000000000000000000000000f2" as Address;
    const both = [claimed(logA), claimed(logB)];
    assert.isNotNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ whole: { from, to }, logs: both })));
    assert.isNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ whole: { from, to } })), "logA left out");
    assert.isNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ whole: { from: to, to }, logs: both })));
    assert.isNull(await agreeOnClaim("valid", three().client, FINALITY, claim({ whole: { from, to: from }, logs: both })));
  });

  it("each contract read stands on the answer a majority gives at the claim's block", async () => {
    const read = (result: Hex) => ({ blockNumber: AT, calls: [{ to: SPLITTER, data: "0x1234" as Hex, result }] });
    assert.isNotNull(await agreeOnClaim("code_hash", three().client, FINALITY, read("0xab")), "case is no difference");
    assert.isNull(await agreeOnClaim("code_hash", three().client, FINALITY, read("0xac")));
    assert.isNull(
      await agreeOnClaim("code_hash", three().client, FINALITY, { blockNumber: AT, calls: [{ to: SPLITTER, data: "0x99" as Hex, result: "0xab" as Hex }] }),
    );
    const f = three((v) => (v.call = () => "0xac"));
    assert.isNotNull(await agreeOnClaim("code_hash", f.client, FINALITY, read("0xab")));
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("answers nothing while the claim's block is not final on a majority, or they hold no block there", async () => {
    assert.isNull(await agreeOnClaim("valid", three().client, { kind: "confirmations", confirmations: 6 }, claim()));
    const v = [honest(), honest(), honest()];
    v[1]!.blocks.delete(AT);
    v[2]!.blocks.delete(AT);
    const f = fakeNodes(v, { quorum: 2 });
    assert.isNull(await agreeOnClaim("valid", f.client, FINALITY, { blockNumber: AT, calls: [{ to: SPLITTER, data: "0x1234", result: "0xab" }] }));
    assert.deepEqual(f.setAside, []);
  });

  it("a receipt each node holds in a block it holds under another hash is no claim", async () => {
    const v = [honest(), honest(), honest()];
    for (const n of v.slice(1)) for (const l of [n.receipts.get(TX)!, ...n.receipts.get(TX)!.logs]) l.blockHash = blockHash(AT, 1);
    assert.isNull(await agreeOnClaim("valid", fakeNodes(v, { quorum: 2 }).client, FINALITY, claim()));
  });

  it("returns the claim's compared fields only: a log keeps its decoding, its place comes from the claim", async () => {
    const extra = { ...claimed(logB), removed: true, note: "a node's own field" };
    const agreed = await agreeOnClaim("valid", three().client, FINALITY, claim({ logs: [extra], note: "not compared", whole: undefined }));
    assert.deepEqual(agreed?.logs, [{ ...logCore(logB), transactionHash: TX, blockNumber: AT, eventName: "Paid", args: { amount: 1n } } as never] as never);
    assert.notProperty(agreed, "note");
    assert.notProperty(agreed, "whole");
    const alone = await agreeOnClaim(
      "valid",
      {} as PublicClient,
      FINALITY,
      claim({ blockHash: blockHash(AT), status: "success", calls: [{ to: SPLITTER, data: "0x1234", result: "0xab", x: 1 }] }),
    );
    assert.equal(agreedFor(alone), "valid");
    assert.deepEqual(alone?.calls, [{ to: SPLITTER, data: "0x1234", result: "0xab" }]);
    assert.equal(alone?.blockHash, blockHash(AT));
    assert.equal(alone?.status, "success");
    assert.equal((alone?.logs?.[0] as { blockHash?: Hex } | undefined)?.blockHash, blockHash(AT), "a claim naming its block's hash puts it on its logs");
  });
});

describe("the door for logs alone (agreeOnLogs)", () => {
  it("no log is no claim", async () => {
    assert.isNull(await agreeOnLogs("settled_event", three().client, FINALITY, []));
    assert.isNull(await agreeOnLogs("settled_event", {} as PublicClient, FINALITY, []));
  });

  it("answers each log a majority holds, made of their fields and keeping its decoding, across transactions", async () => {
    const agreed = await agreeOnLogs("settled_event", three().client, FINALITY, [claimed(logA), claimed(logC)]);
    assert.equal(agreedFor(agreed), "settled_event");
    assert.deepEqual(agreed, [
      { ...claimed(logA), transactionIndex: 0, removed: false },
      { ...claimed(logC), transactionIndex: 0, removed: false },
    ] as never);
  });

  it("leaves out a log a majority holds otherwise, blaming it, and the others stand", async () => {
    const forged = claimed(logB, { data: "0xff" });
    const f = three();
    const agreed = await agreeOnLogs("settled_event", f.client, FINALITY, [claimed(logA), forged]);
    assert.deepEqual(
      agreed?.map((l) => l.logIndex),
      [0],
    );
    assert.deepEqual(f.blamed, [forged]);
    for (const change of [
      { topics: [TOPIC] as ClaimedLog["topics"] },
      { blockHash: blockHash(AT, 1) },
      { address: SPLITTER.replace("c1", "c3") as Address },
      { logIndex: 3 },
    ]) {
      assert.deepEqual(await agreeOnLogs("settled_event", three().client, FINALITY, [claimed(logB, change)]), [] as never, JSON.stringify(change));
    }
  });

  it("a reverted transaction's logs are left out", async () => {
    const reverted = () => honestView(100n, [fakeReceipt(TX, AT, [logA], { status: "0x0" })]);
    const f = fakeNodes([reverted(), reverted(), reverted()], { quorum: 2 });
    assert.deepEqual(await agreeOnLogs("settled_event", f.client, FINALITY, [claimed(logA)]), [] as never);
  });

  it("answers nothing while any transaction is short of a majority", async () => {
    const v = [honest(), honest(), honest()];
    for (const n of v.slice(1)) n.receipts.delete(OTHER_TX.toLowerCase() as Hex);
    v[1]!.head = AT - 1n;
    v[2]!.head = AT - 1n;
    assert.isNull(await agreeOnLogs("settled_event", fakeNodes(v, { quorum: 2 }).client, FINALITY, [claimed(logA), claimed(logC)]));
  });

  it("one node alone: the logs as read, sealed as a copy", async () => {
    const logs = [claimed(logA)];
    const alone = await agreeOnLogs("settled_event", {} as PublicClient, FINALITY, logs);
    assert.notStrictEqual(alone, logs);
    assert.deepEqual(alone, logs as never);
    assert.equal(agreedFor(alone), "settled_event");
  });
});

describe("the door for a read that is no transaction (agreeOnRead)", () => {
  const read = (c: PublicClient) => c.request({ method: "eth_blockNumber" }).then((n) => ({ head: BigInt(n as Hex) }));

  it("answers a copy of what a majority answer alike, and sets aside the node that answered otherwise", async () => {
    const f = three((v) => (v.head = 101n));
    const agreed = await agreeOnRead("code_hash", f.client, read);
    assert.deepEqual(Object.entries(agreed), [["head", 100n]]);
    assert.equal(agreedFor(agreed), "code_hash");
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
    const kept = { head: 1n };
    const copied = await agreeOnRead("code_hash", fakeNodes([honest(), honest()], { quorum: 2 }).client, async () => kept);
    assert.notStrictEqual(copied, kept, "no node's object passes on");
  });

  it("NoMajorityError (RPC_BUSY) when they answer and no majority alike", async () => {
    const v = [honest(), honest(), honest()];
    v[0]!.head = 101n;
    v[1]!.head = 102n;
    const error = await agreeOnRead("code_hash", fakeNodes(v, { quorum: 2 }).client, read).catch((e: unknown) => e);
    assert.instanceOf(error, NoMajorityError);
    assert.equal((error as DomainError).code, "RPC_BUSY");
    assert.equal((error as Error).name, "NoMajorityError");
    assert.match((error as Error).message, /no 2 of them alike/);
  });

  it("one node alone: its answer, a value sealed and a plain one as it is", async () => {
    const plain = { request: async () => numberToHex(7n) } as unknown as PublicClient;
    const agreed = await agreeOnRead("code_hash", plain, read);
    assert.deepEqual(Object.entries(agreed), [["head", 7n]]);
    assert.equal(agreedFor(agreed), "code_hash");
    assert.equal(await agreeOnRead("code_hash", plain, async () => "0xhash"), "0xhash");
    assert.isNull(await agreeOnRead("code_hash", plain, async () => null));
  });
});
