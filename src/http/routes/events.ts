import type { RequestHandler } from "express";
import type { EventLog } from "../../webhooks/events.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";

export function eventRoutes(events: EventLog, eventsLimit: RequestHandler): PostRoute[] {
  return [
    route({
      path: "/v1/events",
      summary: "Read back a capability's webhook events, delivered or not, oldest first (limited; for recovery, not for polling)",
      response: R.EventsResponse,
      errors: ["INVALID_INTENT", "INVALID_LINK_TOKEN", "INVALID_SUBSCRIPTION", "INVALID_HOLD_TOKEN"],
      schema: R.EventsRequest,
      limits: [eventsLimit],
      handle: (body) => events.list(body),
    }),
  ];
}
