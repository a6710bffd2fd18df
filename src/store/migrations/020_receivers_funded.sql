-- A merchant's receiver is "funded" once funds were seen arriving in it (the token's Transfer logs):
-- only funded receivers are walked by the splitter's backstop, and a receiver never funded is
-- forgotten X402_RECEIVER_IDLE_SECONDS after it was last registered (`seen_at`, ms), so that random
-- recipients posted by strangers cost nothing that lasts. Receivers kept before this migration are
-- taken as funded: nothing that may be in use is forgotten.
ALTER TABLE x402_receivers ADD COLUMN seen_at BIGINT;
ALTER TABLE x402_receivers ADD COLUMN funded_at BIGINT;
UPDATE x402_receivers SET seen_at = created_at, funded_at = created_at;
ALTER TABLE x402_receivers ALTER COLUMN seen_at SET NOT NULL;
CREATE INDEX x402_receivers_funded ON x402_receivers (receiver) WHERE funded_at IS NOT NULL;
CREATE INDEX x402_receivers_idle ON x402_receivers (seen_at) WHERE funded_at IS NULL
