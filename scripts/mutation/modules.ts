// What `npm run mutation` mutates, and the tests that answer for each part: a mutant costs the run of
// these files, not of the whole suite. Each list is the tests that exercise the module's decisions;
// a module whose score falls is answered by a test added to its list's files, not by a longer list.

export interface ServiceModule {
  /** The name printed and used to pick a module (`npm run mutation -- door`). */
  name: string;
  /** What it decides, for the report. */
  what: string;
  mutate: string[];
  spec: string[];
  /**
   * Mocha's time per test, in ms, for unit files: a mutant that leaves a promise unsettled fails its
   * test then, named, instead of running out Stryker's clock unnamed (mocha's 60 s by default).
   */
  testTimeoutMs?: number;
}

export interface ContractModule {
  name: string;
  file: string;
  spec: string[];
}

export const SERVICE_MODULES: ServiceModule[] = [
  {
    name: "door",
    what: "the agreement door: what a majority of nodes said, and nothing else",
    mutate: ["src/chain/agreement.ts", "src/chain/agreement-tally.ts", "src/chain/majority-read.ts"],
    spec: ["test/unit/door-tally.test.ts", "test/unit/door-agreement.test.ts", "test/unit/door-edges.test.ts", "test/unit/verdict-door.test.ts"],
    testTimeoutMs: 5_000,
  },
  { name: "money", what: "decimal strings ↔ micro-units, the fee floor", mutate: ["src/money.ts"], spec: ["test/unit/money.test.ts"] },
  {
    name: "capability",
    what: "the HMAC capability tokens: their parts, keys and expiry",
    mutate: ["src/tokens/capability.ts"],
    spec: ["test/unit/capability-tokens.test.ts"],
  },
  {
    name: "payer",
    what: "the payer rule: who paid a payment address",
    mutate: ["src/payments/depositor.ts"],
    spec: ["test/unit/depositor.test.ts", "test/unit/depositor-search.test.ts"],
  },
  {
    name: "holds",
    what: "a hold's terms: deadlines, capabilities, the escrow's PaymentInfo, the fee",
    mutate: ["src/holds/terms.ts", "src/holds/payment-info.ts", "src/holds/fee.ts"],
    spec: ["test/unit/holds-terms.test.ts"],
  },
  {
    name: "hold-operator",
    what: "the hold operator's checks before it sends: a caller's limit, one payer per hold, the relayer's budget, the key and fee a call is sent with",
    mutate: ["src/holds/hold-rules.ts", "src/holds/operator-checks.ts"],
    spec: ["test/unit/hold-operator-checks.test.ts"],
  },
  {
    name: "x402-exact",
    what: "x402 `exact`: the payload and its verification",
    mutate: ["src/x402/exact.ts", "src/x402/payload.ts"],
    spec: ["test/unit/x402-exact.test.ts"],
  },
  {
    name: "x402-auth-capture",
    what: "x402 `auth-capture`: the payload's terms and their verification",
    mutate: ["src/x402/auth-capture-terms.ts"],
    spec: ["test/unit/x402-auth-capture-terms.test.ts"],
  },
  {
    name: "refund-target",
    what: "where a refund's money goes",
    mutate: ["src/refunds/settlement.ts"],
    spec: ["test/unit/refund-target.test.ts"],
    testTimeoutMs: 5_000,
  },
  {
    name: "charge-answers",
    what: "a charge's answer: CHARGED, ALREADY_CHARGED, CONFIRMING and the refusals",
    mutate: ["src/recurring/charge-answers.ts", "src/recurring/charge-errors.ts"],
    spec: ["test/unit/charge-answers.test.ts", "test/unit/charge-errors.test.ts"],
    testTimeoutMs: 5_000,
  },
];

export const CONTRACT_MODULES: ContractModule[] = [
  {
    name: "Splitter",
    file: "contracts/Splitter.sol",
    // DepositAddress and X402Settlement are the Splitter's payment-address entry points (forwardDeposit,
    // settleDeposit's and settleDepositFromAuthorization's bounds), tested nowhere else.
    spec: [
      "test/contracts/Splitter.test.ts",
      "test/contracts/SplitterEntryPoints.test.ts",
      "test/contracts/DepositAddress.test.ts",
      "test/contracts/X402Settlement.test.ts",
    ],
  },
  {
    name: "RecurringCharges",
    file: "contracts/RecurringCharges.sol",
    spec: ["test/contracts/RecurringCharges.test.ts", "test/contracts/RecurringChargesConstruction.test.ts", "test/contracts/RecurringChargesGas.test.ts"],
  },
  { name: "DepositForwarder", file: "contracts/DepositForwarder.sol", spec: ["test/contracts/DepositAddress.test.ts"] },
  { name: "X402Receiver", file: "contracts/X402Receiver.sol", spec: ["test/contracts/X402Receivers.test.ts", "test/contracts/X402Settlement.test.ts"] },
  { name: "X402Receivers", file: "contracts/X402Receivers.sol", spec: ["test/contracts/X402Receivers.test.ts", "test/contracts/X402Settlement.test.ts"] },
];

/** The score each module and contract must reach (issue 62). */
export const MUTATION_SCORE_FLOOR = 85;
