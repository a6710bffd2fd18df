-- Events a merchant can read back (POST /v1/events): the exact body delivered, in the order the
-- events were recorded (`seq`), filed under the capability that reads them: the payment's reference,
-- the link's id, the subscription's id. Rows written before this migration have no body (their
-- payload is sent as it is stored) and are read back by none of the three.
ALTER TABLE webhook_deliveries ADD COLUMN body TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN seq BIGSERIAL;
ALTER TABLE webhook_deliveries ADD COLUMN reference TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN link_id TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN subscription_id TEXT;
CREATE UNIQUE INDEX webhook_deliveries_seq ON webhook_deliveries (seq);
CREATE INDEX webhook_deliveries_reference ON webhook_deliveries (reference, seq) WHERE reference IS NOT NULL;
CREATE INDEX webhook_deliveries_link ON webhook_deliveries (link_id, seq) WHERE link_id IS NOT NULL;
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, seq) WHERE subscription_id IS NOT NULL;
-- Inclusion hints sent and not yet final (payment.included, subscription.charge_included): the
-- watcher checks each one's block against the chain until it is final (the row is deleted) or gone
-- (a retraction is enqueued, then the row is deleted).
CREATE TABLE included_hints (
  event_id TEXT PRIMARY KEY,
  block_number BIGINT NOT NULL,
  block_hash TEXT NOT NULL,
  notify_url TEXT NOT NULL,
  -- The retraction to enqueue if the block leaves the chain: its type, id and body.
  retraction_type TEXT NOT NULL,
  retraction_id TEXT NOT NULL,
  retraction JSONB NOT NULL,
  reference TEXT,
  link_id TEXT,
  subscription_id TEXT
);
CREATE INDEX included_hints_block ON included_hints (block_number)
;
-- Whether any watch asks for inclusion hints: the watcher reads the blocks above the finality head only then.
CREATE INDEX watches_included ON watches (kind) WHERE (data->>'included') = 'true'
