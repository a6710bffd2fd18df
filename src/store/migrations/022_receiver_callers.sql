-- Who first asked for a receiver (POST /v1/x402/receivers, the caller as the rate limits tell callers
-- apart): a caller holds a bounded number of receivers nobody funded yet (X402_UNFUNDED_RECEIVERS_PER_CALLER).
-- Receivers kept before this migration have no caller and count against nobody.
ALTER TABLE x402_receivers ADD COLUMN caller TEXT;
CREATE INDEX x402_receivers_unfunded_by_caller ON x402_receivers (caller, seen_at) WHERE funded_at IS NULL
