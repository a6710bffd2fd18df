import type { Hex } from "viem";
import { parseAmount } from "../../money.js";
import type { Charges } from "../../recurring/charges.js";
import type { Subscriptions } from "../../recurring/subscriptions.js";
import { route, type PostRoute } from "../route.js";
import {
  ApproveTokenRequest,
  ChargeRecoverRequest,
  CreateSubscriptionRequest,
  EmptyRequest,
  FinalizeSubscriptionRequest,
  SetupTokenRequest,
  SubscriptionRequest,
} from "../schemas.js";

export function recurringRoutes(subscriptions: Subscriptions, charges: Charges): PostRoute[] {
  return [
    route({
      path: "/v1/subscriptions",
      schema: CreateSubscriptionRequest,
      handle: (b, request) =>
        subscriptions.create({ recipient: b.recipient as Hex, amountUnits: parseAmount(b.amount)!, period: b.period, end: b.end ?? 0, caller: request.ip, ...(b.notify_url !== undefined ? { notifyUrl: b.notify_url } : {}), ...(b.return_url !== undefined ? { returnUrl: b.return_url } : {}) }),
    }),
    route({ path: "/v1/subscriptions/resolve", schema: SetupTokenRequest, handle: (b) => subscriptions.resolve(b.setup_token) }),
    route({
      path: "/v1/subscriptions/finalize",
      schema: FinalizeSubscriptionRequest,
      handle: (b, request) => subscriptions.finalize({ setupToken: b.setup_token, payer: b.payer as Hex, signature: b.signature.toLowerCase() as Hex, caller: request.ip }),
    }),
    route({ path: "/v1/subscriptions/state", schema: SubscriptionRequest, handle: (b) => subscriptions.state(b.subscription) }),
    route({ path: "/v1/charges", schema: SubscriptionRequest, handle: (b) => charges.charge(b.subscription) }),
    route({ path: "/v1/charges/recover", schema: ChargeRecoverRequest, handle: (b) => charges.recover(b.subscription, b.period_index) }),
    route({ path: "/v1/subscriptions/approve/session", schema: SubscriptionRequest, handle: (b) => subscriptions.approveSession(b.subscription) }),
    route({ path: "/v1/subscriptions/approve/resolve", schema: ApproveTokenRequest, handle: (b) => subscriptions.approveResolve(b.approve_token) }),
    route({ path: "/v1/subscriptions/revoke/session", schema: SubscriptionRequest, handle: (b) => subscriptions.revokeSession(b.subscription) }),
    route({ path: "/v1/subscriptions/revoke/prepare", schema: SubscriptionRequest, handle: (b) => subscriptions.revokePrepare(b.subscription) }),
    route({ path: "/v1/allowances/revoke/prepare", schema: EmptyRequest, handle: () => subscriptions.allowanceRevokePrepare() }),
  ];
}
