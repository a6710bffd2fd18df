import { assert } from "chai";
import {
  type AbiParameter,
  BaseError,
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  encodeErrorResult,
  type Hex,
  HttpRequestError,
  zeroAddress,
  zeroHash,
} from "viem";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import { chargeRefusal, revertName, skippedRefusal } from "../../src/recurring/charge-errors.js";

/*
 * A refused charge's answer (interface.md's error table for POST /v1/charges): each of
 * RecurringCharges' reverts, by its name, to the code and action the merchant acts on; a period
 * already charged is no error (ALREADY_CHARGED); a node's failure is RPC_*, never a refusal.
 */

const ERROR_STRING = [{ type: "error", name: "Error", inputs: [{ name: "reason", type: "string" }] }] as const;

function zeroOf(p: AbiParameter): unknown {
  if (p.type.startsWith("uint") || p.type.startsWith("int")) return 0n;
  if (p.type === "address") return zeroAddress;
  if (p.type === "bool") return false;
  if (p.type === "bytes32") return zeroHash;
  if (p.type === "bytes" || p.type === "string") return p.type === "bytes" ? "0x" : "";
  throw new Error(`no zero for ${p.type}`);
}

/** The revert data of RecurringCharges' custom error `name`, its arguments zero. */
function revertData(name: string): Hex {
  const error = recurringChargesAbi.find((e) => e.type === "error" && e.name === name);
  if (error?.type !== "error") throw new Error(`RecurringCharges has no error ${name}`);
  return encodeErrorResult({ abi: [error], errorName: name, args: error.inputs.map(zeroOf) } as never);
}

/** A simulated `charge` reverting with `data`, as viem throws it. */
function reverted(data: Hex): BaseError {
  const cause = new ContractFunctionRevertedError({ abi: [...recurringChargesAbi, ...ERROR_STRING], data, functionName: "charge" });
  return new ContractFunctionExecutionError(cause, { abi: recurringChargesAbi, functionName: "charge", args: [] });
}
const named = (name: string) => reverted(revertData(name));
const tokenSaid = (reason: string) => reverted(encodeErrorResult({ abi: ERROR_STRING, errorName: "Error", args: [reason] }));

describe("a refused charge's answer (chargeRefusal)", () => {
  it("reads the revert's name through viem's wrapping, and no name from what is no revert", () => {
    assert.equal(revertName(named("SubscriptionRevoked")), "SubscriptionRevoked");
    assert.isNull(revertName(new Error("SubscriptionRevoked")));
    assert.isNull(revertName(new BaseError("execution reverted")));
  });

  it("a period already charged is no refusal: the caller answers ALREADY_CHARGED", () => {
    assert.isNull(chargeRefusal(named("PeriodAlreadyCharged"), 0n));
  });

  it("maps each refusal to its code", () => {
    const table: Record<string, string> = {
      SubscriptionRevoked: "PERMISSION_REVOKED",
      InvalidSignature: "INVALID_SIGNATURE",
      SubscriptionEnded: "SUBSCRIPTION_EXPIRED",
      InsufficientAllowance: "INSUFFICIENT_ALLOWANCE",
      InsufficientBalance: "INSUFFICIENT_BALANCE",
      ReimbursementOverCap: "GAS_TOO_HIGH",
      NotRelayer: "RELAYER_UNAVAILABLE",
      UnsupportedSignatureFormat: "INVALID_SUBSCRIPTION",
      FeeTermsMismatch: "INVALID_SUBSCRIPTION",
      AmountBelowFees: "INVALID_SUBSCRIPTION",
      InvalidTerms: "INVALID_SUBSCRIPTION",
    };
    for (const [name, code] of Object.entries(table)) assert.equal(chargeRefusal(named(name), 0n)?.code, code, name);
  });

  it("names what makes the terms invalid, and why the relayer is unavailable", () => {
    for (const name of ["UnsupportedSignatureFormat", "FeeTermsMismatch", "AmountBelowFees", "InvalidTerms"])
      assert.equal(chargeRefusal(named(name), 0n)?.detail, name);
    assert.equal(chargeRefusal(named("NotRelayer"), 0n)?.detail, "the relayer is not allowed by the contract");
  });

  it("before the start: NOT_DUE, retry when it starts (at least a second on)", () => {
    assert.equal(chargeRefusal(named("ChargeBeforeStart"), 30n)?.code, "NOT_DUE");
    assert.equal(chargeRefusal(named("ChargeBeforeStart"), 30n)?.retryAfter, 30);
    assert.equal(chargeRefusal(named("ChargeBeforeStart"), 1n)?.retryAfter, 1);
    assert.equal(chargeRefusal(named("ChargeBeforeStart"), 0n)?.retryAfter, 1);
    assert.equal(chargeRefusal(named("ChargeBeforeStart"), -5n)?.retryAfter, 1);
  });

  it("a period already over when simulated: NOT_DUE, ask again a block later for the next period", () => {
    const error = chargeRefusal(named("PeriodMismatch"), 0n);
    assert.equal(error?.code, "NOT_DUE");
    assert.equal(error?.retryAfter, 2);
  });

  it("the token's own reverts through the one table; one it does not list is RELAYER_ERROR naming it", () => {
    assert.equal(chargeRefusal(tokenSaid("Pausable: paused"), 0n)?.code, "TOKEN_PAUSED");
    assert.equal(chargeRefusal(tokenSaid("Blacklistable: account is blacklisted"), 0n)?.code, "ACCOUNT_BLOCKED");
    const odd = chargeRefusal(tokenSaid("something else"), 0n);
    assert.equal(odd?.code, "RELAYER_ERROR");
    assert.equal(odd?.detail, "unclassified token revert something else");
  });

  it("a revert of the contract's that no rule names is RELAYER_ERROR naming it", () => {
    const odd = chargeRefusal(named("InvalidConfiguration"), 0n);
    assert.equal(odd?.code, "RELAYER_ERROR");
    assert.equal(odd?.detail, "unexpected revert InvalidConfiguration");
  });

  it("a revert carrying no data names no refusal: RPC_ERROR, asked again, not a crash", () => {
    const bare = new ContractFunctionExecutionError(new ContractFunctionRevertedError({ abi: recurringChargesAbi, data: "0x", functionName: "charge" }), {
      abi: recurringChargesAbi,
      functionName: "charge",
      args: [],
    });
    assert.isNull(revertName(bare));
    assert.equal(chargeRefusal(bare, 0n)?.code, "RPC_ERROR");
  });

  it("no revert at all is the node's failure: RPC_ERROR, or RPC_BUSY when it is overloaded", () => {
    assert.equal(chargeRefusal(new Error("socket hang up"), 0n)?.code, "RPC_ERROR");
    assert.equal(chargeRefusal(new HttpRequestError({ url: "http://node", status: 429 }), 0n)?.code, "RPC_BUSY");
  });
});

describe("a batch item the contract skipped (skippedRefusal)", () => {
  it("answers as the same revert of a single charge", () => {
    assert.equal(skippedRefusal(revertData("InsufficientBalance"), 0n)?.code, "INSUFFICIENT_BALANCE");
    assert.equal(skippedRefusal(revertData("ChargeBeforeStart"), 9n)?.retryAfter, 9);
    assert.isNull(skippedRefusal(revertData("PeriodAlreadyCharged"), 0n));
  });

  it("an empty reason is an item that ran out of gas: RELAYER_ERROR saying so", () => {
    const error = skippedRefusal("0x", 0n);
    assert.equal(error?.code, "RELAYER_ERROR");
    assert.equal(error?.detail, "a batch item ran out of gas");
  });
});
