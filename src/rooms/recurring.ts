import { ConcurrencyGate } from "../limits/rate-limiter.js";
import { ChargeRecovery } from "../recurring/charge-recovery.js";
import { Charges } from "../recurring/charges.js";
import { SubscriptionSessions } from "../recurring/sessions.js";
import { StuckCharges } from "../recurring/stuck-charges.js";
import { Subscriptions } from "../recurring/subscriptions.js";
import { ChargeAttempts } from "../store/charge-attempts.js";
import { RefusedChargePayers } from "../store/refused-charge-payers.js";
import type { Webhooks } from "../webhooks/webhooks.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";
import type { RelayerRoom } from "./relayer.js";
import type { StoreRoom } from "./store.js";
import type { TokensRoom } from "./tokens.js";

/** Subscriptions and their charges: terms, browser sessions, the relayer's charges, their recovery and the stuck-transaction sweeper. */
export interface RecurringRoom {
  subscriptions: Subscriptions;
  sessions: SubscriptionSessions;
  charges: Charges;
  chargeRecovery: ChargeRecovery;
  /** Replaces charges left unmined (started by listen). */
  stuckCharges: StuckCharges;
}

export function recurringRoom(
  { config, now, randomBytes }: BaseRoom,
  needs: { chain: ChainRoom; store: StoreRoom; tokens: TokensRoom; relayer: RelayerRoom; webhooks: Webhooks },
): RecurringRoom {
  const { chain } = needs.chain;
  const { recurringTokens, capabilities } = needs.tokens;
  const { relayer, pricing } = needs.relayer;
  const { database } = needs.store;
  const subscriptions = new Subscriptions({
    ...chain,
    tokens: recurringTokens,
    capabilities,
    settings: { ...config.recurring, maxAmountUnits: config.payments.maxUnits },
    pricing,
    webhooks: needs.webhooks,
    now,
    randomBytes,
    localChain: config.localChain,
  });
  const sessions = new SubscriptionSessions({ ...chain, tokens: recurringTokens, capabilities, settings: config.recurring, now });
  const attempts = new ChargeAttempts(database);
  const charges = new Charges({
    ...chain,
    capabilities,
    attempts,
    relayer,
    pricing,
    gate: new ConcurrencyGate(config.relayer.concurrency, config.relayer.queue),
    now,
    batch: config.relayer.batch,
    refusedPayers: new RefusedChargePayers(database),
  });
  return {
    subscriptions,
    sessions,
    charges,
    chargeRecovery: new ChargeRecovery({ ...chain, capabilities }),
    stuckCharges: new StuckCharges({ client: chain.client, attempts, relayer, pricing, now }),
  };
}
