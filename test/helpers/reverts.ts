import { assert } from "chai";
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Abi, type Hex } from "viem";
import * as generated from "../../src/generated/contracts.js";

/** Every custom error any of our contracts (or the OpenZeppelin code they use) can raise. */
const ALL_ERRORS: Abi = Object.values(generated)
  .flatMap((abi) => abi as Abi)
  .filter((item) => item.type === "error")
  .filter((item, i, all) => all.findIndex((o) => JSON.stringify(o) === JSON.stringify(item)) === i);

/** The decoded custom error a failed call carries, or null when it carries none. */
export function revertOf(error: unknown): { errorName: string; args: readonly unknown[] } | null {
  if (!(error instanceof BaseError)) return null;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
    return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
  }
  const raw = (reverted as ContractFunctionRevertedError | null)?.raw ?? rawData(error);
  if (!raw) return null;
  try {
    const decoded = decodeErrorResult({ abi: ALL_ERRORS, data: raw });
    return { errorName: decoded.errorName, args: decoded.args ?? [] };
  } catch {
    return null;
  }
}

/**
 * The revert data an error and its causes carry, outermost first: each one's `data` string, or the
 * `data` string of its `data` object (`nested`).
 */
function carriedData(error: unknown): Array<{ data: string; nested: boolean }> {
  const carried: Array<{ data: string; nested: boolean }> = [];
  const seen = new Set<unknown>();
  for (let e = error; e && typeof e === "object" && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { data } = e as { data?: unknown };
    if (typeof data === "string") carried.push({ data, nested: false });
    else if (data && typeof data === "object" && typeof (data as { data?: unknown }).data === "string")
      carried.push({ data: (data as { data: string }).data, nested: true });
  }
  return carried;
}

/** The innermost revert data that names an error (a 4-byte selector at least), for decoding. */
function rawData(error: BaseError): Hex | undefined {
  return carriedData(error).findLast((c) => c.nested || /^0x[0-9a-f]{8}/i.test(c.data))?.data as Hex | undefined;
}

/** The raw revert data an eth_call's error carries ("0x" for a revert without data), or null when it carries none. */
export function revertData(error: unknown): string | null {
  return carriedData(error).find((c) => c.nested || c.data.startsWith("0x"))?.data ?? null;
}

/** Asserts that `action` reverts with the custom error `errorName` (and, when given, exactly `args`). */
export async function expectRevert(action: Promise<unknown>, errorName: string, args?: readonly unknown[]): Promise<readonly unknown[]> {
  let error: unknown;
  try {
    await action;
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected a revert with ${errorName}, but the call succeeded`);
  const decoded = revertOf(error);
  assert.ok(decoded, `expected a revert with ${errorName}, got: ${(error as Error).message.split("\n").slice(0, 3).join(" ")}`);
  assert.equal(decoded.errorName, errorName);
  if (args) assert.deepEqual(decoded.args, args);
  return decoded.args;
}
