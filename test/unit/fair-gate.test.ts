import { assert } from "chai";
import { FairGate } from "../../src/limits/fair-gate.js";
import { callerOf } from "../../src/limits/caller.js";

/** Issue 50: a caller is an IPv4 address or an IPv6 /64, and a full gate gives way from the caller holding the most. */
describe("who a caller is (src/limits/caller.ts)", () => {
  it("an IPv4 address is itself, also IPv4-mapped; an IPv6 address is its /64, however it is written", () => {
    assert.equal(callerOf("203.0.113.5"), "203.0.113.5");
    assert.equal(callerOf("::ffff:203.0.113.5"), "203.0.113.5");
    assert.equal(callerOf("2001:db8:0:1::1"), "2001:db8:0:1::/64");
    assert.equal(callerOf("2001:0DB8:0000:0001:ffff:ffff:ffff:ffff"), "2001:db8:0:1::/64");
    assert.equal(callerOf("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(callerOf("::1"), "0:0:0:0::/64");
    assert.notEqual(callerOf("2001:db8:0:1::1"), callerOf("2001:db8:0:2::1"), "the next /64 is another caller");
    assert.equal(callerOf(undefined), "unknown");
  });

  it("300 addresses of one IPv6 /64 are one caller; 300 IPv4 addresses are 300", () => {
    const v6 = new Set(Array.from({ length: 300 }, (_, i) => callerOf(`2001:db8:7:9:${i.toString(16)}:${(i * 7).toString(16)}:1:2`)));
    assert.equal(v6.size, 1);
    const v4 = new Set(Array.from({ length: 300 }, (_, i) => callerOf(`198.51.${i >> 8}.${i & 255}`)));
    assert.equal(v4.size, 300);
  });
});

describe("FairGate: a full gate refuses the caller holding the most places, never simply the newest", () => {
  /** A gate with its one slot held until `release`. */
  function heldGate(perCaller: number, callers: number) {
    const gate = new FairGate(1, perCaller, callers);
    let release!: () => void;
    const running = gate.run("holder", () => new Promise<void>((resolve) => (release = resolve)));
    return { gate, running, release: () => release() };
  }

  it("300 callers waiting do not lock out the 301st", async () => {
    const { gate, running, release } = heldGate(4, 256);
    const waits = Array.from({ length: 300 }, (_, i) => gate.run(`198.51.100.${i}`, async () => i));
    const late = gate.run("203.0.113.1", async () => "served");
    release();
    await running;
    assert.deepEqual(await late, { value: "served" }, "the 301st caller is served in its turn");
    const answers = await Promise.all(waits);
    assert.isAtMost(answers.filter((a) => a !== null).length, 256, "at most `callers` wait at once");
  });

  it("a full gate takes the place of the caller holding the most: one caller's crowd gives way to newcomers", async () => {
    const { gate, running, release } = heldGate(8, 3);
    const crowd = Array.from({ length: 8 }, (_, i) => gate.run("crowd", async () => `crowd${i}`));
    const b = gate.run("b", async () => "b");
    const c = gate.run("c", async () => "c");
    const d = gate.run("d", async () => "d");
    const e = gate.run("e", async () => "e");
    release();
    await running;
    assert.deepEqual(await Promise.all([b, c, d, e]), [{ value: "b" }, { value: "c" }, { value: "d" }, { value: "e" }], "every newcomer is served");
    const served = (await Promise.all(crowd)).filter((a) => a !== null).length;
    assert.equal(served, 6, "the crowd lost its two newest places, one per newcomer past the gate's callers");
  });
});
