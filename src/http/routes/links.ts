import type { Hex } from "viem";
import { parseAmount } from "../../money.js";
import type { Links } from "../../links/links.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";
import {
  CloseLinkRequest,
  CreateLinkRequest,
  LinkSubscriptionsRequest,
  LinkViewTokenRequest,
  RemoveLinkSubscriberRequest,
  SubscribeLinkRequest,
} from "../../wire/index.js";

export function linkRoutes(links: Links): PostRoute[] {
  return [
    route({
      path: "/v1/links",
      summary: "Create a payment link, or with a period a subscription link",
      response: R.CreateLinkResponse,
      errors: ["AMOUNT_OUT_OF_BOUNDS"],
      schema: CreateLinkRequest,
      handle: (b, request) =>
        links.create({
          recipient: b.recipient as Hex,
          amountUnits: parseAmount(b.amount)!,
          caller: request.ip,
          ...(b.expires_at !== undefined ? { expiresAt: b.expires_at } : {}),
          ...(b.notify_url !== undefined ? { notifyUrl: b.notify_url } : {}),
          ...(b.notify_included !== undefined ? { notifyIncluded: b.notify_included } : {}),
          ...(b.return_url !== undefined ? { returnUrl: b.return_url } : {}),
          ...(b.period !== undefined ? { subscription: { period: b.period, end: b.end ?? 0 } } : {}),
        }),
    }),
    route({
      path: "/v1/links/close",
      summary: "Close a payment link and its watch",
      response: R.CloseLinkResponse,
      errors: ["INVALID_LINK_TOKEN", "WRONG_LINK_TOKEN"],
      schema: CloseLinkRequest,
      handle: (b) => links.close(b.manage_token),
    }),
    route({
      path: "/v1/links/subscribe",
      summary: "Subscribe through a subscription link (the capability stays with the link)",
      response: R.SubscribeLinkResponse,
      errors: [
        "INVALID_SETUP_TOKEN",
        "SETUP_TOKEN_EXPIRED",
        "LINK_CLOSED",
        "INVALID_SIGNATURE",
        "UNSUPPORTED_SIGNATURE_FORMAT",
        "SIGNATURE_VALIDATION_TOO_EXPENSIVE",
        "INSUFFICIENT_ALLOWANCE",
        "INSUFFICIENT_BALANCE",
        "CONCURRENCY_LIMIT",
        "PERMISSION_REVOKED",
        "TRANSACTION_REVERTED",
        "NOT_DUE",
        "GAS_QUOTE_UNAVAILABLE",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      schema: SubscribeLinkRequest,
      handle: (b) => links.subscribe({ setupToken: b.setup_token, payer: b.payer as Hex, signature: b.signature.toLowerCase() as Hex }),
    }),
    route({
      path: "/v1/links/subscriptions",
      summary: "List a subscription link's active subscribers with their capabilities (merchant server only)",
      response: R.LinkSubscriptionsResponse,
      errors: ["INVALID_LINK_TOKEN", "WRONG_LINK_TOKEN"],
      schema: LinkSubscriptionsRequest,
      handle: (b) => links.subscriptions(b.manage_token, b.after),
    }),
    route({
      path: "/v1/links/subscribers/remove",
      summary: "Remove a subscriber of a subscription link (its listing and its watch; the subscription is the payer's to revoke)",
      response: R.RemoveLinkSubscriberResponse,
      errors: ["INVALID_LINK_TOKEN", "WRONG_LINK_TOKEN"],
      schema: RemoveLinkSubscriberRequest,
      handle: (b) => links.removeSubscriber(b.manage_token, b.subscription_id.toLowerCase() as Hex),
    }),
    route({
      path: "/v1/links/view-token",
      summary: "The link's read-only view token (what the merchant page asks for), from its manage token",
      response: R.LinkViewTokenResponse,
      errors: ["INVALID_LINK_TOKEN", "WRONG_LINK_TOKEN"],
      schema: LinkViewTokenRequest,
      handle: (b) => links.viewToken(b.manage_token),
    }),
  ];
}
