import type { Hex } from "viem";
import type { RequestHandler } from "express";
import { parseAmount } from "../../money.js";
import type { Payments } from "../../payments/payments.js";
import type { Links } from "../../links/links.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";
import { CreatePaymentRequest, IntentRequest, VerifyPaymentRequest } from "../../wire/index.js";

export function paymentRoutes(payments: Payments, links: Links, recoverLimit: RequestHandler): PostRoute[] {
  return [
    route({
      path: "/v1/payments",
      summary: "Create a payment intent",
      response: R.CreatePaymentResponse,
      errors: ["AMOUNT_OUT_OF_BOUNDS"],
      schema: CreatePaymentRequest,
      handle: (body, request) =>
        payments.create({
          recipient: body.recipient as Hex,
          amountUnits: parseAmount(body.amount)!,
          caller: request.ip,
          ...(body.notify_url !== undefined ? { notifyUrl: body.notify_url } : {}),
          ...(body.notify_included !== undefined ? { notifyIncluded: body.notify_included } : {}),
          ...(body.return_url !== undefined ? { returnUrl: body.return_url } : {}),
        }),
    }),
    route({
      path: "/v1/payments/resolve",
      summary: "Resolve an intent (or a link token) for the checkout; the only call that enforces expiry",
      response: R.ResolvePaymentResponse,
      errors: [
        "INVALID_INTENT",
        "INTENT_EXPIRED",
        "AMOUNT_OUT_OF_BOUNDS",
        "LINK_CLOSED",
        "PAYMENT_ALREADY_PROCESSED",
        "PAYMENT_CONFIRMING",
        "ACCOUNT_BLOCKED",
        "TOKEN_PAUSED",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      schema: IntentRequest,
      // A link token in `intent` (DESIGN.md) mints a fresh payment through the link.
      handle: (body) => (links.owns(body.intent) ? links.resolvePayment(body.intent) : payments.resolve(body.intent)),
    }),
    route({
      path: "/v1/payments/verify",
      summary: "Verify a transaction against the intent (200 with valid false and a code when it does not)",
      response: R.VerifyPaymentResponse,
      errors: ["INVALID_INTENT", "RPC_ERROR", "RPC_BUSY"],
      schema: VerifyPaymentRequest,
      handle: (body) => payments.verify(body.intent, body.tx_hash.toLowerCase() as Hex),
    }),
    route({
      path: "/v1/payments/recover",
      summary: "Find the intent's payment without a hash (limited; not for polling)",
      response: R.RecoverPaymentResponse,
      errors: ["INVALID_INTENT", "PAYMENT_RECOVERY_INCONSISTENT", "RECOVERY_UNAVAILABLE", "RPC_ERROR", "RPC_BUSY"],
      schema: IntentRequest,
      limits: [recoverLimit],
      handle: (body) => payments.recover(body.intent),
    }),
  ];
}
