import { SubscriptionCapabilities } from "../recurring/capabilities.js";
import { RecurringTokens } from "../recurring/tokens.js";
import { CapabilityTokens } from "../tokens/capability.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";

/** Capability tokens: minted and read with keys bound to this deployment. */
export interface TokensRoom {
  tokens: CapabilityTokens;
  recurringTokens: RecurringTokens;
  /** Reads subscription capabilities (recurring, refunds and webhooks' event read-back all do). */
  capabilities: SubscriptionCapabilities;
}

export function tokensRoom({ config, now }: BaseRoom, { deployment }: ChainRoom): TokensRoom {
  const tokens = new CapabilityTokens(
    {
      environment: deployment.environment,
      chainId: deployment.chainId,
      deployment: `${deployment.contracts.Splitter.address}:${deployment.contracts.RecurringCharges.address}`,
    },
    config.tokenKeys,
  );
  const recurringTokens = new RecurringTokens(tokens, deployment.token.address);
  const capabilities = new SubscriptionCapabilities(recurringTokens, deployment.chainId, deployment.contracts.RecurringCharges.address, now);
  return { tokens, recurringTokens, capabilities };
}
