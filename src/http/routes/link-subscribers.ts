import type { SubscriberStates } from "../../links/subscriber-states.js";
import { route, type PostRoute } from "../route.js";
import { LinkSubscribersRequest, LinkSubscribersResponse } from "../../wire/index.js";

/** POST /v1/links/subscribers: a link's subscribers with state and last charge, no capability (browser-safe, by its view token). */
export function linkSubscriberRoutes(states: Pick<SubscriberStates, "list">): PostRoute[] {
  return [
    route({
      path: "/v1/links/subscribers",
      summary: "A subscription link's subscribers with their state and last charge, without capabilities (browser-safe)",
      response: LinkSubscribersResponse,
      errors: ["INVALID_LINK_TOKEN", "WRONG_LINK_TOKEN", "RPC_ERROR", "RPC_BUSY"],
      schema: LinkSubscribersRequest,
      handle: (b, request) => states.list(b.view_token, b.after, request.ip),
    }),
  ];
}
