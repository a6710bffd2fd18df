import { assert } from "chai";
import {
  type Abi,
  type AbiEvent,
  type Address,
  encodeAbiParameters,
  encodeEventTopics,
  getAddress,
  type Hex,
  pad,
  type PublicClient,
  type TransactionReceipt,
  zeroAddress,
} from "viem";
import type { LiveDeployment } from "../../src/deployments.js";
import { DomainError } from "../../src/errors.js";
import { recurringChargesAbi, splitterAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import type { Intent } from "../../src/payments/intent.js";
import { paymentKeyOf } from "../../src/payments/verify.js";
import type { Terms } from "../../src/recurring/terms.js";
import { chargeSettlement, isAfter, paymentSettlement, referenceSettlement } from "../../src/refunds/settlement.js";

/*
 * Where a refund's money goes (interface.md, POST /v1/refunds/prepare): from the recipient the
 * settled payment names to the payer it names, at most what was paid, and only for a payment the
 * chain shows settled in our contracts, in the deployment's token: a look-alike, another contract's
 * event, an unsettled or reverted transaction is refused with the code the merchant acts on.
 */

const TOKEN = getAddress("0x036cbd53842c5426634e7929541ec2318f3dcf7e");
const OTHER_TOKEN = getAddress("0x00000000000000000000000000000000000000e7");
const SPLITTER = getAddress("0x00000000000000000000000000000000000000a1");
const RECEIVERS = getAddress("0x00000000000000000000000000000000000000a2");
const RECURRING = getAddress("0x00000000000000000000000000000000000000a3");
const MERCHANT = getAddress("0x00000000000000000000000000000000000000b1");
const PAYER = getAddress("0x00000000000000000000000000000000000000b2");
const STRANGER = getAddress("0x00000000000000000000000000000000000000b3");
const REFERENCE = pad("0x4e", { size: 32 });
const ID = pad("0x5b", { size: 32 });
const AT = 80n;

const deployment = {
  token: { address: TOKEN },
  contracts: { Splitter: { address: SPLITTER }, X402Receivers: { address: RECEIVERS }, RecurringCharges: { address: RECURRING } },
};
const chain = { client: {} as PublicClient, deployment: deployment as unknown as LiveDeployment, finality: { kind: "safe" as const } };
const intent: Intent = { recipient: MERCHANT, amountUnits: 5_000_000n, reference: REFERENCE, expiresAt: 0 };

/** A log of `eventName` from `address`, each argument the test names, the others zero. */
function eventLog(abi: Abi, eventName: string, address: Address, logIndex: number, args: Record<string, unknown>) {
  const event = abi.find((e): e is AbiEvent => e.type === "event" && e.name === eventName)!;
  const value = (p: { name?: string; type: string }) =>
    args[p.name!] ?? (p.type === "address" ? zeroAddress : p.type === "bytes32" ? pad("0x0", { size: 32 }) : 0n);
  const indexed = Object.fromEntries(event.inputs.filter((p) => p.indexed).map((p) => [p.name!, value(p)]));
  const plain = event.inputs.filter((p) => !p.indexed);
  return {
    address,
    topics: encodeEventTopics({ abi: [event], eventName, args: indexed } as never),
    data: encodeAbiParameters(plain, plain.map(value)),
    logIndex,
    blockNumber: AT,
    blockHash: pad("0xbb", { size: 32 }),
    transactionHash: pad("0xcc", { size: 32 }),
    transactionIndex: 0,
    removed: false,
  };
}
const paid = (change: Record<string, unknown> = {}, from: Address = SPLITTER, logIndex = 3) => {
  const a = { recipient: MERCHANT, amount: intent.amountUnits, token: TOKEN, paymentReference: REFERENCE, payer: PAYER, ...change };
  const key = paymentKeyOf(a.token as Address, { recipient: a.recipient as Address, amountUnits: a.amount as bigint, reference: a.paymentReference as Hex });
  return eventLog(splitterAbi, "Paid", from, logIndex, { ...a, paymentKey: key });
};
const receiverPaid = (change: Record<string, unknown> = {}, from: Address = RECEIVERS, logIndex = 4) =>
  eventLog(x402ReceiversAbi, "ReceiverPaid", from, logIndex, {
    recipient: MERCHANT,
    payer: PAYER,
    nonce: REFERENCE,
    token: TOKEN,
    amount: 7_000_000n,
    ...change,
  });
const receipt = (logs: unknown[], status: "success" | "reverted" = "success") =>
  ({ status, logs, blockNumber: AT, blockHash: pad("0xbb", { size: 32 }), transactionHash: pad("0xcc", { size: 32 }) }) as unknown as TransactionReceipt;

function refused(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.instanceOf(error, DomainError);
    return (error as DomainError).code;
  }
  return "answered";
}

describe("a log's place in the chain's order (isAfter)", () => {
  it("after: a later block, or a later log of the same block; never the same place or earlier", () => {
    assert.isTrue(isAfter({ blockNumber: 11n, logIndex: 0 }, { blockNumber: 10n, logIndex: 9 }));
    assert.isTrue(isAfter({ blockNumber: 10n, logIndex: 5 }, { blockNumber: 10n, logIndex: 4 }));
    assert.isFalse(isAfter({ blockNumber: 10n, logIndex: 4 }, { blockNumber: 10n, logIndex: 4 }));
    assert.isFalse(isAfter({ blockNumber: 10n, logIndex: 3 }, { blockNumber: 10n, logIndex: 4 }));
    assert.isFalse(isAfter({ blockNumber: 9n, logIndex: 9 }, { blockNumber: 10n, logIndex: 0 }));
  });
});

describe("a one-time payment's refund target (paymentSettlement)", () => {
  it("refunds from the recipient to the payer the Splitter's Paid names, at most the amount, after its place", () => {
    assert.deepEqual(paymentSettlement(chain, intent, receipt([paid()]), AT), {
      token: TOKEN,
      merchant: MERCHANT,
      payer: PAYER,
      amountUnits: intent.amountUnits,
      position: { blockNumber: AT, logIndex: 3 },
    });
  });

  it("no transaction, or a reverted one: PAYMENT_NOT_FOUND", () => {
    assert.equal(
      refused(() => paymentSettlement(chain, intent, null, AT)),
      "PAYMENT_NOT_FOUND",
    );
    assert.equal(
      refused(() => paymentSettlement(chain, intent, receipt([paid()], "reverted"), AT)),
      "PAYMENT_NOT_FOUND",
    );
  });

  it("a payment of the reference to another recipient, of another amount or token, or none, or another contract's: PAYMENT_MISMATCH", () => {
    for (const logs of [[paid({ recipient: STRANGER })], [paid({ amount: 4_999_999n })], [paid({ token: OTHER_TOKEN })], [], [paid({}, STRANGER)]]) {
      assert.equal(
        refused(() => paymentSettlement(chain, intent, receipt(logs), AT)),
        "PAYMENT_MISMATCH",
      );
    }
  });

  it("settled at the finality head, PAYMENT_CONFIRMING a block before; a mismatch is told first", () => {
    assert.equal(
      refused(() => paymentSettlement(chain, intent, receipt([paid()]), AT - 1n)),
      "PAYMENT_CONFIRMING",
    );
    assert.equal(
      refused(() => paymentSettlement(chain, intent, receipt([paid({ recipient: STRANGER })]), AT - 1n)),
      "PAYMENT_MISMATCH",
    );
  });
});

describe("a payment's refund target by its reference alone (referenceSettlement)", () => {
  it("the one Paid of the reference in the deployment's token: its recipient, payer, amount, place and key", () => {
    const settled = referenceSettlement(chain, REFERENCE, receipt([paid({ token: OTHER_TOKEN }, SPLITTER, 1), paid()]), AT);
    assert.deepEqual(settled, {
      token: TOKEN,
      merchant: MERCHANT,
      payer: PAYER,
      amountUnits: intent.amountUnits,
      position: { blockNumber: AT, logIndex: 3 },
      key: paymentKeyOf(TOKEN, intent),
    });
  });

  it("the one ReceiverPaid naming it as nonce: its recipient, payer and amount", () => {
    const settled = referenceSettlement(chain, REFERENCE, receipt([receiverPaid({ token: OTHER_TOKEN }, RECEIVERS, 2), receiverPaid()]), AT);
    assert.deepEqual(settled, { token: TOKEN, merchant: MERCHANT, payer: PAYER, amountUnits: 7_000_000n, position: { blockNumber: AT, logIndex: 4 } });
  });

  it("none, two, another reference, another contract's: PAYMENT_MISMATCH", () => {
    const other = pad("0x4f", { size: 32 });
    for (const logs of [
      [],
      [paid(), receiverPaid()],
      [paid(), paid({}, SPLITTER, 5)],
      [paid({ paymentReference: other })],
      [receiverPaid({ nonce: other })],
      [paid({}, STRANGER)],
      [receiverPaid({}, STRANGER)],
      [paid({ token: OTHER_TOKEN })],
    ]) {
      assert.equal(
        refused(() => referenceSettlement(chain, REFERENCE, receipt(logs), AT)),
        "PAYMENT_MISMATCH",
        `${logs.length} logs`,
      );
    }
  });

  it("PAYMENT_NOT_FOUND without a successful transaction; PAYMENT_CONFIRMING before the finality head", () => {
    assert.equal(
      refused(() => referenceSettlement(chain, REFERENCE, null, AT)),
      "PAYMENT_NOT_FOUND",
    );
    assert.equal(
      refused(() => referenceSettlement(chain, REFERENCE, receipt([paid()], "reverted"), AT)),
      "PAYMENT_NOT_FOUND",
    );
    assert.equal(
      refused(() => referenceSettlement(chain, REFERENCE, receipt([receiverPaid()]), AT - 1n)),
      "PAYMENT_CONFIRMING",
    );
  });
});

describe("a recurring charge's refund target (chargeSettlement)", () => {
  const terms = { payer: PAYER, recipient: MERCHANT, token: TOKEN, amount: 9_000_000n } as Terms;
  const charged = (change: Record<string, unknown> = {}, from: Address = RECURRING) =>
    eventLog(recurringChargesAbi, "Charged", from, 6, {
      subscriptionId: ID,
      periodIndex: 2n,
      payer: PAYER,
      recipient: MERCHANT,
      token: TOKEN,
      amount: 9_000_000n,
      ...change,
    });

  it("the period's Charged of the signed terms: from the recipient to the payer, at most the amount (the reimbursement excluded)", () => {
    assert.deepEqual(chargeSettlement(chain, ID, terms, 2n, receipt([charged({ periodIndex: 1n }), charged()]), AT), {
      token: TOKEN,
      merchant: MERCHANT,
      payer: PAYER,
      amountUnits: 9_000_000n,
      position: { blockNumber: AT, logIndex: 6 },
    });
  });

  it("another period, subscription, recipient, payer, token or amount, or another contract's: PAYMENT_MISMATCH", () => {
    for (const change of [
      { periodIndex: 3n },
      { subscriptionId: REFERENCE },
      { recipient: STRANGER },
      { payer: STRANGER },
      { token: OTHER_TOKEN },
      { amount: 9_000_001n },
    ]) {
      assert.equal(
        refused(() => chargeSettlement(chain, ID, terms, 2n, receipt([charged(change)]), AT)),
        "PAYMENT_MISMATCH",
        Object.keys(change)[0],
      );
    }
    assert.equal(
      refused(() => chargeSettlement(chain, ID, terms, 2n, receipt([charged({}, STRANGER)]), AT)),
      "PAYMENT_MISMATCH",
    );
  });

  it("PAYMENT_NOT_FOUND without a successful transaction; PAYMENT_CONFIRMING before the finality head", () => {
    assert.equal(
      refused(() => chargeSettlement(chain, ID, terms, 2n, null, AT)),
      "PAYMENT_NOT_FOUND",
    );
    assert.equal(
      refused(() => chargeSettlement(chain, ID, terms, 2n, receipt([charged()], "reverted"), AT)),
      "PAYMENT_NOT_FOUND",
    );
    assert.equal(
      refused(() => chargeSettlement(chain, ID, terms, 2n, receipt([charged()]), AT - 1n)),
      "PAYMENT_CONFIRMING",
    );
  });
});
