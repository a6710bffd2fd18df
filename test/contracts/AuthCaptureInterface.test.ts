import { assert } from "chai";
import { BaseError, encodeAbiParameters, toEventSelector, toFunctionSelector, type Abi, type AbiEvent, type AbiFunction, type Hex } from "viem";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { useLocalChain } from "../helpers/local-chain.js";
import { holdParties, holdTerms } from "../helpers/holds.js";

/**
 * Commerce Payments v1.1's interface as published (x402's `ESCROW_ABI_V1_1`, the auth-capture EVM
 * scheme's "Fee system", and commerce-payments' source for what v1.1 left unchanged): each selector,
 * topic and error selector written out here, never computed from our own ABI, so that a drift of the
 * stand-in or of the service's bindings from the published interface fails.
 */
const PUBLISHED_V1_1 = {
  functions: {
    capture: "0x3efa46e1",
    charge: "0xc449d17c",
    authorize: "0x41d66202",
    void: "0xfa1cad17",
    reclaim: "0xe1a2a66d",
    refund: "0xd458db5a",
    getHash: "0x063a70ff",
    getTokenStore: "0x9d3facde",
    paymentState: "0x34b778ed",
    PAYMENT_INFO_TYPEHASH: "0xe15d987a",
  },
  events: {
    PaymentCharged: "0x137b0e73e4453f43c2e1ad2552980a0e0c7e988764619974ca26d37a7159940c",
    PaymentCaptured: "0xac1e0db1957daedbc6944bcb4c8dc947ff8101d710671ac2ec26309f7f38d58e",
    PaymentAuthorized: "0x1c81fb2e3bab27f6bb09bee9a0dddf61600b7cbaf2c12683e4864e0cbdb9d284",
    PaymentVoided: "0xcadce8c3acb008e3e1c64ca7f60d22a3c87069183182b7dbb9e4d8cfb3a15842",
    PaymentReclaimed: "0x78e1d723d17e13b7f40eeab9bf6dd9148a630bafde4203ab7bb5fca983516d17",
    PaymentRefunded: "0x1bf415371b303ca6b8bbb4ce479b177cba5ad15dbe0c9a7750a588aa6bcd25b2",
    TokenStoreCreated: "0xd8699a107a4fe8ea740423e52159bafb235249dce5c2df55fa265db06964d136",
  },
  errors: { FeeAmountOutOfRange: "0x7c2dcc22" },
  paymentInfoTypehash: "0xae68ac7ce30c86ece8196b61a7c486d8f0061f575037fbd34e7fe4e2820c6591",
} as const;

/** v1.0's capture and charge (`uint16 feeBps`), which v1.1 does not have. */
const V1_0_ONLY = { capture: "0x644cd79a", charge: "0x9e65819f" } as const;

const PAYMENT_INFO = {
  type: "tuple",
  components: [
    { name: "operator", type: "address" },
    { name: "payer", type: "address" },
    { name: "receiver", type: "address" },
    { name: "token", type: "address" },
    { name: "maxAmount", type: "uint120" },
    { name: "preApprovalExpiry", type: "uint48" },
    { name: "authorizationExpiry", type: "uint48" },
    { name: "refundExpiry", type: "uint48" },
    { name: "minFeeBps", type: "uint16" },
    { name: "maxFeeBps", type: "uint16" },
    { name: "feeReceiver", type: "address" },
    { name: "salt", type: "uint256" },
  ],
} as const;

describe("AuthCaptureEscrow's interface is Commerce Payments v1.1's, as published", () => {
  const local = useLocalChain();
  /** The service's binding, read as any ABI: what it declares is under test, not trusted. */
  const abi: Abi = authCaptureEscrowAbi;

  const fn = (name: string) => abi.filter((i): i is AbiFunction => i.type === "function" && i.name === name);

  it("every function the service calls has the published selector, and v1.0's capture and charge are gone", () => {
    for (const [name, selector] of Object.entries(PUBLISHED_V1_1.functions)) {
      assert.deepEqual(
        fn(name).map((f) => toFunctionSelector(f)),
        [selector],
        name,
      );
    }
    const all = abi.filter((i) => i.type === "function").map((f) => toFunctionSelector(f as AbiFunction));
    for (const selector of Object.values(V1_0_ONLY)) assert.notInclude(all, selector);
  });

  it("every event has the published topic, and FeeAmountOutOfRange the published selector", () => {
    for (const [name, topic] of Object.entries(PUBLISHED_V1_1.events)) {
      const events = abi.filter((i): i is AbiEvent => i.type === "event" && i.name === name);
      assert.deepEqual(
        events.map((e) => toEventSelector(e)),
        [topic],
        name,
      );
    }
    // An error's selector is formed as a function's is, from its name and argument types.
    const errors = abi
      .filter((i) => i.type === "error")
      .map((e) => toFunctionSelector({ ...e, type: "function", outputs: [], stateMutability: "view" } as unknown as AbiFunction));
    assert.include(errors, PUBLISHED_V1_1.errors.FeeAmountOutOfRange);
  });

  it("the stand-in's code answers the published selectors: capture and charge with a fee amount off the bounds revert FeeAmountOutOfRange by its published selector", async () => {
    const chain = local.chain;
    const p = holdParties(chain);
    const info = await holdTerms(chain);
    assert.equal(
      await chain.publicClient.readContract({ address: p.escrow, abi: authCaptureEscrowAbi, functionName: "PAYMENT_INFO_TYPEHASH" }),
      PUBLISHED_V1_1.paymentInfoTypehash,
    );
    // 1.00 at 2% (min = max): only 20,000 units pass; 1 unit is off the bounds.
    const capture = (PUBLISHED_V1_1.functions.capture +
      encodeAbiParameters([PAYMENT_INFO, { type: "uint256" }, { type: "uint256" }, { type: "address" }], [info, 1_000_000n, 1n, p.feeReceiver]).slice(
        2,
      )) as Hex;
    const charge = (PUBLISHED_V1_1.functions.charge +
      encodeAbiParameters(
        [PAYMENT_INFO, { type: "uint256" }, { type: "address" }, { type: "bytes" }, { type: "uint256" }, { type: "address" }],
        [info, 1_000_000n, p.collector, "0x", 1n, p.feeReceiver],
      ).slice(2)) as Hex;
    const bounds = encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }], [1n, 20_000n, 20_000n]).slice(2);
    for (const data of [capture, charge]) {
      assert.equal(await revertData(data), `${PUBLISHED_V1_1.errors.FeeAmountOutOfRange}${bounds}`);
    }

    async function revertData(data: Hex): Promise<Hex | undefined> {
      try {
        await chain.publicClient.call({ account: p.operator.address, to: p.escrow, data });
      } catch (error) {
        const raw = error instanceof BaseError ? error.walk((e) => typeof (e as { data?: unknown }).data === "string") : null;
        return (raw as { data?: Hex } | null)?.data;
      }
      assert.fail("the call did not revert");
    }
  });
});
