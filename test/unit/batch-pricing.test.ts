import { assert } from "chai";
import { decodeFunctionData, keccak256, toHex, type Address, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { ChargeBatcher, type ReadyCharge } from "../../src/recurring/charge-batcher.js";
import { termsWords } from "../../src/recurring/charge-encoding.js";
import type { ChargeAttempts } from "../../src/store/charge-attempts.js";
import type { Relayer } from "../../src/recurring/relayer.js";

const CONTRACT = "0x00000000000000000000000000000000000000c0" as Address;
const PAYER = "0x00000000000000000000000000000000000000a1" as Address;
const MERCHANT = "0x00000000000000000000000000000000000000b1" as Address;
const GWEI = 1_000_000_000n;
const PRICING = { unitsPerEth: 3_000_000_000n, tipWei: 0n };

function ready(i: number, over: Partial<ReadyCharge> = {}): ReadyCharge {
  const terms = {
    payer: PAYER,
    recipient: MERCHANT,
    token: "0x00000000000000000000000000000000000000d1" as Address,
    amount: 1_000_000n,
    period: 3600n,
    start: 1n,
    end: 0n,
    salt: keccak256(toHex(i)),
    feeBps: 100,
    networkFee: 100_000n,
    maxGasReimbursement: 5_000_000n,
  };
  return {
    terms,
    words: termsWords(terms),
    signature: `0x${"11".repeat(65)}` as Hex,
    id: keccak256(toHex(`sub${i}`)),
    period: 1n,
    reimbursement: 699_000n,
    gas: 132_949n,
    renewal: true,
    newSlot: false,
    signatureRoom: 0n,
    expectedPerGas: 2n * GWEI,
    maxFeePerGas: 4n * GWEI,
    maxPriorityFeePerGas: 0n,
    l1Fee: 10n ** 12n,
    balance: 10n ** 18n,
    pending: 0,
    blockGasLimit: 25_000_000n,
    ...over,
  };
}

/**
 * The batcher decides each renewal's reimbursement when it forms the batch (it is signed into the
 * item's calldata): what the signed transaction carries, with a store and a relayer that only record.
 */
function batcher(quoteL1Fee: (data: Hex) => Promise<bigint>, lose: (i: number) => boolean = () => false, window = { unsent: 0 }, maxItems = 50) {
  const signed: Hex[] = [];
  const quoted: Hex[] = [];
  const attempts = {
    recordWithNonce: async (items: unknown[], _a: unknown, _pending: number, sign: (won: boolean[], nonce: number) => Promise<{ hash: Hex; raw: Hex }>) => {
      const won = items.map((_, i) => !lose(i));
      const tx = await sign(won, 0);
      return { ...tx, won, nonce: 0 };
    },
    find: async () => ({ txHash: `0x${"ee".repeat(32)}` }),
  } as unknown as ChargeAttempts;
  const relayer = {
    get unsent() {
      return window.unsent;
    },
    address: "0x00000000000000000000000000000000000000f1",
    ensureAvailable: () => {},
    sign: async (call: { data: Hex }) => {
      signed.push(call.data);
      return { hash: `0x${"ab".repeat(32)}` as Hex, raw: "0x" as Hex };
    },
    send: async () => {},
  } as unknown as Relayer;
  const b = new ChargeBatcher({
    contract: CONTRACT,
    attempts,
    relayer,
    now: () => 0,
    maxItems,
    waitMs: 5,
    perBlock: 16,
    pricing: PRICING,
    quoteL1Fee: async (data) => {
      quoted.push(data);
      return quoteL1Fee(data);
    },
  });
  return { b, signed, quoted };
}

/** The reimbursements a signed call carries, per item. */
function reimbursementsIn(data: Hex): bigint[] {
  const call = decodeFunctionData({ abi: recurringChargesAbi, data });
  if (call.functionName === "charge") return [call.args[2] as bigint];
  return (call.args[0] as readonly { gasReimbursement: bigint }[]).map((item) => item.gasReimbursement);
}

describe("ChargeBatcher's pricing of a batch's renewals", () => {
  it("a batch of renewals carries each one's share (below its lone price), priced with the L1 fee quoted on the batch's own calldata", async () => {
    const { b, signed, quoted } = batcher(async () => 20n * 10n ** 11n);
    await Promise.all(Array.from({ length: 20 }, (_, i) => b.submit(ready(i))));
    assert.lengthOf(signed, 1);
    assert.lengthOf(quoted, 1, "one L1 quote for the batch");
    assert.equal(decodeFunctionData({ abi: recurringChargesAbi, data: quoted[0]! }).functionName, "chargeBatch");
    const paid = reimbursementsIn(signed[0]!);
    assert.lengthOf(paid, 20);
    for (const r of paid) {
      assert.isAbove(Number(r), 0);
      assert.isBelow(Number(r), 699_000 / 2, "well under the lone price");
    }
    assert.equal(new Set(paid).size, 1, "the same for every renewal of one payer and one merchant");
  });

  it("when the batch's L1 quote fails, each renewal's L1 part is its own lone quote: more than its share, still under the lone price", async () => {
    const shared = batcher(async () => 20n * 10n ** 11n);
    await Promise.all(Array.from({ length: 20 }, (_, i) => shared.b.submit(ready(i))));
    const failing = batcher(async () => {
      throw new Error("node down");
    });
    await Promise.all(Array.from({ length: 20 }, (_, i) => failing.b.submit(ready(i))));
    const [withQuote] = reimbursementsIn(shared.signed[0]!);
    const [withoutQuote] = reimbursementsIn(failing.signed[0]!);
    assert.isAbove(Number(withoutQuote), Number(withQuote));
    assert.isBelow(Number(withoutQuote), 699_000);
  });

  it("a charge alone keeps its own price; first charges in a batch keep theirs; a batch without a renewal asks no L1 quote", async () => {
    const alone = batcher(async () => 10n ** 12n);
    await alone.b.submit(ready(0));
    assert.deepEqual(reimbursementsIn(alone.signed[0]!), [699_000n]);
    assert.lengthOf(alone.quoted, 0);

    const firsts = batcher(async () => 10n ** 12n);
    await Promise.all([0, 1, 2].map((i) => firsts.b.submit(ready(i, { renewal: false, reimbursement: 800_000n + BigInt(i) }))));
    assert.deepEqual(reimbursementsIn(firsts.signed[0]!), [800_000n, 800_001n, 800_002n]);
    assert.lengthOf(firsts.quoted, 0);

    const mixed = batcher(async () => 3n * 10n ** 12n);
    await Promise.all([ready(0, { renewal: false, reimbursement: 800_000n }), ready(1), ready(2)].map((c) => mixed.b.submit(c)));
    const [first, ...renewals] = reimbursementsIn(mixed.signed[0]!);
    assert.equal(first, 800_000n, "the first charge's own price");
    for (const r of renewals) assert.isBelow(Number(r), 699_000);
  });

  it("never above the lone price: where the network fee covers a renewal alone, a batched one pays nothing either", async () => {
    const { b, signed } = batcher(async () => 10n ** 12n);
    await Promise.all(Array.from({ length: 5 }, (_, i) => b.submit(ready(i, { reimbursement: 0n, expectedPerGas: GWEI / 10n }))));
    assert.deepEqual(reimbursementsIn(signed[0]!), [0n, 0n, 0n, 0n, 0n]);
    const capped = batcher(async () => 10n ** 12n);
    await Promise.all(Array.from({ length: 5 }, (_, i) => capped.b.submit(ready(i, { reimbursement: 7n }))));
    assert.deepEqual(reimbursementsIn(capped.signed[0]!), [7n, 7n, 7n, 7n, 7n]);
  });

  it("a period another instance won is left out, and the rest are priced as the batch really sent", async () => {
    const { b, signed } = batcher(
      async () => 10n ** 12n,
      (i) => i === 0,
    );
    await Promise.allSettled(Array.from({ length: 3 }, (_, i) => b.submit(ready(i))));
    assert.lengthOf(reimbursementsIn(signed[0]!), 2);
  });
});

describe("ChargeBatcher and the relayer's pool window", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("while a transaction of the relayer's still waits for the node, charges keep gathering (a full batch still leaves); with room they leave as one", async () => {
    const window = { unsent: 1 };
    const { b, signed } = batcher(
      async () => 10n ** 12n,
      () => false,
      window,
      10,
    );
    const full = Promise.all(Array.from({ length: 10 }, (_, i) => b.submit(ready(i))));
    await full;
    assert.lengthOf(signed, 1, "a full batch leaves at once");
    const held = Promise.all(Array.from({ length: 7 }, (_, i) => b.submit(ready(100 + i))));
    await sleep(200);
    assert.lengthOf(signed, 1, "held while the window is full");
    const more = Promise.all(Array.from({ length: 2 }, (_, i) => b.submit(ready(200 + i))));
    window.unsent = 0;
    await Promise.all([held, more]);
    assert.lengthOf(signed, 2, "one batch once there is room");
    assert.lengthOf(reimbursementsIn(signed[1]!), 9);
  });
});
