import { assert } from "chai";
import type { PublicClient } from "viem";
import { canonicalReceipt, stableKey, tally, type Vote } from "../../src/chain/agreement-tally.js";
import { majorityRead, pinnedBlock } from "../../src/chain/majority-read.js";
import type { ChainNode } from "../../src/chain/node.js";
import { DomainError } from "../../src/errors.js";
import { fakeNodes, gate, honestView, Reverted, type NodeView } from "../helpers/fake-nodes.js";

/*
 * How the door counts (DESIGN v7 "One door for verdicts", v8 "The door"): a value stands when a
 * quorum of distinct hosts answer it alike; a node answering otherwise is set aside, and only that
 * node; a node that failed or is behind has no say; too few answering is RPC_BUSY, never a verdict.
 */

const views = (n: number): NodeView[] => Array.from({ length: n }, () => honestView(10n));
const vote = (key: string): Vote<string> => ({ behind: false, key, value: `value of ${key}` });
const behind: Vote<string> = { behind: true };

/** Each node's vote by position: a vote, or an Error thrown (the node failed). */
function votes(list: Array<Vote<string> | Error>) {
  return (node: ChainNode) => {
    const v = list[node.position]!;
    return v instanceof Error ? Promise.reject(v) : Promise.resolve(v);
  };
}

async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  const outcome = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  assert.instanceOf(outcome, DomainError, "refused");
  return outcome as DomainError;
}

describe("the door's count (tally)", () => {
  it("answers what a quorum of nodes answer alike, and sets aside the one node that answered otherwise", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    const held = await tally(f.nodes, votes([vote("a"), vote("forged"), vote("a")]));
    assert.deepEqual(held, { key: "a", value: "value of a" });
    assert.deepEqual(f.setAside, [[1, "disagreed"]]);
  });

  it("answers nothing when no quorum is alike (three nodes, three answers), and sets no node aside", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    assert.isNull(await tally(f.nodes, votes([vote("a"), vote("b"), vote("c")])));
    assert.deepEqual(f.setAside, []);
  });

  it("a tie is no majority: two against two under a quorum of three answers nothing", async () => {
    const f = fakeNodes(views(4), { quorum: 3 });
    assert.isNull(await tally(f.nodes, votes([vote("a"), vote("b"), vote("a"), vote("b")])));
    assert.deepEqual(f.setAside, []);
  });

  it("needs the quorum itself: two alike of three under a quorum of three is not enough, three are", async () => {
    const short = fakeNodes(views(3), { quorum: 3 });
    assert.isNull(await tally(short.nodes, votes([vote("a"), vote("a"), vote("b")])));
    const whole = fakeNodes(views(3), { quorum: 3 });
    assert.deepEqual(await tally(whole.nodes, votes([vote("a"), vote("a"), vote("a")])), { key: "a", value: "value of a" });
  });

  it("a node behind has no say and is not set aside: one answering of three is no majority, and not RPC_BUSY", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    assert.isNull(await tally(f.nodes, votes([behind, vote("a"), behind])));
    const g = fakeNodes(views(3), { quorum: 2 });
    assert.deepEqual(await tally(g.nodes, votes([behind, vote("a"), vote("a")])), { key: "a", value: "value of a" });
    assert.deepEqual([...f.setAside, ...g.setAside], [], "behind is not disagreeing");
  });

  it("a node that failed has no say: one failed of three still decides; two failed of three is RPC_BUSY", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    assert.deepEqual(await tally(f.nodes, votes([new Error("down"), vote("a"), vote("a")])), { key: "a", value: "value of a" });
    assert.deepEqual(f.setAside, [], "the door leaves a failed node to the reads' own ranking");
    const g = fakeNodes(views(3), { quorum: 2 });
    const busy = await rejection(tally(g.nodes, votes([new Error("down"), vote("a"), new Error("down")])));
    assert.equal(busy.code, "RPC_BUSY");
    // The reason reaches x402's errorMessage (auth-capture's "cannot be sent now").
    assert.equal(busy.detail, "no majority of the chain's nodes answered");
  });

  it("one failed and the other two disagreeing is no majority, not RPC_BUSY (two could still have agreed)", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    assert.isNull(await tally(f.nodes, votes([new Error("down"), vote("a"), vote("b")])));
  });

  it("counts hosts, not URLs: two nodes of one host alike are one voice", async () => {
    const hosts = ["127.0.0.2", "127.0.0.2", "127.0.0.3"];
    const f = fakeNodes(views(3), { quorum: 2, hosts });
    assert.isNull(await tally(f.nodes, votes([vote("a"), vote("a"), vote("b")])), "one host's two nodes are no quorum of two");
    const g = fakeNodes(views(3), { quorum: 2, hosts });
    assert.deepEqual(await tally(g.nodes, votes([vote("a"), vote("b"), vote("a")])), { key: "a", value: "value of a" }, "two hosts are");
    assert.deepEqual(g.setAside, [[1, "disagreed"]]);
  });

  it("RPC_BUSY when the hosts still answering are fewer than the quorum, however many of their nodes answer", async () => {
    const f = fakeNodes(views(3), { quorum: 2, hosts: ["127.0.0.2", "127.0.0.2", "127.0.0.3"] });
    const busy = await rejection(tally(f.nodes, votes([vote("a"), vote("a"), new Error("down")])));
    assert.equal(busy.code, "RPC_BUSY");
  });

  it("decides as soon as a quorum is alike, without waiting for a slow node; sets the slow one aside once it answers otherwise", async () => {
    const slow = gate();
    const f = fakeNodes(views(3), { quorum: 2 });
    let late = false;
    const held = await tally(f.nodes, (node) =>
      node.position === 2
        ? slow.promise.then(() => {
            late = true;
            return vote("late lie");
          })
        : Promise.resolve(vote("a")),
    );
    assert.deepEqual(held, { key: "a", value: "value of a" });
    assert.isFalse(late, "answered before the slow node");
    assert.deepEqual(f.setAside, []);
    slow.open();
    await slow.promise;
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(f.setAside, [[2, "disagreed"]]);
  });

  it("a slow node answering alike is not set aside", async () => {
    const slow = gate();
    const f = fakeNodes(views(3), { quorum: 2 });
    const held = await tally(f.nodes, (node) => (node.position === 0 ? slow.promise.then(() => vote("a")) : Promise.resolve(vote("a"))));
    assert.equal(held?.key, "a");
    slow.open();
    await slow.promise;
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(f.setAside, []);
  });
});

describe("a read that is no verdict's proof (majorityRead)", () => {
  const read = (client: PublicClient) => client.request({ method: "eth_blockNumber" }) as Promise<string>;

  it("asks the one client alone when there is no quorum to ask", async () => {
    let asked = 0;
    const plain = {
      request: async () => {
        asked++;
        return "0x1";
      },
    } as unknown as PublicClient;
    assert.equal(await majorityRead(plain, read), "0x1");
    const one = fakeNodes([honestView(7n)], { quorum: 1 });
    assert.equal(await majorityRead(one.client, async (c) => (c === one.client ? "the reader's" : "a node's")), "the reader's");
    assert.equal(asked, 1);
  });

  it("answers what a majority of the nodes answer, and sets aside the node that answered otherwise", async () => {
    const v = views(3);
    v[0]!.head = 999n;
    const f = fakeNodes(v, { quorum: 2 });
    assert.equal(await majorityRead(f.client, read), "0xa");
    assert.deepEqual(f.setAside, [[0, "disagreed"]]);
  });

  it("a revert a majority answers is thrown, as theirs; one node's revert decides nothing", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    const call = (c: PublicClient) =>
      c.request({ method: "eth_call", params: [{ to: "0x00000000000000000000000000000000000000c0", data: "0x" }, "0x1"] } as never);
    const thrown = await majorityRead(f.client, call).then(
      () => null,
      (e: unknown) => e,
    );
    assert.match(String((thrown as Error)?.message), /revert/i, "every node reverts: the revert");
    const v = views(3);
    v[1]!.call = () => "0x01";
    v[2]!.call = () => "0x01";
    const g = fakeNodes(v, { quorum: 2 });
    assert.equal(await majorityRead(g.client, call), "0x01");
    assert.deepEqual(g.setAside, [[0, "disagreed"]]);
  });

  it("a node's own failure is no answer: two failing of three is RPC_BUSY, as is no two alike", async () => {
    const v = views(3);
    v[0]!.down = true;
    v[1]!.down = true;
    assert.equal((await rejection(majorityRead(fakeNodes(v, { quorum: 2 }).client, read))).code, "RPC_BUSY");
    const w = views(3);
    w[0]!.head = 11n;
    w[1]!.head = 12n;
    const split = await rejection(majorityRead(fakeNodes(w, { quorum: 2 }).client, read));
    assert.equal(split.code, "RPC_BUSY");
    assert.match(split.message, /no majority of them alike/);
  });

  it("an error that is not a request's answer (not a node's JSON-RPC revert) is the node's failure, no vote", async () => {
    const f = fakeNodes(views(3), { quorum: 2 });
    const outcome = await majorityRead(f.client, (c) => (c === f.nodes.nodes[2]!.client ? Promise.resolve("0x02") : Promise.reject(new Reverted()))).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    assert.instanceOf((outcome as { error?: unknown }).error, DomainError, "a plain Error is the node's: no majority, RPC_BUSY");
    assert.equal((outcome as { error: DomainError }).error.code, "RPC_BUSY");
  });
});

describe("the block a quorum has reached (pinnedBlock)", () => {
  it("is the quorum-th highest head: a head far ahead or far behind does not move it", async () => {
    const v = views(3);
    v[0]!.head = 5_000n;
    v[1]!.head = 100n;
    v[2]!.head = 98n;
    assert.equal(await pinnedBlock(fakeNodes(v, { quorum: 2 }).client), 100n);
    v[0]!.head = 3n;
    assert.equal(await pinnedBlock(fakeNodes(v, { quorum: 2 }).client), 98n);
    assert.equal(await pinnedBlock(fakeNodes(v, { quorum: 3 }).client), 3n);
  });

  it("counts a host once, at its highest head", async () => {
    const v = views(3);
    v[0]!.head = 5_000n;
    v[1]!.head = 100n;
    v[2]!.head = 98n;
    assert.equal(await pinnedBlock(fakeNodes(v, { quorum: 2, hosts: ["a", "a", "b"] }).client), 98n);
  });

  it("is null with one node, and RPC_BUSY when fewer hosts than the quorum answer a head", async () => {
    assert.isNull(await pinnedBlock(fakeNodes([honestView(5n)], { quorum: 1 }).client));
    assert.isNull(await pinnedBlock({} as PublicClient));
    const v = views(3);
    v[0]!.down = true;
    v[1]!.down = true;
    assert.equal((await rejection(pinnedBlock(fakeNodes(v, { quorum: 2 }).client))).code, "RPC_BUSY");
  });
});

describe("what nodes' answers are compared on", () => {
  it("a receipt's key is its compared fields, lower-cased: case is no disagreement, another field is, an extra one is dropped", () => {
    const raw = {
      transactionHash: "0xAB",
      blockHash: "0xCD",
      blockNumber: "0x1",
      status: "0x1",
      logs: [{ address: "0xEF", topics: ["0xAA"], data: "0x", removed: true }],
    };
    const same = canonicalReceipt({ ...raw, transactionHash: "0xab", blockHash: "0xcd", extra: "a node's own field" });
    assert.deepEqual(canonicalReceipt(raw), same);
    assert.notDeepEqual(canonicalReceipt(raw), canonicalReceipt({ ...raw, status: "0x0" }));
    assert.notProperty(same, "extra");
    assert.equal(same.logs[0]!.address, "0xef");
    assert.deepEqual(same.logs[0]!.topics, ["0xaa"]);
    assert.isTrue(same.logs[0]!.removed);
    assert.isFalse(canonicalReceipt({ ...raw, logs: [{ ...raw.logs[0], removed: "true" }] }).logs[0]!.removed, "only true is removed");
    assert.deepEqual(canonicalReceipt({ transactionHash: "0x1" }).logs, [], "no logs answered: none");
    assert.isNull(canonicalReceipt({}).root, "a field not answered is null");
  });

  it("a read's key is every field: bigints marked, strings lower-cased", () => {
    assert.equal(stableKey({ a: 1n, b: "0xAB" }), stableKey({ a: 1n, b: "0xab" }));
    assert.notEqual(stableKey({ a: 1n }), stableKey({ a: "1" }));
    assert.notEqual(stableKey({ a: 1n }), stableKey({ a: 1 }));
    assert.equal(stableKey(undefined), "undefined");
  });
});
