/*
 * The type is the guarantee (issue 59): where a verdict is formed on a receipt, only an `Agreed`
 * receipt compiles. `npm run typecheck` reads this file: each `@ts-expect-error` below fails the
 * typecheck the day a raw receipt is accepted there. Never run; only compiled.
 */
import type { TransactionReceipt } from "viem";
import type { Agreed } from "../../src/chain/agreement.js";
import type { PayToTarget } from "../../src/x402/target.js";

export function rawReceiptsFormNoVerdict(target: PayToTarget, raw: TransactionReceipt, agreed: Agreed<TransactionReceipt>): boolean[] {
  return [
    // @ts-expect-error one node's receipt settles no x402 payment
    target.settledIn(raw),
    target.settledIn(agreed),
    // @ts-expect-error an Agreed value is made by the door alone
    target.settledIn({ ...raw } as TransactionReceipt & { agreed: true }),
  ];
}
