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

function rawData(error: BaseError): Hex | undefined {
  let found: Hex | undefined;
  error.walk((e) => {
    const data = (e as { data?: unknown }).data;
    if (typeof data === "string" && /^0x[0-9a-f]{8}/i.test(data)) found = data as Hex;
    else if (data && typeof data === "object" && typeof (data as { data?: unknown }).data === "string") found = (data as { data: Hex }).data;
    return false;
  });
  return found;
}

/** The raw revert data an eth_call's error carries ("0x" for a revert without data), or null when it carries none. */
export function revertData(error: unknown): string | null {
  let found: string | null = null;
  const walk = (e: unknown, depth: number) => {
    if (!e || typeof e !== "object" || depth > 8 || found !== null) return;
    const { data, cause } = e as { data?: unknown; cause?: unknown };
    if (typeof data === "string" && data.startsWith("0x")) found = data;
    else if (data && typeof data === "object" && typeof (data as { data?: unknown }).data === "string") found = (data as { data: string }).data;
    walk(cause, depth + 1);
  };
  walk(error, 0);
  return found;
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
