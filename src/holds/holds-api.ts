import type { Address, Hex } from "viem";
import type { ListHoldsResponse, RefundHoldResponse } from "../wire/holds.js";
import type { Holds } from "./holds.js";

/** What the holds' routes call: the holds, their refunds and the merchant page's list. */
export interface HoldsApi {
  holds: Holds;
  refund(token: string, amountUnits: bigint, refundTxHash?: Hex): Promise<RefundHoldResponse>;
  list(recipient: Address, beforeBlock?: bigint): Promise<ListHoldsResponse>;
}
