import { assert } from "chai";
import { pad, type Address, type Hex, type TransactionReceipt } from "viem";
import { agreedFor, agreeOnClaim, agreeOnLogs, agreeOnRead, agreeOnReceipt, type ClaimedLog } from "../../src/chain/agreement.js";
import { majorityRead, pinnedBlock } from "../../src/chain/majority-read.js";
import type { Finality } from "../../src/config.js";
import type { DomainError } from "../../src/errors.js";
import { blockHash, fakeLog, fakeNodes, fakeReceipt, honestView, type NodeView } from "../helpers/fake-nodes.js";

/*
 * The door's edges (DESIGN v7 "One door for verdicts"): nodes that answer oddly (no block where
 * their receipt is, no result at all, a failure on one method), receipts off a node's own chain,
 * a claim in another block than its transaction's, one node taken as it is.
 */

const TX = pad("0xaa", { size: 32 });
const LATE_TX = pad("0xbb", { size: 32 });
const SPLITTER: Address = "0x00000000000000000000000000000000000000c1";
const AT = 95n;
const FINALITY: Finality = { kind: "confirmations", confirmations: 5 };
const logA = fakeLog(TX, AT, 0, { address: SPLITTER, topics: [pad("0x7a", { size: 32 })], data: "0x01" });
/** A transaction in block 99: not final under 5 confirmations of a head at 100. */
const lateLog = fakeLog(LATE_TX, 99n, 0, { address: SPLITTER, topics: [pad("0x7b", { size: 32 })], data: "0x02" });
const calls = (_to: Address, data: Hex): Hex | "revert" => (data === "0x1234" ? "0xab" : "revert");
const honest = (): NodeView => honestView(100n, [fakeReceipt(TX, AT, [logA]), fakeReceipt(LATE_TX, 99n, [lateLog])], calls);
const named = { transactionHash: TX, blockNumber: AT } as TransactionReceipt;
const claimed = (log: typeof logA, change: Partial<ClaimedLog> = {}): ClaimedLog => ({
  address: log.address,
  topics: log.topics as ClaimedLog["topics"],
  data: log.data,
  logIndex: Number(log.logIndex),
  transactionHash: log.transactionHash,
  blockNumber: BigInt(log.blockNumber),
  blockHash: log.blockHash,
  ...change,
});
/** Node 0 honest, nodes 1 and 2 changed by `change`. */
const twoOdd = (change: (v: NodeView, i: number) => void) =>
  fakeNodes(
    [0, 1, 2].map((i) => {
      const v = honest();
      if (i > 0) change(v, i);
      return v;
    }),
    { quorum: 2 },
  );
const busy = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => (e as DomainError).code ?? "thrown",
  );

describe("the door's edges", () => {
  it("one node of a quorum of one is taken as it is, and not asked again", async () => {
    const f = fakeNodes([honest()], { quorum: 1 });
    assert.equal(agreedFor(await agreeOnReceipt("charged", f.client, FINALITY, { ...named, status: "reverted" })), "charged");
    assert.equal((await agreeOnReceipt("charged", f.client, FINALITY, { ...named, status: "reverted" }))?.status, "reverted", "as handed in");
    assert.isNotNull(await agreeOnClaim("valid", f.client, FINALITY, { txHash: TX, blockNumber: AT, logs: [claimed(logA, { data: "0xff" })] }));
    assert.lengthOf((await agreeOnLogs("settled_event", f.client, FINALITY, [claimed(logA, { data: "0xff" })])) ?? [], 1);
    assert.deepEqual(Object.entries(await agreeOnRead("code_hash", f.client, async (c) => ({ by: c === f.client ? "the reader" : "a node" }))), [
      ["by", "the reader"],
    ]);
    assert.deepEqual([...f.asked[0]!.keys()], [], "no request");
  });

  it("agreedFor reads no mark off null or a plain value", () => {
    assert.isUndefined(agreedFor(null));
    assert.isUndefined(agreedFor(undefined));
    assert.isUndefined(agreedFor("0xhash"));
    assert.isUndefined(agreedFor({}));
  });

  it("a receipt in a block its node does not hold counts for nothing (not a failure): no majority, not RPC_BUSY", async () => {
    assert.isNull(await agreeOnReceipt("charged", twoOdd((v) => v.blocks.delete(AT)).client, FINALITY, named));
    const moved = twoOdd((v) => v.blocks.delete(AT));
    assert.isNull(await agreeOnReceipt("charged", moved.client, FINALITY, { ...named, blockNumber: AT - 1n }), "moved to a block it does not hold");
  });

  it("a node answering no result at all for a transaction holds none", async () => {
    const f = twoOdd((v) => {
      v.receipts.clear();
      v.noResult = true;
    });
    assert.isNull(await agreeOnReceipt("charged", f.client, FINALITY, named));
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("a node whose receipt is not final yet has no say and is not set aside; one off its own chain disagrees", async () => {
    const young = twoOdd((v) => (v.head = 99n));
    assert.isNull(await agreeOnReceipt("charged", young.client, FINALITY, named));
    assert.deepEqual(young.setAside, []);
    const v = [honest(), honest(), honest()];
    v[0]!.receipts.get(TX)!.blockHash = blockHash(AT, 1);
    const f = fakeNodes(v, { quorum: 2 });
    assert.isNotNull(await agreeOnReceipt("charged", f.client, FINALITY, named));
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("a claim naming its block's hash holds every log's: a node answering a log under another block hash disagrees", async () => {
    const v = [honest(), honest(), honest()];
    v[0]!.receipts.get(TX)!.logs[0]!.blockHash = blockHash(AT, 1);
    const f = fakeNodes(v, { quorum: 2 });
    assert.isNotNull(await agreeOnClaim("valid", f.client, FINALITY, { txHash: TX, blockNumber: AT, blockHash: blockHash(AT), logs: [claimed(logA)] }));
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("two nodes each off their own chain, on different forks, are no majority against the honest one", async () => {
    const f = twoOdd((v, i) => (v.receipts.get(TX)!.blockHash = blockHash(AT, i)));
    assert.isNull(await agreeOnReceipt("charged", f.client, FINALITY, named));
    assert.deepEqual(f.setAside, []);
    const c = twoOdd((v, i) => {
      v.blocks.set(AT, blockHash(AT, i));
      v.receipts.get(TX)!.blockHash = blockHash(AT, i + 2);
    });
    assert.isNull(await agreeOnClaim("valid", c.client, FINALITY, { txHash: TX, blockNumber: AT, blockHash: blockHash(AT), logs: [claimed(logA)] }));
    assert.deepEqual(c.setAside, []);
  });

  it("a node holding none and one off its own chain are not alike: the honest one is not set aside", async () => {
    const f = twoOdd((v, i) => {
      if (i === 1) v.receipts.clear();
      else v.receipts.get(TX)!.blockHash = blockHash(AT, 1);
    });
    assert.isNull(await agreeOnClaim("valid", f.client, FINALITY, { txHash: TX, blockNumber: AT, logs: [claimed(logA)] }));
    assert.deepEqual(f.setAside, []);
  });

  it("a claim of a transaction a majority holds nowhere is no claim, not RPC_BUSY; a log of one is left out", async () => {
    const f = twoOdd((v) => v.receipts.clear());
    assert.isNull(await agreeOnClaim("valid", f.client, FINALITY, { txHash: TX, blockNumber: AT, logs: [claimed(logA)] }));
    assert.deepEqual(await agreeOnLogs("settled_event", twoOdd((v) => v.receipts.clear()).client, FINALITY, [claimed(logA)]), [] as never);
  });

  it("a claim naming its transaction in another block than the one it is in is no claim, as is a log placed there", async () => {
    assert.isNull(await agreeOnClaim("valid", twoOdd(() => {}).client, FINALITY, { txHash: TX, blockNumber: AT - 1n, status: "success" }));
    assert.deepEqual(await agreeOnLogs("settled_event", twoOdd(() => {}).client, FINALITY, [claimed(logA, { blockNumber: AT - 1n })]), [] as never);
  });

  it("logs of two transactions, one not final yet: nothing until both are", async () => {
    assert.isNull(await agreeOnLogs("settled_event", twoOdd(() => {}).client, FINALITY, [claimed(logA), claimed(lateLog)]));
  });

  it("a contract read at a block not final is no claim", async () => {
    const read = { blockNumber: 99n, calls: [{ to: SPLITTER, data: "0x1234" as Hex, result: "0xab" as Hex }] };
    assert.isNull(await agreeOnClaim("code_hash", twoOdd(() => {}).client, FINALITY, read));
    assert.isNotNull(await agreeOnClaim("code_hash", twoOdd(() => {}).client, FINALITY, { ...read, blockNumber: AT }));
  });

  it("a node failing its contract reads has no say: two failing is RPC_BUSY, not a claim refused", async () => {
    const f = twoOdd((v) => (v.failing = ["eth_call"]));
    assert.equal(
      await busy(agreeOnClaim("code_hash", f.client, FINALITY, { blockNumber: AT, calls: [{ to: SPLITTER, data: "0x1234", result: "0xab" }] })),
      "RPC_BUSY",
    );
  });

  it("a claimed log naming no block hash (not read from a node's log answer) blames no node", async () => {
    const f = fakeNodes([honest(), honest(), honest()], { quorum: 2 });
    const { blockHash: _, ...bare } = claimed(logA, { data: "0xff" });
    assert.isNull(await agreeOnClaim("valid", f.client, FINALITY, { txHash: TX, blockNumber: AT, logs: [bare as ClaimedLog] }));
    assert.deepEqual(f.blamed, []);
    const short = fakeNodes([honest(), honest(), honest()], { quorum: 2 });
    assert.isNull(
      await agreeOnClaim(
        "valid",
        short.client,
        { kind: "confirmations", confirmations: 6 },
        { txHash: TX, blockNumber: AT, logs: [claimed(logA, { data: "0xff" })] },
      ),
    );
    assert.deepEqual(short.blamed, [], "short of a majority: nobody told otherwise");
  });

  it("the claim returned carries the transaction, block hash, status and whole receipt it named, and nothing it did not", async () => {
    const f = fakeNodes([honest(), honest(), honest()], { quorum: 2 });
    const whole = { from: "0x00000000000000000000000000000000000000f1" as Address, to: "0x00000000000000000000000000000000000000f2" as Address };
    const full = await agreeOnClaim("valid", f.client, FINALITY, {
      txHash: TX,
      blockNumber: AT,
      blockHash: blockHash(AT),
      status: "success",
      whole,
      logs: [claimed(logA)],
    });
    assert.equal(full?.txHash, TX);
    assert.equal(full?.blockHash, blockHash(AT));
    assert.equal(full?.status, "success");
    assert.deepEqual(full?.whole, whole);
    const bare = await agreeOnClaim("code_hash", f.client, FINALITY, { blockNumber: AT, calls: [{ to: SPLITTER, data: "0x1234", result: "0xab" }] });
    for (const field of ["txHash", "blockHash", "status", "whole", "logs"]) assert.notProperty(bare, field);
  });

  it("reverts alike are a majority only with the same reason", async () => {
    const reasons = twoOdd((v, i) => (v.call = () => `revert:reason ${i}`));
    reasons.views[0]!.call = () => "revert:reason 0";
    const call = (c: Parameters<typeof majorityRead>[0]) =>
      c.request({ method: "eth_call", params: [{ to: SPLITTER, data: "0x" }, "0x1"] } as never) as Promise<unknown>;
    assert.equal(await busy(majorityRead(reasons.client, call)), "RPC_BUSY");
  });

  it("the quorum's head is asked anew each time, never a cached one", async () => {
    const f = fakeNodes([honest(), honest(), honest()], { quorum: 2 });
    assert.equal(await pinnedBlock(f.client), 100n);
    for (const v of f.views) v.head = 101n;
    assert.equal(await pinnedBlock(f.client), 101n);
  });
});
