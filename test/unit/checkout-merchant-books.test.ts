import { assert } from "chai";
import { addressOf, CSV_COLUMNS, paymentsCsv, plainAmount, refundUnits, totals, utcTimestamp, type BookPayment } from "../../src/checkout/merchant-books.js";

const payment = (over: Partial<BookPayment> = {}): BookPayment => ({
  reference: `0x${"ab".repeat(32)}`,
  amount_units: "12500000",
  fee_units: "250000",
  payer: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  tx_hash: `0x${"cd".repeat(32)}`,
  block_number: "42",
  timestamp: 1_796_000_000,
  settled_by: "pay",
  final: true,
  ...over,
});

describe("merchant page books: totals, CSV, refund amounts (integer micro-units)", () => {
  it("writes the CSV's exact columns, one row per payment, amounts with six digits and net = amount - fee", () => {
    const csv = paymentsCsv([
      payment(),
      payment({ reference: null, amount_units: "1", fee_units: "0", settled_by: "x402", block_number: "7", timestamp_ms: 1_796_000_000_400 }),
      payment({ reference: null, payer: null, settled_by: "forward", block_number: "5" }),
    ]);
    const lines = csv.split("\r\n");
    assert.equal(lines[0], "timestamp_utc,timestamp_ms,amount,fee,net,payer,reference,tx_hash,block_number,settled_by");
    assert.deepEqual(CSV_COLUMNS, lines[0]!.split(",") as unknown as typeof CSV_COLUMNS);
    assert.equal(
      lines[1],
      `2026-11-30T00:53:20Z,,12.500000,0.250000,12.250000,0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC,0x${"ab".repeat(32)},0x${"cd".repeat(32)},42,pay`,
    );
    assert.equal(
      lines[2],
      `2026-11-30T00:53:20Z,1796000000400,0.000001,0.000000,0.000001,0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC,,0x${"cd".repeat(32)},7,x402`,
      "timestamp_ms where the node serves it",
    );
    assert.equal(lines[3], `2026-11-30T00:53:20Z,,12.500000,0.250000,12.250000,,,0x${"cd".repeat(32)},5,forward`, "no payer where the chain cannot say");
    assert.equal(lines[4], "", "every line ends with CRLF");
    assert.lengthOf(lines, 5);
    assert.equal(paymentsCsv([]), "timestamp_utc,timestamp_ms,amount,fee,net,payer,reference,tx_hash,block_number,settled_by\r\n");
  });

  it("adds up amounts past a float's precision exactly", () => {
    const big = payment({ amount_units: "9007199254740993", fee_units: "180143985094819" });
    assert.deepEqual(totals([big, big]), { count: 2, amount: 18014398509481986n, fee: 360287970189638n, net: 17654110539292348n });
    assert.equal(plainAmount(18014398509481986n), "18014398509.481986");
    assert.equal(utcTimestamp(0), "1970-01-01T00:00:00Z");
  });

  it("reads a refund amount: at most six decimals, above zero, at most the ceiling", () => {
    assert.equal(refundUnits("2.5", 10_000_000n), 2_500_000n);
    assert.equal(refundUnits(" 10 ", 10_000_000n), 10_000_000n);
    assert.equal(refundUnits("0.000001", 10_000_000n), 1n);
    for (const bad of ["0", "10.000001", "1.1234567", "-1", "1e3", "", "abc", "1,5"]) assert.isNull(refundUnits(bad, 10_000_000n), bad);
    assert.equal(addressOf(" 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC "), "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    assert.isNull(addressOf("0x1234"));
  });
});
