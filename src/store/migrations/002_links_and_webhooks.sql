-- Payment links: what is needed to mint payments through a link and to stop it.
CREATE TABLE links (
  link_id TEXT PRIMARY KEY,
  recipient TEXT NOT NULL,
  amount_units TEXT NOT NULL,
  notify_url TEXT,
  caller TEXT NOT NULL,
  -- Unix seconds.
  expires_at BIGINT NOT NULL,
  closed BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- What the watcher looks for: a payment reference or a subscription id, and where to say so.
-- `data` holds protocol fields only (an intent's recipient/amount/expiry, a subscription's terms
-- without the signature): never a capability, a balance or a customer.
CREATE TABLE watches (
  -- 'link': a link's own notify_url (key = link id); 'payment' and 'subscription': what the watcher matches.
  kind TEXT NOT NULL CHECK (kind IN ('payment', 'subscription', 'link')),
  key TEXT NOT NULL,
  notify_url TEXT NOT NULL,
  caller TEXT NOT NULL,
  link_id TEXT,
  data JSONB NOT NULL,
  -- Unix seconds: events in blocks after this are not announced.
  watch_until BIGINT NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX watches_caller ON watches (caller, watch_until);
CREATE INDEX watches_link ON watches (link_id);

-- How far the watcher has read, and the hash of that block (a changed hash means a reorg).
CREATE TABLE watcher_cursor (
  name TEXT PRIMARY KEY,
  block_number BIGINT NOT NULL,
  block_hash TEXT NOT NULL
);

-- The delivery queue. The event id is derived from the chain event, so an event enqueued twice is
-- one row, and every retry or duplicate carries the same id.
CREATE TABLE webhook_deliveries (
  event_id TEXT PRIMARY KEY,
  event_type TEXT NOT NULL,
  notify_url TEXT NOT NULL,
  payload JSONB NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  -- Unix milliseconds.
  next_attempt_at BIGINT NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dropped')),
  last_error TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
