import { z } from "zod";

/** RELAYER_BUDGET_WEI_PER_*: the most gas (in wei) the relayer spends an hour on work whose fee does not cover it (limits/relayer-budget.ts). */
export interface RelayerBudgetLimits {
  totalWei: bigint;
  perCallerWei: bigint;
  perPayerWei: bigint;
  perRecipientWei: bigint;
}

const wei = z.coerce.bigint().positive();

/**
 * RELAYER_BUDGET_WEI_PER_*: the relayer's hourly gas budget (in wei) for work whose fee does not cover
 * its gas (docs/configuration.md). Sized so a merchant's normal day never meets them: an authorization
 * costs about 150,000 gas, so at 0.1 gwei (ten times Base's usual fee cap) one recipient's 2e16 is
 * about 1,300 uncaptured holds an hour, one payer's 1e15 about 65.
 */
export const BUDGET_ENV = {
  RELAYER_BUDGET_WEI_PER_HOUR: wei.default(50_000_000_000_000_000n),
  RELAYER_BUDGET_WEI_PER_CALLER_HOUR: wei.default(2_000_000_000_000_000n),
  RELAYER_BUDGET_WEI_PER_PAYER_HOUR: wei.default(1_000_000_000_000_000n),
  RELAYER_BUDGET_WEI_PER_RECIPIENT_HOUR: wei.default(20_000_000_000_000_000n),
};

type BudgetEnv = { [K in keyof typeof BUDGET_ENV]: bigint };

export function budgetOf(e: BudgetEnv): RelayerBudgetLimits {
  return {
    totalWei: e.RELAYER_BUDGET_WEI_PER_HOUR,
    perCallerWei: e.RELAYER_BUDGET_WEI_PER_CALLER_HOUR,
    perPayerWei: e.RELAYER_BUDGET_WEI_PER_PAYER_HOUR,
    perRecipientWei: e.RELAYER_BUDGET_WEI_PER_RECIPIENT_HOUR,
  };
}
