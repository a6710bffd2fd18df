import type { Address, Hex } from "viem";
import type { ReceiverDirectory } from "../../x402/receivers.js";
import type { settlementVerdict } from "../../x402/verdict.js";
import { route, type PostRoute } from "../route.js";
import * as R from "../../wire/index.js";

export interface X402Domains {
  receivers: Pick<ReceiverDirectory, "describe">;
  verdict: (q: Parameters<typeof settlementVerdict>[1]) => ReturnType<typeof settlementVerdict>;
}

/** The merchant's x402 endpoints in this API's model (the facilitator itself is src/http/x402.ts, in x402's shapes). */
export function x402Routes(d: X402Domains): PostRoute[] {
  return [
    route({
      path: "/v1/x402/receivers",
      summary: "A merchant's x402 receiver: the static payTo of its x402 routes (deterministic, no capability)",
      response: R.X402ReceiverResponse,
      errors: ["INVALID_REQUEST", "RPC_ERROR", "RPC_BUSY"],
      schema: R.X402ReceiverRequest,
      handle: (b, { ip }) => d.receivers.describe(b.recipient as Address, ip),
    }),
    route({
      path: "/v1/x402/verify-settlement",
      summary: "The final verdict of an x402 settlement to a receiver, by its transaction and the authorization's nonce",
      response: R.X402SettlementVerdictResponse,
      errors: ["RPC_ERROR", "RPC_BUSY"],
      schema: R.X402SettlementVerdictRequest,
      handle: (b) => d.verdict({ txHash: b.tx_hash.toLowerCase() as Hex, nonce: b.nonce.toLowerCase() as Hex, recipient: b.recipient as Address }),
    }),
  ];
}
