import { assert } from "chai";
import { encodeFunctionData, getAddress, hashTypedData, TransactionReceiptNotFoundError, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DomainError } from "../../src/errors.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { gasCeiling, HoldRules, OPERATOR_BASE_GAS, opens, type HoldRulesDeps } from "../../src/holds/hold-rules.js";
import { checkSignedFee, overCeiling, senderFor } from "../../src/holds/operator-checks.js";
import type { PaymentInfo } from "../../src/holds/payment-info.js";
import type { BudgetParties } from "../../src/limits/relayer-budget.js";
import type { SettlementSender } from "../../src/payments/relayer-call.js";
import type { HoldOperation, HoldTransaction } from "../../src/store/hold-transactions.js";

const a = (digit: string): Address => getAddress(`0x${digit.repeat(40)}`);
const CAP = 100_000n;
const UNITS_PER_ETH = 3_000_000_000n; // 3,000 USDC per ETH
const TERMS = `0x${"7".repeat(64)}` as Hex;
const PAYMENT = `0x${"8".repeat(64)}` as Hex;
const info: PaymentInfo = {
  operator: a("5"),
  payer: a("1"),
  receiver: a("2"),
  token: a("6"),
  maxAmount: 50_000_000n,
  preApprovalExpiry: 1_796_000_000,
  authorizationExpiry: 1_796_003_600,
  refundExpiry: 1_796_086_400,
  minFeeBps: 50,
  maxFeeBps: 50,
  feeReceiver: a("7"),
  salt: 9n,
};

/** The relayer's signed call for `payer`'s terms, as the store keeps it. */
async function recordedCall(operation: HoldOperation, payer: Address, hash: Hex): Promise<HoldTransaction> {
  const relayer = privateKeyToAccount(`0x${"4".repeat(64)}`);
  const terms = { ...info, payer };
  const args = {
    authorize: [terms, terms.maxAmount, a("9"), "0x01"],
    charge: [terms, terms.maxAmount, a("9"), "0x01", 0n, terms.feeReceiver],
    capture: [terms, 1n, 0n, terms.feeReceiver],
    void: [terms],
  }[operation];
  const data = encodeFunctionData({ abi: authCaptureEscrowAbi, functionName: operation, args } as never);
  const raw = await relayer.signTransaction({ chainId: 84532, to: a("8"), data, gas: 300_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, nonce: 0 });
  return {
    hash,
    relayer: relayer.address,
    nonce: 0,
    raw,
    sentAt: 0,
    paymentHash: operation === "authorize" || operation === "charge" ? TERMS : PAYMENT,
    operation,
  };
}

/** A chain of our own: receipts by hash (absent: not mined), and one contract payer whose signature check spends `checkGas`. */
function fakeChain(receipts: Record<Hex, "success" | "reverted"> = {}, contractPayer?: { address: Address; checkGas: bigint; valid: boolean }) {
  const reads: Array<{ args: readonly unknown[]; gas: bigint }> = [];
  const client = {
    getTransactionReceipt: async ({ hash }: { hash: Hex }) => {
      const status = receipts[hash];
      if (!status) throw new TransactionReceiptNotFoundError({ hash });
      return { transactionHash: hash, status };
    },
    getCode: async ({ address }: { address: Address }) => (contractPayer && address === contractPayer.address ? "0x6001" : undefined),
    readContract: async (call: { functionName: string; args: readonly unknown[]; gas: bigint }) => {
      reads.push({ args: call.args, gas: call.gas });
      if (!contractPayer || call.functionName !== "isValidSignature") throw new Error("execution reverted");
      if (call.gas < contractPayer.checkGas) throw new Error("out of gas");
      if (!contractPayer.valid) throw new Error("execution reverted: invalid signature");
      return "0x1626ba7e";
    },
  };
  return { client: client as unknown as PublicClient, reads };
}

/** The budget's spending and limits, counted as the relayer's budget does, in memory. */
function fakeBudget(spent = false) {
  const checked: BudgetParties[] = [];
  const spends: Array<{ parties: BudgetParties; wei: bigint }> = [];
  return {
    checked,
    spends,
    check: async (parties: BudgetParties) => {
      checked.push(parties);
      if (spent) throw new DomainError("RELAYER_BUDGET_EXCEEDED", { detail: "spent", retryAfter: 1200 });
    },
    spend: async (parties: BudgetParties, wei: bigint) => {
      spends.push({ parties, wei });
    },
  };
}

/** A per-key limit of `limit` hits, its window never turning. */
function fakeLimiter(limit: number) {
  const hits = new Map<string, number>();
  return {
    limit,
    hits,
    hit: (key: string) => {
      const count = (hits.get(key) ?? 0) + 1;
      hits.set(key, count);
      return count <= limit ? { allowed: true as const } : { allowed: false as const, retryAfterSeconds: 42 };
    },
  };
}

function rulesWith(calls: HoldTransaction[], overrides: Partial<HoldRulesDeps> = {}) {
  const asked: Hex[][] = [];
  const store = {
    calls: async (keys: Hex[]) => {
      asked.push(keys);
      return calls.filter((t) => keys.includes(t.paymentHash));
    },
  };
  const deps: HoldRulesDeps = { client: fakeChain().client, store, unitsPerEth: UNITS_PER_ETH, signatureGasCap: CAP, ...overrides };
  return { rules: new HoldRules(deps), asked };
}

async function refusal(run: () => Promise<unknown>): Promise<DomainError> {
  try {
    await run();
  } catch (error) {
    assert.instanceOf(error, DomainError);
    return error as DomainError;
  }
  assert.fail("expected a refusal");
}

const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

describe("the hold operator's checks before it sends (hold-rules.ts, operator-checks.ts)", () => {
  describe("a caller's authorizations a minute (RECOVER_LIMIT_PER_MINUTE, whichever door)", () => {
    it("admits a caller's authorizations up to the limit, then refuses RATE_LIMITED with the limiter's retry_after; another caller is still admitted", async () => {
      const callerLimit = fakeLimiter(2);
      const { rules } = rulesWith([], { callerLimit });
      await rules.admitOpening(info, "authorize", TERMS, { caller: "203.0.113.5" });
      await rules.admitOpening(info, "authorize", TERMS, { caller: "203.0.113.5" });
      const refused = await refusal(() => rules.admitOpening(info, "authorize", TERMS, { caller: "203.0.113.5" }));
      assert.equal(refused.code, "RATE_LIMITED");
      assert.equal(refused.retryAfter, 42);
      await rules.admitOpening(info, "authorize", TERMS, { caller: "203.0.113.6" });
    });

    it("never limits a charge (it pays its fee) nor the service's own calls (no caller)", async () => {
      const callerLimit = fakeLimiter(0);
      const { rules } = rulesWith([], { callerLimit });
      await rules.admitOpening(info, "charge", TERMS, { caller: "203.0.113.5" });
      await rules.admitOpening(info, "authorize", TERMS, {});
      assert.equal(callerLimit.hits.size, 0);
    });
  });

  describe("one payer per hold: another payer's authorization of the same terms", () => {
    const other = a("3");

    it("refuses HOLD_ALREADY_AUTHORIZED when another payer's authorization or charge of these terms is mined, or still unmined", async () => {
      for (const [operation, receipts] of [
        ["authorize", { [hash(1)]: "success" }],
        ["charge", { [hash(1)]: "success" }],
        ["authorize", {}],
      ] as const) {
        const { rules, asked } = rulesWith([await recordedCall(operation, other, hash(1))], { client: fakeChain(receipts).client });
        for (const opening of ["authorize", "charge"] as const) {
          const refused = await refusal(() => rules.admitOpening(info, opening, TERMS, {}));
          assert.equal(refused.code, "HOLD_ALREADY_AUTHORIZED", `${operation} ${JSON.stringify(receipts)}`);
          // x402's payer reads it in the refusal's message: not its own replay, another payer's.
          assert.include(refused.detail, "another payer");
        }
        assert.deepEqual(asked[0], [TERMS], "the calls recorded under the terms' payer-agnostic hash");
      }
    });

    it("admits when the other payer's authorization reverted, when the recorded one is this payer's (in any case), and when only closing calls are recorded", async () => {
      const calls = [
        await recordedCall("authorize", other, hash(1)),
        await recordedCall("authorize", info.payer.toLowerCase() as Address, hash(2)),
        await recordedCall("capture", other, hash(3)),
        await recordedCall("void", other, hash(4)),
      ].map((t) => ({ ...t, paymentHash: TERMS }));
      const { rules } = rulesWith(calls, {
        client: fakeChain({ [hash(1)]: "reverted", [hash(2)]: "success", [hash(3)]: "success", [hash(4)]: "success" }).client,
      });
      await rules.admitOpening(info, "authorize", TERMS, {});
      await rules.admitOpening(info, "charge", TERMS, {});
    });

    it("admits when what is recorded is no escrow call it can read (its payer unknown)", async () => {
      const garbled = { ...(await recordedCall("authorize", other, hash(1))), raw: "0x02c0" as Hex };
      const { rules } = rulesWith([garbled], { client: fakeChain({ [hash(1)]: "success" }).client });
      await rules.admitOpening(info, "authorize", TERMS, {});
    });
  });

  describe("the relayer's budget for work that earns no fee", () => {
    it("weighs an authorization before it is sent, counting its payer, recipient and caller; a spent budget refuses RELAYER_BUDGET_EXCEEDED", async () => {
      const budget = fakeBudget();
      await rulesWith([], { budget }).rules.admitOpening(info, "authorize", TERMS, { caller: "203.0.113.5" });
      await rulesWith([], { budget }).rules.admitOpening(info, "authorize", TERMS, {});
      assert.deepEqual(budget.checked, [
        { payer: info.payer, recipient: info.receiver, caller: "203.0.113.5" },
        { payer: info.payer, recipient: info.receiver },
      ]);
      const refused = await refusal(() => rulesWith([], { budget: fakeBudget(true) }).rules.admitOpening(info, "authorize", TERMS, { caller: "203.0.113.5" }));
      assert.equal(refused.code, "RELAYER_BUDGET_EXCEEDED");
      assert.equal(refused.retryAfter, 1200);
    });

    it("weighs a charge only once its gas is known, and only one whose fee is below its gas at GAS_PRICE_USDC_PER_ETH", async () => {
      const budget = fakeBudget(true);
      const { rules } = rulesWith([], { budget });
      await rules.admitOpening(info, "charge", TERMS, {});
      const cost = 250_000n * 1_000_000_000n; // 250,000 gas at 1 gwei: 0.75 USDC (750,000 micro-units) at 3,000 per ETH
      await rules.admitCharge(info, 750_000n, cost, {});
      assert.equal(budget.checked.length, 0, "a charge whose fee covers its gas is never weighed");
      const refused = await refusal(() => rules.admitCharge(info, 749_999n, cost, { caller: "203.0.113.5" }));
      assert.equal(refused.code, "RELAYER_BUDGET_EXCEEDED");
      assert.deepEqual(budget.checked, [{ payer: info.payer, recipient: info.receiver, caller: "203.0.113.5" }]);
      await rulesWith([]).rules.admitCharge(info, 0n, cost, {});
    });

    it("counts a sent authorization, an unearning charge and a void with no capture recorded (an earlier void is none); never a capture, an earning charge, or a void after a capture", async () => {
      const budget = fakeBudget();
      const capture = await recordedCall("capture", info.payer, hash(3));
      const cost = 250_000n * 1_000_000_000n;
      const request = { caller: "203.0.113.5" };
      const parties = { payer: info.payer, recipient: info.receiver, caller: "203.0.113.5" };
      const { rules: none, asked } = rulesWith([], { budget });
      await none.sent(info, "authorize", PAYMENT, cost, 0n, request);
      await none.sent(info, "charge", PAYMENT, cost, 749_999n, request);
      await none.sent(info, "void", PAYMENT, cost, 0n, request);
      assert.deepEqual(asked, [[PAYMENT]], "a void's captures read under the payment's hash");
      await none.sent(info, "capture", PAYMENT, cost, 0n, request);
      await none.sent(info, "charge", PAYMENT, cost, 750_000n, request);
      await rulesWith([capture], { budget }).rules.sent(info, "void", PAYMENT, cost, 0n, request);
      assert.lengthOf(budget.spends, 3, "a void after a capture is not counted");
      await rulesWith([await recordedCall("void", info.payer, hash(4))], { budget }).rules.sent(info, "void", PAYMENT, cost, 0n, request);
      assert.deepEqual(budget.spends, [
        { parties, wei: cost },
        { parties, wei: cost },
        { parties, wei: cost },
        { parties, wei: cost },
      ]);
      await rulesWith([]).rules.sent(info, "authorize", PAYMENT, cost, 0n, request);
    });
  });

  describe("gas ceilings and a contract payer's signature check (SIGNATURE_GAS_CAP)", () => {
    it("gives an authorize or charge its steady-state gas plus SIGNATURE_GAS_CAP, a capture or void its own alone", () => {
      assert.equal(gasCeiling("authorize", CAP), OPERATOR_BASE_GAS.authorize + CAP);
      assert.equal(gasCeiling("charge", CAP), OPERATOR_BASE_GAS.charge + CAP);
      assert.equal(gasCeiling("capture", CAP), OPERATOR_BASE_GAS.capture);
      assert.equal(gasCeiling("void", CAP), OPERATOR_BASE_GAS.void);
      assert.deepEqual(
        (["authorize", "charge", "capture", "void"] as const).map((o) => opens(o)),
        [true, true, false, false],
      );
    });

    const payer = a("c");
    const typed = {
      domain: { name: "USD Coin", version: "2", chainId: 84532, verifyingContract: a("6") },
      types: { Note: [{ name: "value", type: "uint256" }] },
      primaryType: "Note",
      message: { value: 1n },
    } as const;

    it("says a contract payer's check is too expensive when it runs out of gas under the cap, over the typed data's digest", async () => {
      const { client, reads } = fakeChain({}, { address: payer, checkGas: CAP + 1n, valid: true });
      assert.isTrue(await rulesWith([], { client }).rules.signatureTooExpensive(payer, typed as never, "0xabcd"));
      assert.deepEqual(reads, [{ args: [hashTypedData(typed), "0xabcd"], gas: CAP }]);
    });

    it("says not when the check fits the cap (valid or refusing the signature), or the payer has no code", async () => {
      for (const valid of [true, false]) {
        const { client } = fakeChain({}, { address: payer, checkGas: CAP, valid });
        assert.isFalse(await rulesWith([], { client }).rules.signatureTooExpensive(payer, typed as never, "0xabcd"));
      }
      const { client, reads } = fakeChain({}, { address: payer, checkGas: CAP + 1n, valid: true });
      assert.isFalse(await rulesWith([], { client }).rules.signatureTooExpensive(a("d"), typed as never, "0xabcd"));
      assert.equal(reads.length, 0);
      const eoa = fakeChain({}, { address: payer, checkGas: CAP + 1n, valid: true });
      const client0x = { ...eoa.client, getCode: async () => "0x" } as unknown as PublicClient;
      assert.isFalse(await rulesWith([], { client: client0x }).rules.signatureTooExpensive(payer, typed as never, "0xabcd"));
      assert.equal(eoa.reads.length, 0, "an account with no code is never asked to check a signature");
    });
  });

  describe("which of the relayer's keys sends a hold's call", () => {
    const key = (address: Address | null) => ({ address }) as SettlementSender;
    const relayer = key(a("5"));
    const retired = [key(null), key(a("e"))];

    it("sends any call of a hold naming this relayer (its address in any case) with its key", () => {
      for (const operation of ["authorize", "charge", "capture", "void"] as const)
        assert.strictEqual(senderFor(a("5").toLowerCase() as Address, operation, relayer, retired), relayer);
    });

    it("sends a capture or void of a hold naming a retired key with that key, and refuses it a new authorization or charge", () => {
      for (const operation of ["capture", "void"] as const) assert.strictEqual(senderFor(a("e"), operation, relayer, retired), retired[1]);
      for (const operation of ["authorize", "charge"] as const) assert.isNull(senderFor(a("e"), operation, relayer, retired));
    });

    it("has no key for a hold naming another operator, nor without a relayer key", () => {
      assert.isNull(senderFor(a("f"), "capture", relayer, retired));
      assert.isNull(senderFor(a("5"), "capture", key(null)));
    });
  });

  describe("the hold's signed fee", () => {
    const feeRefusal = (terms: Partial<PaymentInfo>, operation: HoldOperation) => {
      try {
        checkSignedFee({ ...info, ...terms }, operation, 50, a("7"));
        return null;
      } catch (error) {
        assert.instanceOf(error, DomainError);
        // x402's payer reads it in the refusal's message: the fee is what is refused.
        assert.include((error as DomainError).detail, "signed fee");
        return (error as DomainError).code;
      }
    };

    it("opens a payment only at the deployment's fee_bps as both bounds, to its fee collector (in any case)", () => {
      for (const operation of ["authorize", "charge"] as const) {
        assert.isNull(feeRefusal({}, operation));
        assert.isNull(feeRefusal({ feeReceiver: a("7").toLowerCase() as Address }, operation));
        assert.equal(feeRefusal({ minFeeBps: 49 }, operation), "INVALID_HOLD");
        assert.equal(feeRefusal({ maxFeeBps: 51 }, operation), "INVALID_HOLD");
        assert.equal(feeRefusal({ minFeeBps: 60, maxFeeBps: 60 }, operation), "INVALID_HOLD");
        assert.equal(feeRefusal({ feeReceiver: a("3") }, operation), "INVALID_HOLD");
      }
    });

    it("closes a hold at the fee its buyer signed (fee_bps changed since, or 0 with no receiver), never with bounds apart or a fee to the zero address", () => {
      for (const operation of ["capture", "void"] as const) {
        assert.isNull(feeRefusal({ minFeeBps: 80, maxFeeBps: 80, feeReceiver: a("3") }, operation));
        assert.isNull(feeRefusal({ minFeeBps: 0, maxFeeBps: 0, feeReceiver: zeroAddress }, operation));
        assert.equal(feeRefusal({ minFeeBps: 40 }, operation), "INVALID_HOLD");
        assert.equal(feeRefusal({ maxFeeBps: 60 }, operation), "INVALID_HOLD");
        assert.equal(feeRefusal({ feeReceiver: zeroAddress }, operation), "INVALID_HOLD");
      }
    });
  });

  it("answers a call over its gas ceiling: an authorize's or charge's as the payer's signature check, a capture's or void's as the escrow's refusal", () => {
    for (const operation of ["authorize", "charge"] as const) {
      const error = overCeiling(operation, 350_000n);
      assert.equal(error.code, "SIGNATURE_VALIDATION_TOO_EXPENSIVE");
      assert.include(error.detail, `${operation} would use more than 350000 gas`);
    }
    for (const operation of ["capture", "void"] as const) {
      const error = overCeiling(operation, 300_000n);
      assert.equal(error.code, "ESCROW_REFUSED");
      assert.include(error.detail, `${operation} would use more than 300000 gas`);
    }
  });
});
