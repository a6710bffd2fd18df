import { assert } from "chai";
import { getAddress, toHex, zeroAddress, type Address, type Hex } from "viem";
import { DomainError } from "../../src/errors.js";
import { feeAmountOf } from "../../src/holds/fee.js";
import { holdAuthorizationTypedData, PAYMENT_INFO_TYPEHASH, payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "../../src/holds/payment-info.js";
import {
  HOLD_AUTHORIZE_SECONDS,
  HOLD_MAX_CAPTURE_SECONDS,
  HOLD_MAX_REFUND_SECONDS,
  HOLD_MIN_CAPTURE_SECONDS,
  holdDeadlines,
  holdIdFromToken,
  holdSalt,
  mintHold,
  paymentInfoOf,
  readHold,
  type HoldTerms,
} from "../../src/holds/terms.js";
import { CapabilityTokens, TOKEN_KINDS } from "../../src/tokens/capability.js";

const tokens = new CapabilityTokens({ environment: "test", chainId: 84532, deployment: "0xabc:0xdef" }, [{ id: "k1", secret: "s".repeat(32) }]);
const a = (digit: string): Address => getAddress(`0x${digit.repeat(40)}`);
const service = { operator: a("5"), token: a("6"), feeBps: 50, feeReceiver: a("7"), chainId: 84532, escrow: a("8") };
const terms: HoldTerms = {
  recipient: a("1"),
  amountUnits: 10_000_000n,
  authorizeBefore: 1_796_000_000,
  captureBefore: 1_796_003_600,
  refundBefore: 1_796_086_400,
  salt: toHex(7n, { size: 32 }),
  fromBlock: 1234n,
  operator: a("2"),
  feeBps: 100,
  feeReceiver: a("3"),
};

/** The DomainError `run` throws: its code and detail. */
function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    assert.instanceOf(error, DomainError);
    return error as DomainError;
  }
  assert.fail("expected a refusal");
}

/** A hold capability carrying `payload` as its signed data (what an older or a foreign release might have minted). */
const minted = (payload: Record<string, unknown>, kind: "ho" | "hc" = "ho") =>
  tokens.mint(kind === "ho" ? TOKEN_KINDS.hold : TOKEN_KINDS.holdCheckout, payload);

describe("holds: a hold's terms (deadlines, capabilities, the escrow's PaymentInfo)", () => {
  describe("deadlines (docs/merchants.md: capture_before 300 s to 30 days ahead, refund_before from it up to a year)", () => {
    const now = 1_800_000_000;

    it("takes capture_before exactly 300 s and exactly 30 days from now, refuses a second less or more, naming capture_before", () => {
      assert.equal(HOLD_MIN_CAPTURE_SECONDS, 300);
      assert.equal(HOLD_MAX_CAPTURE_SECONDS, 30 * 86_400);
      const far = now + HOLD_MAX_REFUND_SECONDS;
      assert.doesNotThrow(() => holdDeadlines(now, now + 300, far));
      assert.doesNotThrow(() => holdDeadlines(now, now + 30 * 86_400, far));
      for (const captureBefore of [now + 299, now - 1, now + 30 * 86_400 + 1]) {
        const refused = refusal(() => holdDeadlines(now, captureBefore, far));
        assert.equal(refused.code, "INVALID_HOLD", String(captureBefore - now));
        assert.match(refused.detail!, /^capture_before: at (least 300|most 2592000) s from now$/);
      }
      assert.match(refusal(() => holdDeadlines(now, now + 299, far)).detail!, /least/);
      assert.match(refusal(() => holdDeadlines(now, now + 30 * 86_400 + 1, far)).detail!, /most/);
    });

    it("takes refund_before equal to capture_before and a year from now; refuses it a second before capture_before or past the year", () => {
      assert.equal(HOLD_MAX_REFUND_SECONDS, 365 * 86_400);
      const capture = now + 3600;
      assert.doesNotThrow(() => holdDeadlines(now, capture, capture));
      assert.doesNotThrow(() => holdDeadlines(now, capture, now + 365 * 86_400));
      const early = refusal(() => holdDeadlines(now, capture, capture - 1));
      assert.equal(early.code, "INVALID_HOLD");
      assert.equal(early.detail, "refund_before: at or after capture_before");
      const late = refusal(() => holdDeadlines(now, capture, now + 365 * 86_400 + 1));
      assert.equal(late.code, "INVALID_HOLD");
      assert.equal(late.detail, `refund_before: at most ${365 * 86_400} s from now`);
    });

    it("lets the buyer authorize for a day, never past capture_before", () => {
      assert.equal(HOLD_AUTHORIZE_SECONDS, 86_400);
      const far = now + 365 * 86_400;
      assert.deepEqual(holdDeadlines(now, now + 3600, far), { authorizeBefore: now + 3600 });
      assert.deepEqual(holdDeadlines(now, now + 86_400, far), { authorizeBefore: now + 86_400 });
      assert.deepEqual(holdDeadlines(now, now + 10 * 86_400, far), { authorizeBefore: now + 86_400 });
    });
  });

  describe("capabilities: the merchant's (ho) and the buyer's (hc) carry the same terms", () => {
    it("reads back every term from both, with its role; the merchant-only reads refuse the buyer's", () => {
      const { hold, checkout } = mintHold(tokens, terms);
      assert.isTrue(hold.startsWith("ho."));
      assert.isTrue(checkout.startsWith("hc."));
      assert.deepEqual(readHold(tokens, hold, true), { ...terms, role: "merchant" });
      assert.deepEqual(readHold(tokens, hold, false), { ...terms, role: "merchant" });
      assert.deepEqual(readHold(tokens, checkout, false), { ...terms, role: "buyer" });
      assert.equal(refusal(() => readHold(tokens, checkout, true)).code, "INVALID_HOLD_TOKEN");
    });

    it("a fee of 0 travels as 0 (not as the service's fee); a hold made before the terms travelled has none of them", () => {
      const free = readHold(tokens, mintHold(tokens, { ...terms, feeBps: 0 }).hold, true);
      assert.strictEqual(free.feeBps, 0);
      const { operator: _o, feeBps: _f, feeReceiver: _fr, ...bare } = terms;
      const old = readHold(tokens, mintHold(tokens, bare).hold, true);
      assert.deepEqual(old, { ...bare, role: "merchant" });
      assert.notProperty(old, "operator");
      assert.notProperty(old, "feeBps");
      assert.notProperty(old, "feeReceiver");
    });

    it("reads addresses in any case and answers them checksummed", () => {
      const payload = {
        r: a("a").toLowerCase(),
        a: "1",
        pe: 1,
        ae: 2,
        re: 3,
        s: `0x${"ab".repeat(32)}`,
        b: "0",
        o: a("b").toLowerCase(),
        fr: a("c").toUpperCase().replace("0X", "0x"),
      };
      const read = readHold(tokens, minted(payload), true);
      assert.equal(read.recipient, a("a"));
      assert.equal(read.operator, a("b"));
      assert.equal(read.feeReceiver, a("c"));
    });

    it("refuses anything but a hold capability of this service: another kind, a forged or altered one, junk", () => {
      const { hold } = mintHold(tokens, terms);
      const other = new CapabilityTokens({ environment: "test", chainId: 84532, deployment: "0xabc:0xdef" }, [{ id: "k1", secret: "t".repeat(32) }]);
      const [kind, key, payload, signature] = hold.split(".");
      for (const token of [
        tokens.mint(TOKEN_KINDS.intent, { r: terms.recipient }),
        mintHold(other, terms).hold,
        `${kind}.${key}.${payload}A.${signature}`,
        "",
        "ho.k1.x.y",
      ]) {
        assert.equal(refusal(() => readHold(tokens, token, false)).code, "INVALID_HOLD_TOKEN", token);
      }
    });

    it("refuses signed data that is not exactly a hold's terms (each field's shape, the fee's bounds, no extra field)", () => {
      const good = { r: a("1"), a: "10000000", pe: 1, ae: 2, re: 3, s: `0x${"ab".repeat(32)}`, b: "12345678901234567890", o: a("2"), f: 10_000, fr: a("3") };
      assert.equal(readHold(tokens, minted(good), true).amountUnits, 10_000_000n);
      assert.equal(readHold(tokens, minted({ ...good, a: "9".repeat(36) }), true).amountUnits, 10n ** 36n - 1n);
      assert.equal(readHold(tokens, minted({ ...good, f: 0 }), true).feeBps, 0);
      const bad: Array<[string, Record<string, unknown>]> = [
        ["extra field", { ...good, x: 1 }],
        ["operator not an address", { ...good, o: "0x12" }],
        ["operator with a tail", { ...good, o: `${a("2")}00` }],
        ["operator with a head", { ...good, o: `00${a("2")}` }],
        ["fee receiver not an address", { ...good, fr: "0xzz" }],
        ["fee receiver with a tail", { ...good, fr: `${a("3")}0` }],
        ["fee receiver with a head", { ...good, fr: `x${a("3")}` }],
        ["fee above 100%", { ...good, f: 10_001 }],
        ["negative fee", { ...good, f: -1 }],
        ["fractional fee", { ...good, f: 1.5 }],
        ["recipient with a tail", { ...good, r: `${a("1")}0` }],
        ["recipient with a head", { ...good, r: ` ${a("1")}` }],
        ["no recipient", { ...good, r: undefined }],
        ["amount 0", { ...good, a: "0" }],
        ["amount with a leading 0", { ...good, a: "01" }],
        ["amount of 37 digits", { ...good, a: "1".repeat(37) }],
        ["amount with a tail", { ...good, a: "1x" }],
        ["amount with a head", { ...good, a: "x1" }],
        ["authorize deadline 0", { ...good, pe: 0 }],
        ["authorize deadline fractional", { ...good, pe: 1.5 }],
        ["capture deadline 0", { ...good, ae: 0 }],
        ["capture deadline fractional", { ...good, ae: 1.5 }],
        ["refund deadline 0", { ...good, re: 0 }],
        ["refund deadline fractional", { ...good, re: 1.5 }],
        ["salt in capitals", { ...good, s: `0x${"AB".repeat(32)}` }],
        ["salt short", { ...good, s: `0x${"ab".repeat(31)}` }],
        ["salt with a tail", { ...good, s: `0x${"ab".repeat(32)}0` }],
        ["salt with a head", { ...good, s: `00x${"ab".repeat(32)}` }],
        ["block of 21 digits", { ...good, b: "1".repeat(21) }],
        ["block empty", { ...good, b: "" }],
        ["block with a tail", { ...good, b: "1x" }],
        ["block with a head", { ...good, b: "x1" }],
      ];
      for (const [what, payload] of bad) {
        assert.equal(refusal(() => readHold(tokens, minted(payload), false)).code, "INVALID_HOLD_TOKEN", what);
        assert.equal(refusal(() => readHold(tokens, minted(payload, "hc"), false)).code, "INVALID_HOLD_TOKEN", `${what} (buyer's)`);
      }
    });

    it("names each hold by its payer-agnostic hash, from the merchant's capability only", () => {
      const { hold, checkout } = mintHold(tokens, terms);
      assert.equal(holdIdFromToken(tokens, hold, service), payerAgnosticHash(paymentInfoOf(terms, zeroAddress, service), service.chainId, service.escrow));
      assert.equal(refusal(() => holdIdFromToken(tokens, checkout, service)).code, "INVALID_HOLD_TOKEN");
    });

    it("salts each hold with 32 fresh random bytes", () => {
      const asked: number[] = [];
      const salt = holdSalt((size) => {
        asked.push(size);
        return new Uint8Array(size).fill(0xab);
      });
      assert.deepEqual(asked, [32]);
      assert.equal(salt, `0x${"ab".repeat(32)}`);
    });
  });

  describe("the escrow's PaymentInfo and its hash (Commerce Payments' getHash)", () => {
    it("builds the escrow's terms from the hold's operator, fee and fee receiver, as both fee bounds", () => {
      assert.deepEqual(paymentInfoOf(terms, a("9"), service), {
        operator: a("2"),
        payer: a("9"),
        receiver: a("1"),
        token: a("6"),
        maxAmount: 10_000_000n,
        preApprovalExpiry: 1_796_000_000,
        authorizationExpiry: 1_796_003_600,
        refundExpiry: 1_796_086_400,
        minFeeBps: 100,
        maxFeeBps: 100,
        feeReceiver: a("3"),
        salt: 7n,
      });
    });

    it("takes the service's operator, fee and fee receiver for a hold made before they travelled; a fee of 0 stays 0", () => {
      const { operator: _o, feeBps: _f, feeReceiver: _fr, ...bare } = terms;
      assert.deepInclude(paymentInfoOf(bare, a("9"), service), { operator: a("5"), minFeeBps: 50, maxFeeBps: 50, feeReceiver: a("7") });
      assert.deepInclude(paymentInfoOf({ ...terms, feeBps: 0 }, a("9"), service), { minFeeBps: 0, maxFeeBps: 0 });
    });

    // Computed once with ethers' ABI coder over the type string of Commerce Payments' AuthCaptureEscrow
    // (contracts/escrow/AuthCaptureEscrow.sol): a hold's id and its buyer's nonce must equal the
    // escrow's getHash, or the escrow rejects every authorization.
    const info: PaymentInfo = {
      operator: a("1"),
      payer: a("2"),
      receiver: a("3"),
      token: getAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
      maxAmount: 10_000_000n,
      preApprovalExpiry: 1_796_000_000,
      authorizationExpiry: 1_796_003_600,
      refundExpiry: 1_796_086_400,
      minFeeBps: 100,
      maxFeeBps: 100,
      feeReceiver: a("4"),
      salt: 7n,
    };
    const escrow = getAddress("0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff");

    it("hashes the terms as the escrow does: its PAYMENT_INFO_TYPEHASH, then the chain id and the escrow's address", () => {
      assert.equal(PAYMENT_INFO_TYPEHASH, "0xae68ac7ce30c86ece8196b61a7c486d8f0061f575037fbd34e7fe4e2820c6591");
      assert.equal(paymentInfoHash(info, 8453, escrow), "0x2c49cf3c911c7bef81fa0a6e9ad94eea8d6766d0b8b77de9f6574ac219e3f86d");
      assert.equal(paymentInfoHash(info, 84532, escrow), "0x63d83330cb9ce65785ccb25b7f8656cacfc73930f0ec1441ef576e3bf6c18cfe");
      assert.notEqual(paymentInfoHash(info, 8453, a("8")), paymentInfoHash(info, 8453, escrow), "another escrow, another payment");
    });

    it("leaves the payer out of the buyer's nonce: any payer, the same hash, the zero payer's", () => {
      const agnostic = "0x2c1b8a1295462e1ee7e4efadeb6441117ed5fe8176806ff787e0ebb6efdd2487";
      assert.equal(payerAgnosticHash(info, 8453, escrow), agnostic);
      assert.equal(payerAgnosticHash({ ...info, payer: a("9") }, 8453, escrow), agnostic);
      assert.equal(paymentInfoHash({ ...info, payer: zeroAddress }, 8453, escrow), agnostic);
    });

    it("asks the buyer for USDC's ReceiveWithAuthorization of the most capturable, to the collector, until the authorize deadline, its nonce the hold's", () => {
      const chain = { chainId: 8453, escrow, collector: a("c"), tokenEip712: { name: "USD Coin", version: "2" } };
      const typed = holdAuthorizationTypedData(info, a("9"), chain);
      assert.deepEqual(typed.domain, { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: info.token });
      assert.equal(typed.primaryType, "ReceiveWithAuthorization");
      assert.property(typed.types, "EIP712Domain");
      assert.deepEqual(typed.message, {
        from: a("9"),
        to: a("c"),
        value: 10_000_000n,
        validAfter: 0n,
        validBefore: 1_796_000_000n,
        nonce: "0x2c1b8a1295462e1ee7e4efadeb6441117ed5fe8176806ff787e0ebb6efdd2487" as Hex,
      });
    });
  });

  describe("the fee a capture names (Commerce Payments v1.1: between the bounds' amounts, each rounded down)", () => {
    it("is floor(amount × fee_bps / 10,000)", () => {
      assert.equal(feeAmountOf(10_000_000n, 100), 100_000n);
      assert.equal(feeAmountOf(199n, 50), 0n, "0.995 rounds down");
      assert.equal(feeAmountOf(200n, 50), 1n);
      assert.equal(feeAmountOf(399n, 50), 1n, "1.995 rounds down");
      assert.equal(feeAmountOf(10_000_000n, 0), 0n);
      assert.equal(feeAmountOf(10_000_000n, 10_000), 10_000_000n);
      assert.equal(feeAmountOf(2n ** 120n - 1n, 10_000), 2n ** 120n - 1n);
    });
  });
});
