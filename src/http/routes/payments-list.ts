import type { RequestHandler } from "express";
import type { PaymentsList } from "../../payments/payments-list.js";
import { route, type PostRoute } from "../route.js";
import { ListPaymentsRequest, ListPaymentsResponse } from "../../wire/index.js";

/** POST /v1/payments/list: a public read of the chain, limited per IP like recover, each IP's pages in a queue of their own. */
export function paymentsListRoutes(list: Pick<PaymentsList, "list">, limit: RequestHandler): PostRoute[] {
  return [
    route({
      path: "/v1/payments/list",
      summary: "The payments to a recipient, from the chain's logs, newest first, a bounded block range per page",
      response: ListPaymentsResponse,
      errors: ["RPC_ERROR", "RPC_BUSY"],
      schema: ListPaymentsRequest,
      limits: [limit],
      handle: (body, request) =>
        list.list(
          {
            recipient: body.recipient,
            ...(body.before_block !== undefined ? { beforeBlock: BigInt(body.before_block) } : {}),
            ...(body.limit !== undefined ? { limit: body.limit } : {}),
          },
          request.ip,
        ),
    }),
  ];
}
