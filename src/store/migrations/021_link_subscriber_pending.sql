-- A subscriber through a link is pending until its first charge is settled: it holds no watch and is
-- not listed for renewals until then. One pending row per payer and link (the partial unique index);
-- a pending row is dropped when its first charge is refused or once pending_until (unix seconds) passes.
ALTER TABLE link_subscriptions ADD COLUMN state TEXT NOT NULL DEFAULT 'active';
ALTER TABLE link_subscriptions ADD COLUMN pending_until BIGINT;
CREATE UNIQUE INDEX link_subscriptions_one_pending_per_payer ON link_subscriptions (link_id, payer) WHERE state = 'pending';
CREATE INDEX link_subscriptions_pending ON link_subscriptions (link_id) WHERE state = 'pending';
