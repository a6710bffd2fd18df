import type { RequestHandler } from "express";
import type { Address, Hex } from "viem";
import { DomainError } from "../../errors.js";
import { parseAmount } from "../../money.js";
import type { HoldsApi } from "../../holds/holds-api.js";
import * as R from "../../wire/index.js";
import { route, type PostRoute } from "../route.js";

/** The holds' endpoints (DESIGN v7, "Holds"); without an escrow in the deployment each answers INVALID_HOLD. */
export function holdRoutes(api: HoldsApi | null, limits: { list: RequestHandler }): PostRoute[] {
  const holds = () => {
    if (!api) throw new DomainError("INVALID_HOLD", { detail: "this deployment names no escrow for holds" });
    return api;
  };
  const amount = (text: string) => {
    const units = parseAmount(text);
    if (units === null) throw new DomainError("INVALID_REQUEST", { detail: "amount: a decimal amount" });
    return units;
  };
  const tokenErrors = ["INVALID_HOLD_TOKEN", "INVALID_HOLD"] as const;
  const sendErrors = ["HOLD_BUSY", "ESCROW_REFUSED", "RELAYER_UNAVAILABLE", "RELAYER_ERROR", "RPC_ERROR", "RPC_BUSY"] as const;
  return [
    route({
      path: "/v1/holds",
      summary: "Create a hold: the most that may be captured, the capture and refund deadlines",
      response: R.CreateHoldResponse,
      errors: ["AMOUNT_OUT_OF_BOUNDS", "INVALID_HOLD", "RELAYER_UNAVAILABLE", "RPC_ERROR"],
      schema: R.CreateHoldRequest,
      handle: (body, request) =>
        holds().holds.create({
          recipient: body.recipient as Address,
          amountUnits: amount(body.amount),
          captureBefore: body.capture_before,
          refundBefore: body.refund_before,
          caller: request.ip,
          ...(body.notify_url !== undefined ? { notifyUrl: body.notify_url } : {}),
        }),
    }),
    route({
      path: "/v1/holds/resolve",
      summary: "What the buyer signs to authorize a hold (reads the token only)",
      response: R.ResolveHoldResponse,
      errors: [...tokenErrors, "HOLD_EXPIRED", "RELAYER_UNAVAILABLE"],
      schema: R.ResolveHoldRequest,
      handle: (body) => holds().holds.resolve(body.hold, body.payer as Address),
    }),
    route({
      path: "/v1/holds/authorize",
      summary: "The buyer's signed authorization: the service sends the escrow's authorize (limited per IP and by the relayer's budget)",
      response: R.HoldSentResponse,
      errors: [
        ...tokenErrors,
        "HOLD_EXPIRED",
        "HOLD_ALREADY_AUTHORIZED",
        "INVALID_SIGNATURE",
        "TRANSACTION_REVERTED",
        "INSUFFICIENT_BALANCE",
        "ACCOUNT_BLOCKED",
        "TOKEN_PAUSED",
        "SIGNATURE_VALIDATION_TOO_EXPENSIVE",
        "RATE_LIMITED",
        "RELAYER_BUDGET_EXCEEDED",
        ...sendErrors,
      ],
      schema: R.AuthorizeHoldRequest,
      // The per-caller limit and the relayer's budget are the operator's (hold-rules.ts): x402's door meets them too.
      handle: (body, request) => holds().holds.authorize(body.hold, body.payer as Address, body.signature as Hex, request.ip),
    }),
    route({
      path: "/v1/holds/capture",
      summary: "Capture part or all of what is still authorized (repeatable), the fee to the fee collector",
      response: R.HoldSentResponse,
      errors: [...tokenErrors, "AMOUNT_OUT_OF_BOUNDS", "HOLD_AMOUNT_EXCEEDS_AUTHORIZED", "HOLD_EXPIRED", "HOLD_NOT_AUTHORIZED", "HOLD_CLOSED", ...sendErrors],
      schema: R.CaptureHoldRequest,
      handle: (body) => holds().holds.capture(body.hold, amount(body.amount)),
    }),
    route({
      path: "/v1/holds/void",
      summary: "Send everything still authorized back to the buyer",
      response: R.HoldSentResponse,
      errors: [...tokenErrors, "HOLD_NOT_AUTHORIZED", "HOLD_CLOSED", ...sendErrors],
      schema: R.HoldRequest,
      handle: (body, request) => holds().holds.void(body.hold, request.ip),
    }),
    route({
      path: "/v1/holds/refund",
      summary: "Prepare a refund of what was captured, sent from the merchant's wallet; with refund_tx_hash, verify it",
      response: R.RefundHoldResponse,
      errors: [
        ...tokenErrors,
        "HOLD_NOT_AUTHORIZED",
        "HOLD_EXPIRED",
        "REFUND_AMOUNT_INVALID",
        "REFUND_CONFIRMING",
        "REFUND_TRANSACTION_MISMATCH",
        "RPC_ERROR",
        "RPC_BUSY",
      ],
      schema: R.RefundHoldRequest,
      handle: (body) => holds().refund(body.hold, amount(body.amount), body.refund_tx_hash?.toLowerCase() as Hex | undefined),
    }),
    route({
      path: "/v1/holds/state",
      summary: "A hold as the chain holds it: its final steps, amounts, the call in flight, the buyer's reclaim once due",
      response: R.HoldStateResponse,
      errors: [...tokenErrors, "RPC_ERROR", "RPC_BUSY"],
      schema: R.HoldRequest,
      handle: (body) => holds().holds.state(body.hold),
    }),
    route({
      path: "/v1/holds/list",
      summary: "Extension: a recipient's holds from the escrow's events, for the merchant page (limited per IP)",
      response: R.ListHoldsResponse,
      errors: ["INVALID_HOLD", "RPC_ERROR"],
      schema: R.ListHoldsRequest,
      limits: [limits.list],
      handle: (body) => holds().list(body.recipient as Address, body.before_block !== undefined ? BigInt(body.before_block) : undefined),
    }),
  ];
}
