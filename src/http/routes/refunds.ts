import type { Hex } from "viem";
import type { Refunds } from "../../refunds/refunds.js";
import { route, type PostRoute } from "../route.js";
import { PrepareRefundRequest, RefundTokenRequest, VerifyRefundRequest } from "../schemas.js";

const identifier = (b: { tx_hash: string; intent?: string | undefined; subscription?: string | undefined; period_index?: number | undefined }) => ({
  txHash: b.tx_hash.toLowerCase() as Hex,
  ...(b.intent !== undefined ? { intent: b.intent } : {}),
  ...(b.subscription !== undefined ? { subscription: b.subscription } : {}),
  ...(b.period_index !== undefined ? { periodIndex: b.period_index } : {}),
});

export function refundRoutes(refunds: Refunds): PostRoute[] {
  return [
    route({ path: "/v1/refunds/prepare", schema: PrepareRefundRequest, handle: (b) => refunds.prepare(identifier(b), b.amount) }),
    route({ path: "/v1/refunds/resolve", schema: RefundTokenRequest, handle: (b) => refunds.resolve(b.refund_token) }),
    route({ path: "/v1/refunds/verify", schema: VerifyRefundRequest, handle: (b) => refunds.verify(identifier(b), b.refund_amount, b.refund_tx_hash.toLowerCase() as Hex) }),
  ];
}
