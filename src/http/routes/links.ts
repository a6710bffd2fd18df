import type { Hex } from "viem";
import { parseAmount } from "../../money.js";
import type { Links } from "../../links/links.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";
import { CloseLinkRequest, CreateLinkRequest } from "../../wire/index.js";

export function linkRoutes(links: Links): PostRoute[] {
  return [
    route({
      path: "/v1/links",
      summary: "Create a payment link",
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
        }),
    }),
    route({
      path: "/v1/links/close",
      summary: "Close a payment link and its watch",
      response: R.CloseLinkResponse,
      errors: ["INVALID_LINK_TOKEN"],
      schema: CloseLinkRequest,
      handle: (b) => links.close(b.manage_token),
    }),
  ];
}
