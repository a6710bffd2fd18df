import { assert } from "chai";
import type { Address, Hex, PublicClient } from "viem";
import { loadLiveDeployment } from "../../src/deployments.js";
import { FairGate } from "../../src/limits/fair-gate.js";
import { PaymentsList } from "../../src/payments/payments-list.js";
import { RANGE_REFUSAL_MEMORY_MS, RangeCap } from "../../src/payments/log-ranges.js";
import { ListPaymentsResponse } from "../../src/wire/index.js";

const RECIPIENT = "0x0000000000000000000000000000000000000002" as Address;
const PAYER = "0x0000000000000000000000000000000000000003" as Address;
const deployment = { ...loadLiveDeployment(84532), deployBlock: 1_000 };
const hex32 = (n: bigint) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

/**
 * A node in memory: `Paid` (a pay settlement) at the given blocks, logs carrying `blockTimestampMs`
 * and blocks `timestampMs` when `ms` (Base since Denim); refuses log ranges wider than `cap`; counts
 * what it is asked.
 */
function fakeNode(options: { head: bigint; paidAt: bigint[]; ms: boolean; cap?: bigint }) {
  const asked = { ranges: [] as Array<[bigint, bigint]>, refused: 0 };
  const time = (block: bigint) => 1_796_000_000_000n + block * 200n; // 200 ms blocks
  const client = {
    getBlock: async (args: { blockNumber?: bigint }) => {
      const number = args.blockNumber ?? options.head;
      return { number, hash: "0x", timestamp: time(number) / 1000n, ...(options.ms ? { timestampMs: `0x${time(number).toString(16)}` } : {}) };
    },
    getTransaction: async (args: { hash: Hex }) => ({ hash: args.hash, input: "0x" }),
    getLogs: async (args: { fromBlock: bigint; toBlock: bigint; event: { name: string } }) => {
      if (options.cap !== undefined && args.toBlock - args.fromBlock + 1n > options.cap) {
        asked.refused++;
        throw new Error("block range too large");
      }
      if (args.event.name !== "Paid") return [];
      asked.ranges.push([args.fromBlock, args.toBlock]);
      return options.paidAt
        .filter((b) => b >= args.fromBlock && b <= args.toBlock)
        .map((b) => ({
          args: {
            paymentKey: hex32(b),
            paymentReference: hex32(b),
            recipient: RECIPIENT,
            payer: PAYER,
            token: deployment.token.address,
            amount: 1_000_000n,
            fee: 20_000n,
          },
          blockNumber: b,
          logIndex: 2,
          transactionHash: hex32(b),
          ...(options.ms ? { blockTimestampMs: `0x${time(b).toString(16)}` } : {}),
        }));
    },
  } as unknown as PublicClient;
  const list = new PaymentsList({
    client,
    deployment,
    finality: { kind: "confirmations", confirmations: 0 },
    depositAddresses: { ofKey: async () => "0x0000000000000000000000000000000000000001" as Address },
    gate: new FairGate(2, 8),
  });
  return { list, asked };
}

async function everyPage(list: PaymentsList, limit = 100) {
  const pages: ListPaymentsResponse[] = [];
  let before: bigint | undefined;
  do {
    const page = ListPaymentsResponse.parse(await list.list({ recipient: RECIPIENT, limit, ...(before !== undefined ? { beforeBlock: before } : {}) }));
    pages.push(page);
    before = page.next_before_block === null ? undefined : BigInt(page.next_before_block);
  } while (before !== undefined && pages.length < 2_000);
  return pages;
}

describe("payments list reads (a node in memory)", () => {
  it("a month of Base without a range cap: one read from the latest block down to the deployment's, never below it", async () => {
    const { list, asked } = fakeNode({ head: 13_000_000n, paidAt: [1_500n, 6_000_000n, 12_999_000n], ms: false });
    const pages = await everyPage(list);
    assert.lengthOf(pages, 1);
    assert.deepEqual(asked.ranges, [[1_000n, 13_000_000n]]);
    assert.lengthOf(pages[0]!.payments, 3);
    assert.equal(pages[0]!.from_timestamp, Number((1_796_000_000_000n + 1_000n * 200n) / 1000n), "the page's dates start at the deployment's block");
  });

  it("behind a 10,000-block cap: refused ranges are halved, the widest accepted is kept, and every payment is read once", async () => {
    const paidAt = [1_200n, 400_000n, 1_999_999n];
    const { list, asked } = fakeNode({ head: 2_000_000n, paidAt, ms: false, cap: 10_000n });
    const pages = await everyPage(list);
    const listed = pages.flatMap((p) => p.payments.map((x) => BigInt(x.block_number)));
    assert.deepEqual(listed, [...paidAt].reverse());
    // Contiguous ranges from the head down to the deployment's block, none above the cap.
    let next = 2_000_001n;
    for (const [from, to] of asked.ranges) {
      assert.equal(to, next - 1n);
      assert.isAtMost(Number(to - from + 1n), 10_000);
      next = from;
    }
    assert.equal(next, 1_000n);
    const best = Math.ceil((2_000_000 - 1_000 + 1) / 10_000);
    assert.isAtMost(asked.ranges.length, Math.ceil(best * 1.15), "within an eighth of the cap once found");
    assert.isAtMost(asked.refused / 4, 16, "the cap is found once, not on every page");
  });

  it("milliseconds where the node serves them (timestamp_ms), absent where it does not", async () => {
    const withMs = fakeNode({ head: 5_000n, paidAt: [4_321n], ms: true });
    const [page] = await everyPage(withMs.list);
    assert.equal(page!.payments[0]!.timestamp_ms, 1_796_000_000_000 + 4_321 * 200);
    assert.equal(page!.payments[0]!.timestamp, Math.floor((1_796_000_000_000 + 4_321 * 200) / 1000));
    const without = fakeNode({ head: 5_000n, paidAt: [4_321n], ms: false });
    const [plain] = await everyPage(without.list);
    assert.notProperty(plain!.payments[0]!, "timestamp_ms");
  });
});

describe("FairGate: each caller's tasks wait behind its own", () => {
  it("a freed slot goes to the callers in turn; only the caller whose own queue is full is refused", async () => {
    const gate = new FairGate(1, 2);
    const order: string[] = [];
    let release!: () => void;
    const running = gate.run("a", () => new Promise<void>((resolve) => (release = resolve)).then(() => order.push("a0")));
    const a1 = gate.run("a", async () => order.push("a1"));
    const a2 = gate.run("a", async () => order.push("a2"));
    assert.isNull(await gate.run("a", async () => order.push("a3")), "a's own queue is full");
    const b = gate.run("b", async () => order.push("b0"));
    release();
    await Promise.all([running, a1, a2, b]);
    assert.deepEqual(order, ["a0", "a1", "b0", "a2"]);
  });
});

describe("RangeCap: what a node accepts, learned", () => {
  it("finds a 10,000-block cap from above, stays within an eighth of it, and outgrows a passing fault's refusal as time passes", () => {
    let now = 0;
    const cap = new RangeCap(() => now);
    const ask = (wanted: bigint, limit: bigint) => {
      const span = cap.span(wanted);
      if (span > limit) cap.refused(span);
      else cap.accepted(span);
      return span;
    };
    const spans = Array.from({ length: 20 }, () => ask(13_000_000n, 10_000n));
    assert.isAtMost(Number(spans.at(-1)), 10_000);
    assert.isAtLeast(Number(spans.at(-1)), 8_750);
    // A fault refused a wide range on a node without a cap: the reads narrow, then widen again.
    const open = new RangeCap(() => now);
    open.refused(13_000_000n);
    assert.isBelow(Number(open.span(13_000_000n)), 13_000_000);
    for (let i = 0; i < 4; i++) {
      now += RANGE_REFUSAL_MEMORY_MS + 1;
      open.accepted(open.span(13_000_000n));
    }
    assert.equal(open.span(13_000_000n), 13_000_000n);
  });
});
