import { BaseError } from "viem";

/**
 * What nodes answer for a block range that ends past their head (geth's "block range extends beyond
 * current head block", "header not found", reth's and providers' "block range exceeds head", an
 * unknown block): the blocks are not there yet on that node, which says nothing of the range's size.
 */
const NOT_YET =
  /beyond (the )?(current )?head|exceeds? (the )?(current |latest )?(head|block)|header not found|unknown block|block not found|after last accepted block|future block/i;

/** Whether a node's refusal of a log read means the range is past its head ("not yet"), rather than too large. */
export function isNotYet(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const text = error instanceof BaseError ? `${error.details ?? ""} ${error.shortMessage} ${error.message}` : error.message;
  if (NOT_YET.test(text)) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isNotYet(cause);
}

/** A log read whose range ends past every asked node's head: read again later, never halved. */
export class NotYetError extends Error {
  constructor(readonly cause: unknown) {
    super("the range ends past the node's head");
  }
}
