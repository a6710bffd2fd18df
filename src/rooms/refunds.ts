import { REFUND_TOKEN_TTL_SECONDS } from "../capabilities.js";
import { Refunds } from "../refunds/refunds.js";
import { FairGate } from "../limits/fair-gate.js";

/** A caller's refund calls waiting at once (each may read the chain far back); past it, RPC_BUSY. */
const REFUNDS_WAITING_PER_CALLER = 4;
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { PaymentsRoom } from "./payments.js";
import type { TokensRoom } from "./tokens.js";

/** Refunds of a payment or a charge, prepared from the chain's own record. */
export function refundsRoom({ config, now }: BaseRoom, needs: { chain: ChainRoom; tokens: TokensRoom; payments: PaymentsRoom }): Refunds {
  return new Refunds({
    chain: needs.chain.chain,
    depositAddresses: needs.payments.payments.depositAddresses,
    tokens: needs.tokens.tokens,
    subscriptions: needs.tokens.capabilities,
    ttlSeconds: REFUND_TOKEN_TTL_SECONDS,
    now,
    // Each caller's prepares and verifies wait behind its own, as the payments list's pages do.
    gate: new FairGate(config.rateLimits.recoverConcurrency, REFUNDS_WAITING_PER_CALLER),
  });
}
