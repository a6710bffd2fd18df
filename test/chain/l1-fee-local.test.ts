import { assert } from "chai";
import fc from "fast-check";
import { encodeFunctionData, toHex, type Address, type Hex } from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { fjordL1Fee, quoteL1Fee, quoteL1FeeAt, readL1FeePrices } from "../../src/chain/l1-fee.js";
import { L1_FEE_LEVELS } from "../../dev/localchain/l1-fees.js";
import { useLocalChain } from "../helpers/local-chain.js";

// The L1 data fee computed in the service must be the GasPriceOracle's answer to the wei: a renewal's
// reimbursement is priced from it. The local chain's oracle (EDR's OP mode, Fjord) is the reference.
const anyData = fc.oneof(
  fc.uint8Array({ maxLength: 600 }),
  // Repetitive data, as batches are (the same terms again and again): long matches, long literal runs.
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 400 }), fc.uint8Array({ maxLength: 40 })).map(([unit, times, tail]) => {
    const out = new Uint8Array(unit.length * times + tail.length);
    for (let i = 0; i < times; i++) out.set(unit, i * unit.length);
    out.set(tail, unit.length * times);
    return out;
  }),
);

describe("L1 data fee computed locally (FastLZ, Fjord) against the chain's GasPriceOracle", function () {
  this.timeout(300_000);
  const local = useLocalChain({ port: 0, fork: null });
  const client = () => local.chain.publicClient;
  const oracle = "0x420000000000000000000000000000000000000F" as Address;
  const getL1Fee = (data: Uint8Array) =>
    client().readContract({
      address: oracle,
      abi: [{ type: "function", name: "getL1Fee", inputs: [{ type: "bytes" }], outputs: [{ type: "uint256" }], stateMutability: "view" }],
      functionName: "getL1Fee",
      args: [toHex(data)],
    });

  it("prices any data as the oracle's getL1Fee does, at every L1 market", async () => {
    for (const level of ["low", "normal", "spiking"] as const) {
      await local.chain.setL1Fees(L1_FEE_LEVELS[level]);
      const prices = await readL1FeePrices(client());
      assert.isNotNull(prices, "the local chain's oracle is Fjord");
      await fc.assert(
        fc.asyncProperty(anyData, async (data) => {
          assert.equal(fjordL1Fee(prices!, data), await getL1Fee(data));
        }),
        { numRuns: level === "normal" ? 150 : 40, seed: 39 },
      );
    }
  });

  it("quotes a chargeBatch of renewals (up to 60) as viem's estimateL1Fee does through the oracle", async () => {
    const prices = (await readL1FeePrices(client()))!;
    const to = local.chain.deployment.contracts.RecurringCharges.address;
    const terms = (i: number) => ({
      payer: "0x00000000000000000000000000000000000000a1" as Address,
      recipient: "0x00000000000000000000000000000000000000b1" as Address,
      token: local.chain.deployment.token.address,
      amount: 1_000_000n,
      period: 2_592_000n,
      start: 1_764_000_000n,
      end: 0n,
      salt: `0x${(i * 7919 + 1).toString(16).padStart(64, "0")}` as Hex,
      feeBps: 50,
      networkFee: 100_000n,
      maxGasReimbursement: 1_000_000n,
    });
    for (const n of [1, 2, 7, 20, 36, 60]) {
      const data = encodeFunctionData({
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [Array.from({ length: n }, (_, i) => ({ terms: terms(i), signature: "0x" as Hex, gasReimbursement: 1_234n + BigInt(i), expectedPeriod: 1n }))],
      });
      assert.equal(quoteL1FeeAt(prices, local.chain.chain.id, { to, data }), await quoteL1Fee(client(), { to, data }), `a batch of ${n}`);
    }
  });
});
