-- Subscription links: a link with a period (and an end) hands each visitor fresh subscription terms.
ALTER TABLE links ADD COLUMN period BIGINT;
-- Unix seconds, exclusive; 0 = no end. Set with period.
ALTER TABLE links ADD COLUMN subscription_end BIGINT;

-- The subscribers of a subscription link, one row per subscription. The capability that charges is
-- kept for the merchant (who lists it with the manage token), sealed with a key derived from
-- TOKEN_KEYS (AES-256-GCM, bound to link and subscription): never in the clear.
CREATE TABLE link_subscriptions (
  seq BIGSERIAL PRIMARY KEY,
  link_id TEXT NOT NULL,
  subscription_id TEXT NOT NULL,
  payer TEXT NOT NULL,
  capability_sealed TEXT NOT NULL,
  -- Unix seconds.
  created_at BIGINT NOT NULL,
  UNIQUE (link_id, subscription_id)
);
