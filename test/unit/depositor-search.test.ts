import { assert } from "chai";
import { createPublicClient, custom, encodeAbiParameters, getAddress, pad, toEventSelector, toHex, type Address, type Hex, type PublicClient } from "viem";
import type { LiveDeployment } from "../../src/deployments.js";
import { depositorOf } from "../../src/payments/depositor.js";

/**
 * The search for a payment address's payer (depositorOf) on a node of our making: which transfers it
 * reads, in which ranges, what it counts as moved, and where it stops. The rule applied to what it
 * finds is test/unit/depositor.test.ts's.
 */
const TOKEN = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
const deposit = "0x00000000000000000000000000000000000000d0" as Address;
const buyer = "0x00000000000000000000000000000000000000b1" as Address;
const stranger = "0x00000000000000000000000000000000000000e5" as Address;
const DEPLOY_BLOCK = 10n;

interface Transfer {
  from: Address;
  to?: Address;
  value: bigint;
  blockNumber: bigint;
  logIndex: number;
}
interface Excess {
  moved: bigint;
  blockNumber: bigint;
  logIndex: number;
  address?: Address;
}

/**
 * A node that serves these logs, refusing ranges wider than `maxSpan` blocks; records each Transfer
 * read it answered, and each it refused. `lies`: it answers every transfer into the address, whatever
 * range was asked (a node that lies about its logs).
 */
function node(transfers: Transfer[], options: { excess?: Excess[]; maxSpan?: bigint; lies?: boolean } = {}) {
  const reads: [bigint, bigint][] = [];
  const refused: [bigint, bigint][] = [];
  const within = (b: bigint, from: bigint, to: bigint) => b >= from && b <= to;
  const client = {
    async getLogs(args: { address: Address; event: { name: string }; args?: { to?: Address }; fromBlock: bigint; toBlock: bigint }) {
      const { fromBlock, toBlock } = args;
      if (args.event.name === "PaidInExcess") {
        return (options.excess ?? [])
          .filter((e) => (e.address ?? deposit) === args.address && within(e.blockNumber, fromBlock, toBlock))
          .map((e) => ({ args: { moved: e.moved, fee: 0n }, blockNumber: e.blockNumber, logIndex: e.logIndex }));
      }
      assert.equal(args.address, TOKEN, "transfers of the payment's token");
      if (options.maxSpan !== undefined && toBlock - fromBlock + 1n > options.maxSpan) {
        refused.push([fromBlock, toBlock]);
        throw new Error("block range too large");
      }
      reads.push([fromBlock, toBlock]);
      return transfers
        .filter((t) => (t.to ?? deposit) === args.args?.to && (options.lies || within(t.blockNumber, fromBlock, toBlock)))
        .map((t) => ({ args: { from: t.from, to: t.to ?? deposit, value: t.value }, blockNumber: t.blockNumber, logIndex: t.logIndex }));
    },
  };
  const deployment = { token: { address: TOKEN }, deployBlock: Number(DEPLOY_BLOCK) } as unknown as LiveDeployment;
  return { chain: { client: client as unknown as PublicClient, deployment }, reads, refused };
}

const t = (from: Address, value: bigint, blockNumber: bigint, logIndex = 0, to?: Address): Transfer => ({
  from,
  value,
  blockNumber,
  logIndex,
  ...(to ? { to } : {}),
});
const settled = { blockNumber: 100n, logIndex: 5 };

describe("the search for a payment address's payer (depositorOf)", () => {
  it("reads the address's transfers from the deployment's first block to the settlement, once when the node takes it whole", async () => {
    const { chain, reads } = node([t(buyer, 10n, 50n)]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: buyer });
    assert.deepEqual(reads, [[DEPLOY_BLOCK, 100n]]);
  });

  it("counts only what came before the settlement's Paid, into this address, from anyone but the address itself", async () => {
    const { chain } = node([
      t(stranger, 10n, 100n, 6), // after Paid, in its block
      t(stranger, 10n, 101n), // a later block
      t(stranger, 10n, 90n, 0, "0x00000000000000000000000000000000000000d1"), // into another address
      t(deposit, 10n, 95n), // the address's own
      t(buyer, 10n, 100n, 4), // just before Paid
    ]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: buyer });
  });

  it("counts only the newest transfers that make up what the settlement moved: an earlier emptying's senders are not the payer", async () => {
    const { chain } = node([t(stranger, 10n, 40n), t(buyer, 4n, 60n), t(buyer, 6n, 70n)]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: buyer });
    const sameBlock = node([t(stranger, 10n, 60n, 1), t(buyer, 10n, 60n, 2)]);
    assert.deepEqual(await depositorOf(sameBlock.chain, deposit, settled, 10n), { payer: buyer }, "the later log of one block is the newer");
    const otherOrder = node([t(buyer, 10n, 60n, 1), t(stranger, 10n, 60n, 2)]);
    assert.deepEqual(await depositorOf(otherOrder.chain, deposit, settled, 10n), { payer: stranger });
  });

  it("takes what moved from PaidInExcess just before Paid: an overpayment's sender is the payer only if they sent all of it", async () => {
    const excess = [{ moved: 25n, blockNumber: 100n, logIndex: 4 }];
    const { chain } = node([t(stranger, 10n, 40n), t(buyer, 25n, 60n)], { excess });
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: buyer });
    const split = node([t(stranger, 15n, 50n), t(buyer, 10n, 60n)], { excess });
    assert.deepEqual(await depositorOf(split.chain, deposit, settled, 10n), { payer: stranger }, "the stranger's 15 reached 10 first");
  });

  it("ignores a PaidInExcess that is not the one just before this Paid", async () => {
    for (const excess of [
      { moved: 25n, blockNumber: 100n, logIndex: 3 },
      { moved: 25n, blockNumber: 100n, logIndex: 4, address: "0x00000000000000000000000000000000000000d1" as Address },
    ]) {
      const { chain } = node([t(stranger, 15n, 50n), t(buyer, 10n, 60n)], { excess: [excess] });
      assert.deepEqual(
        await depositorOf(chain, deposit, settled, 10n),
        { payer: buyer },
        JSON.stringify(excess, (_, v) => (typeof v === "bigint" ? `${v}` : v)),
      );
    }
  });

  it("answers no payer, with the senders, where the newest transfers overshoot what moved", async () => {
    const { chain } = node([t(stranger, 4n, 60n), t(buyer, 8n, 70n)]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), {
      payer: null,
      senders: [
        { address: stranger, amountUnits: 4n },
        { address: buyer, amountUnits: 8n },
      ],
      reason: "the transfers into the payment address do not add up to what its settlement moved",
    });
  });

  it("answers no payer where the transfers found fall short of what moved", async () => {
    const { chain } = node([t(buyer, 6n, 60n)]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), {
      payer: null,
      senders: [{ address: buyer, amountUnits: 6n }],
      reason: "the transfers into the payment address were not all found",
    });
  });

  it("on a node that caps ranges, reads backwards from the settlement and stops once the transfers read name the payer", async () => {
    const { chain, reads } = node([t(stranger, 3n, 20n), t(buyer, 10n, 95n)], { maxSpan: 10n });
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n, { moved: 10n }), { payer: buyer });
    for (const [from, to] of reads) assert.isAtMost(Number(to - from + 1n), 10, "each read answered within the cap");
    const oldest = reads.reduce((low, [from]) => (from < low ? from : low), settled.blockNumber);
    assert.isAtLeast(Number(oldest), 85, `read down to the buyer's block, not on to the stranger's: ${JSON.stringify(reads.map(String))}`);
  });

  it("on a node that caps ranges, stops before what moved is all found once no unread sender could be the payer", async () => {
    // Moved 15: the buyer's 10 and an older 5. The 5 unread units cannot have reached 10 first.
    const { chain, reads } = node([t(stranger, 5n, 20n), t(buyer, 10n, 95n)], { maxSpan: 10n });
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n, { moved: 15n }), { payer: buyer });
    const oldest = reads.reduce((low, [from]) => (from < low ? from : low), settled.blockNumber);
    assert.isAtLeast(Number(oldest), 85, `the stranger's block never read: ${JSON.stringify(reads.map(String))}`);
  });

  it("on a node that caps ranges, reads on until the transfers add up to what moved", async () => {
    const { chain, reads } = node([t(buyer, 4n, 45n), t(buyer, 6n, 95n)], { maxSpan: 10n });
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n, { moved: 10n }), { payer: buyer });
    assert.isAtMost(Number(reads.at(-1)![0]), 45, "read down to the first transfer");
    assert.isAbove(Number(reads.at(-1)![0]), 35, "and not much past it");
  });

  it("gives up after its read limit, naming no payer", async () => {
    const { chain, reads, refused } = node([t(buyer, 10n, 15n)], { maxSpan: 10n });
    const answer = await depositorOf(chain, deposit, settled, 10n, { moved: 10n, maxReads: 7 });
    assert.isNull(answer.payer);
    assert.equal(reads.length + refused.length, 7);
  });

  it("reads from the settlement's block alone when the deployment's first block is later", async () => {
    const { chain, reads } = node([t(buyer, 10n, 5n, 0)]);
    const early = { blockNumber: 5n, logIndex: 3 };
    assert.deepEqual(await depositorOf(chain, deposit, early, 10n), { payer: buyer });
    assert.deepEqual(reads, [[5n, 5n]]);
  });

  it("a node answering transfers it was not asked for (a later block, the Paid log's own place) names no payer from them", async () => {
    for (const forged of [t(stranger, 10n, 101n, 0), t(stranger, 10n, 100n, settled.logIndex)]) {
      const { chain } = node([t(buyer, 10n, 60n), forged], { lies: true });
      assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: buyer }, `${forged.blockNumber}:${forged.logIndex}`);
    }
  });

  it("an overpaid address read over two ranges: the first sender to reach the amount, in chain order, is the payer", async () => {
    // Moved 20 (PaidInExcess): A's 10 then B's 10, in ranges read newest first.
    const excess = [{ moved: 20n, blockNumber: 100n, logIndex: 4 }];
    const { chain, reads } = node([t(stranger, 10n, 45n), t(buyer, 10n, 95n)], { excess, maxSpan: 10n });
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: stranger });
    assert.isAbove(reads.length, 1, "read over more than one range");
  });

  it("stops reading once the transfers add up to what moved, even where they name no payer", async () => {
    const { chain, reads } = node([t(stranger, 1n, 20n), t(stranger, 5n, 92n), t(buyer, 5n, 95n)], { maxSpan: 10n });
    const answer = await depositorOf(chain, deposit, settled, 10n, { moved: 10n });
    assert.isNull(answer.payer);
    const oldest = reads.reduce((low, [from]) => (from < low ? from : low), settled.blockNumber);
    assert.isAtLeast(Number(oldest), 85, `the 10 moved found by block 92; the older 1 never read: ${JSON.stringify(reads.map(String))}`);
  });
});

/** The search on viem's own client over a node that answers raw logs: what viem's decoding keeps. */
describe("the search for a payment address's payer, on a node's raw logs", () => {
  const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");
  const EXCESS_TOPIC = toEventSelector("PaidInExcess(uint256,uint256)");
  const word = (a: Address) => pad(a, { size: 32 });
  const raw = (log: { address: Address; topics: Hex[]; data: Hex; blockNumber: bigint; logIndex: number }) => ({
    ...log,
    blockNumber: toHex(log.blockNumber),
    logIndex: toHex(log.logIndex),
    blockHash: pad("0x01", { size: 32 }),
    transactionHash: pad(toHex(log.logIndex + 1), { size: 32 }),
    transactionIndex: "0x0",
    removed: false,
  });
  /** A viem client whose node answers `logs` to every eth_getLogs at their address. */
  function rawNode(logs: Array<Parameters<typeof raw>[0]>) {
    const client = createPublicClient({
      transport: custom({
        async request({ method, params }: { method: string; params?: unknown }) {
          if (method !== "eth_getLogs") throw new Error(`unexpected ${method}`);
          const [filter] = params as [{ address: Address }];
          return logs.filter((l) => l.address.toLowerCase() === filter.address.toLowerCase()).map(raw);
        },
      }),
    }) as PublicClient;
    const deployment = { token: { address: TOKEN }, deployBlock: Number(DEPLOY_BLOCK) } as unknown as LiveDeployment;
    return { client, deployment };
  }
  const erc20Transfer = (from: Address, value: bigint, blockNumber: bigint, logIndex: number) => ({
    address: TOKEN,
    topics: [TRANSFER_TOPIC, word(from), word(deposit)],
    data: encodeAbiParameters([{ type: "uint256" }], [value]),
    blockNumber,
    logIndex,
  });

  it("a log at the token's address that is no ERC-20 Transfer (an ERC-721's, its third field indexed) is left out, not read as one", async () => {
    const chain = rawNode([
      erc20Transfer(buyer, 10n, 60n, 0),
      { address: TOKEN, topics: [TRANSFER_TOPIC, word(stranger), word(deposit), pad("0x0a", { size: 32 })], data: "0x", blockNumber: 70n, logIndex: 0 },
    ]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: getAddress(buyer) });
  });

  it("a PaidInExcess just before Paid whose data does not decode is left out: what moved is the amount", async () => {
    const chain = rawNode([
      erc20Transfer(stranger, 10n, 40n, 0),
      erc20Transfer(buyer, 10n, 60n, 0),
      { address: deposit, topics: [EXCESS_TOPIC], data: "0x01", blockNumber: 100n, logIndex: 4 },
    ]);
    assert.deepEqual(await depositorOf(chain, deposit, settled, 10n), { payer: getAddress(buyer) });
  });
});
