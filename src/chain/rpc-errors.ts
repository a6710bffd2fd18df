import { BaseError, HttpRequestError, LimitExceededRpcError, TimeoutError } from "viem";
import { DomainError } from "../errors.js";

/**
 * Maps a failure of a chain read to the service's errors: overload and timeouts are RPC_BUSY (503),
 * anything else (node errors, garbage, refused connections) RPC_ERROR (502). Both are retryable.
 * A failure is never turned into a verdict.
 */
export function toRpcError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const busy =
    error instanceof BaseError &&
    error.walk(
      (e) => e instanceof TimeoutError || e instanceof LimitExceededRpcError || (e instanceof HttpRequestError && (e.status === 429 || e.status === 503)),
    ) !== null;
  return new DomainError(busy ? "RPC_BUSY" : "RPC_ERROR", { cause: error });
}

/** Runs a chain read, mapping any failure with {@link toRpcError}. */
export async function rpc<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw toRpcError(error);
  }
}
