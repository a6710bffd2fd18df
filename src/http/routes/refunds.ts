import type { Hex } from "viem";
import type { Refunds } from "../../refunds/refunds.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";
import { PrepareRefundRequest, RefundTokenRequest, VerifyRefundRequest } from "../../wire/index.js";

const identifier = (b: {
  tx_hash: string;
  intent?: string | undefined;
  subscription?: string | undefined;
  period_index?: number | undefined;
  reference?: string | undefined;
  to?: string | undefined;
}) => ({
  txHash: b.tx_hash.toLowerCase() as Hex,
  ...(b.intent !== undefined ? { intent: b.intent } : {}),
  ...(b.subscription !== undefined ? { subscription: b.subscription } : {}),
  ...(b.period_index !== undefined ? { periodIndex: b.period_index } : {}),
  ...(b.reference !== undefined ? { reference: b.reference as Hex } : {}),
  ...(b.to !== undefined ? { to: b.to as Hex } : {}),
});

export function refundRoutes(refunds: Refunds): PostRoute[] {
  return [
    route({
      path: "/v1/refunds/prepare",
      summary: "Prepare a refund: terms derived from the chain, locked in a refund token",
      response: R.PrepareRefundResponse,
      errors: [
        "INVALID_INTENT",
        "INVALID_SUBSCRIPTION",
        "REFUND_AMOUNT_INVALID",
        "PAYMENT_NOT_FOUND",
        "PAYMENT_MISMATCH",
        "PAYMENT_CONFIRMING",
        "PAYER_UNKNOWN",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      schema: PrepareRefundRequest,
      handle: (b, request) => refunds.prepare(identifier(b), b.amount, request.ip),
    }),
    route({
      path: "/v1/refunds/resolve",
      summary: "Read a refund token (no chain read)",
      response: R.ResolveRefundResponse,
      errors: ["INVALID_REFUND_TOKEN", "REFUND_TOKEN_EXPIRED"],
      schema: RefundTokenRequest,
      handle: (b) => refunds.resolve(b.refund_token),
    }),
    route({
      path: "/v1/refunds/verify",
      summary: "Verify a refund transfer by its event",
      response: R.VerifyRefundResponse,
      errors: [
        "INVALID_INTENT",
        "INVALID_SUBSCRIPTION",
        "REFUND_AMOUNT_INVALID",
        "REFUND_TRANSACTION_MISMATCH",
        "REFUND_CONFIRMING",
        "PAYMENT_NOT_FOUND",
        "PAYMENT_MISMATCH",
        "PAYMENT_CONFIRMING",
        "PAYER_UNKNOWN",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      schema: VerifyRefundRequest,
      handle: (b, request) => refunds.verify(identifier(b), b.refund_amount, b.refund_tx_hash.toLowerCase() as Hex, request.ip),
    }),
  ];
}
