import { REFUND_TOKEN_TTL_SECONDS } from "../capabilities.js";
import { Refunds } from "../refunds/refunds.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { PaymentsRoom } from "./payments.js";
import type { TokensRoom } from "./tokens.js";

/** Refunds of a payment or a charge, prepared from the chain's own record. */
export function refundsRoom({ now }: BaseRoom, needs: { chain: ChainRoom; tokens: TokensRoom; payments: PaymentsRoom }): Refunds {
  return new Refunds({
    chain: needs.chain.chain,
    depositAddresses: needs.payments.payments.depositAddresses,
    tokens: needs.tokens.tokens,
    subscriptions: needs.tokens.capabilities,
    ttlSeconds: REFUND_TOKEN_TTL_SECONDS,
    now,
  });
}
