import type { Hex } from "viem";
import { parseAmount } from "../../money.js";
import type { Charges } from "../../recurring/charges.js";
import type { Subscriptions } from "../../recurring/subscriptions.js";
import type { Links } from "../../links/links.js";
import type { SubscriptionSessions } from "../../recurring/sessions.js";
import type { ChargeRecovery } from "../../recurring/charge-recovery.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";
import {
  ApproveTokenRequest,
  ChargeRecoverRequest,
  CreateSubscriptionRequest,
  EmptyRequest,
  FinalizeSubscriptionRequest,
  SetupTokenRequest,
  SubscriptionRequest,
} from "../../wire/index.js";

export function recurringRoutes(
  subscriptions: Subscriptions,
  sessions: SubscriptionSessions,
  charges: Charges,
  recovery: ChargeRecovery,
  links: Links,
): PostRoute[] {
  return [
    route({
      path: "/v1/subscriptions",
      summary: "Create subscription terms (setup token)",
      response: R.CreateSubscriptionResponse,
      errors: ["AMOUNT_OUT_OF_BOUNDS"],
      schema: CreateSubscriptionRequest,
      handle: (b, request) =>
        subscriptions.create({
          recipient: b.recipient as Hex,
          amountUnits: parseAmount(b.amount)!,
          period: b.period,
          end: b.end ?? 0,
          caller: request.ip,
          ...(b.notify_url !== undefined ? { notifyUrl: b.notify_url } : {}),
          ...(b.notify_included !== undefined ? { notifyIncluded: b.notify_included } : {}),
          ...(b.return_url !== undefined ? { returnUrl: b.return_url } : {}),
        }),
    }),
    route({
      path: "/v1/subscriptions/resolve",
      summary: "Resolve a setup token: terms and the exact typed data to sign",
      response: R.ResolveSubscriptionResponse,
      errors: ["INVALID_SETUP_TOKEN", "SETUP_TOKEN_EXPIRED", "AMOUNT_OUT_OF_BOUNDS", "LINK_CLOSED"],
      schema: SetupTokenRequest,
      // A subscription link's token mints a fresh setup for this visitor.
      handle: (b) => (links.owns(b.setup_token) ? links.resolveSubscription(b.setup_token) : subscriptions.resolve(b.setup_token)),
    }),
    route({
      path: "/v1/subscriptions/finalize",
      summary: "Check the payer's signature and return the subscription capability (merchant server only)",
      response: R.FinalizeSubscriptionResponse,
      errors: ["INVALID_SETUP_TOKEN", "INVALID_SIGNATURE", "UNSUPPORTED_SIGNATURE_FORMAT", "SIGNATURE_VALIDATION_TOO_EXPENSIVE", "RPC_ERROR", "RPC_BUSY"],
      schema: FinalizeSubscriptionRequest,
      handle: (b, request) =>
        subscriptions.finalize({ setupToken: b.setup_token, payer: b.payer as Hex, signature: b.signature.toLowerCase() as Hex, caller: request.ip }),
    }),
    route({
      path: "/v1/subscriptions/state",
      summary: "Read a subscription's state from the chain",
      response: R.SubscriptionStateResponse,
      errors: ["INVALID_SUBSCRIPTION", "INVALID_CANCEL_TOKEN", "CANCEL_TOKEN_EXPIRED", "RPC_ERROR", "RPC_BUSY"],
      schema: SubscriptionRequest,
      handle: (b) => subscriptions.state(b.subscription),
    }),
    route({
      path: "/v1/charges",
      summary: "Charge the current period (idempotent per period)",
      response: R.ChargeResponse,
      errors: [
        "INVALID_SUBSCRIPTION",
        "PERMISSION_REVOKED",
        "INVALID_SIGNATURE",
        "INSUFFICIENT_BALANCE",
        "INSUFFICIENT_ALLOWANCE",
        "TRANSACTION_REVERTED",
        "NOT_DUE",
        "SUBSCRIPTION_EXPIRED",
        "GAS_TOO_HIGH",
        "PAYMENT_ALREADY_PROCESSED",
        "CONCURRENCY_LIMIT",
        "GAS_QUOTE_UNAVAILABLE",
        "RELAYER_ERROR",
        "RELAYER_UNAVAILABLE",
        "ACCOUNT_BLOCKED",
        "TOKEN_PAUSED",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      schema: SubscriptionRequest,
      handle: (b) => charges.charge(b.subscription),
    }),
    route({
      path: "/v1/charges/recover",
      summary: "Find one period's charge on chain",
      response: R.ChargeRecoverResponse,
      errors: ["INVALID_SUBSCRIPTION", "PAYMENT_CONFIRMING", "PAYMENT_RECOVERY_INCONSISTENT", "RECOVERY_UNAVAILABLE", "RPC_ERROR", "RPC_BUSY"],
      schema: ChargeRecoverRequest,
      handle: (b) => recovery.recover(b.subscription, b.period_index),
    }),
    route({
      path: "/v1/subscriptions/approve/session",
      summary: "Mint a browser-safe approve token",
      response: R.ApproveSessionResponse,
      errors: ["INVALID_SUBSCRIPTION"],
      schema: SubscriptionRequest,
      handle: (b) => sessions.approveSession(b.subscription),
    }),
    route({
      path: "/v1/subscriptions/approve/resolve",
      summary: "Read an approve session",
      response: R.ApproveResolveResponse,
      errors: ["INVALID_APPROVE_TOKEN", "APPROVE_TOKEN_EXPIRED"],
      schema: ApproveTokenRequest,
      handle: (b) => sessions.approveResolve(b.approve_token),
    }),
    route({
      path: "/v1/subscriptions/revoke/session",
      summary: "Mint a browser-safe cancel token",
      response: R.RevokeSessionResponse,
      errors: ["INVALID_SUBSCRIPTION"],
      schema: SubscriptionRequest,
      handle: (b) => sessions.revokeSession(b.subscription),
    }),
    route({
      path: "/v1/subscriptions/revoke/prepare",
      summary: "Unsigned revoke calldata only the payer can send",
      response: R.RevokePrepareResponse,
      errors: ["INVALID_SUBSCRIPTION", "INVALID_CANCEL_TOKEN", "CANCEL_TOKEN_EXPIRED"],
      schema: SubscriptionRequest,
      handle: (b) => sessions.revokePrepare(b.subscription),
    }),
    route({
      path: "/v1/allowances/revoke/prepare",
      summary: "Unsigned approve(RecurringCharges, 0) calldata",
      response: R.AllowanceRevokePrepareResponse,
      errors: [],
      schema: EmptyRequest,
      handle: () => sessions.allowanceRevokePrepare(),
    }),
  ];
}
