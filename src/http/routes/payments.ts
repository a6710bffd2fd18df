import type { Hex } from "viem";
import type { RequestHandler } from "express";
import { parseAmount } from "../../money.js";
import type { Payments } from "../../payments/payments.js";
import { route, type PostRoute } from "../route.js";
import { CreatePaymentRequest, IntentRequest, VerifyPaymentRequest } from "../schemas.js";

export function paymentRoutes(payments: Payments, recoverLimit: RequestHandler): PostRoute[] {
  return [
    route({
      path: "/v1/payments",
      schema: CreatePaymentRequest,
      handle: (body, request) =>
        payments.create({ recipient: body.recipient as Hex, amountUnits: parseAmount(body.amount)!, caller: request.ip, ...(body.notify_url !== undefined ? { notifyUrl: body.notify_url } : {}) }),
    }),
    route({ path: "/v1/payments/resolve", schema: IntentRequest, handle: (body) => payments.resolve(body.intent) }),
    route({ path: "/v1/payments/verify", schema: VerifyPaymentRequest, handle: (body) => payments.verify(body.intent, body.tx_hash.toLowerCase() as Hex) }),
    route({ path: "/v1/payments/recover", schema: IntentRequest, limits: [recoverLimit], handle: (body) => payments.recover(body.intent) }),
  ];
}
