-- The x402 facilitator's facts. Per payment address: who is answered success for its payment
-- (`x402_answer`: NULL, a settle request's reservation `reserved:<token>` taken before it sends the
-- settlement, with `x402_reserved_at` by the database's clock, or `answered`), so at most one request is told a payment paid and a stranger who
-- rebuilds the request from the chain cannot take the answer from the request that paid.
-- Per payer: an x402 settlement of theirs reverted on chain after its simulation passed, so the
-- relayer sends none of theirs for a while (a payer whose code answers a simulation one way and the
-- chain another would otherwise make it pay for one reverted settlement per payment address).
ALTER TABLE deposit_watches ADD COLUMN x402_answer TEXT;
ALTER TABLE deposit_watches ADD COLUMN x402_reserved_at BIGINT;
-- Contract payers with an x402 settlement on its way (one at a time each, so a payer whose code passes
-- a simulation and reverts on chain costs one settlement before it is refused, not one per request).
CREATE TABLE x402_payers_in_flight (
  payer TEXT PRIMARY KEY,
  since BIGINT NOT NULL
);
CREATE TABLE x402_reverted_payers (
  payer TEXT PRIMARY KEY,
  refused_until BIGINT NOT NULL
);
