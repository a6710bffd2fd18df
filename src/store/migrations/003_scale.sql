-- Watch caps in O(1): one counter per caller and one for the total, kept in the same transaction as
-- the watches they count (a link's own watch and payments made without a link; payments minted
-- through a link do not count again). Expired watches are pruned, decrementing the counters.
CREATE TABLE watch_counts (
  -- 'caller:<caller>' or 'total'.
  scope TEXT PRIMARY KEY,
  active BIGINT NOT NULL CHECK (active >= 0)
);
INSERT INTO watch_counts (scope, active)
  SELECT 'caller:' || caller, count(*) FROM watches WHERE kind = 'link' OR link_id IS NULL GROUP BY caller;
INSERT INTO watch_counts (scope, active)
  SELECT 'total', count(*) FROM watches WHERE kind = 'link' OR link_id IS NULL;
CREATE INDEX watches_until ON watches (watch_until);

-- The watcher's cursor also keeps its block's timestamp: a watch that ended before it can match
-- nothing more and is pruned.
ALTER TABLE watcher_cursor ADD COLUMN block_time BIGINT NOT NULL DEFAULT 0;

-- Delivered and dropped events are pruned after a retention period (by their last attempt).
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (next_attempt_at) WHERE status <> 'pending';
-- Deliveries per target: a slow receiver holds only its own slots.
ALTER TABLE webhook_deliveries ADD COLUMN target TEXT NOT NULL DEFAULT '';
UPDATE webhook_deliveries SET target = lower(substring(notify_url from '^[a-zA-Z]+://([^/?#]+)'));
CREATE INDEX webhook_deliveries_target ON webhook_deliveries (target) WHERE status = 'pending';

-- Rate-limit windows shared by every instance on one PostgreSQL (an abuse ceiling across instances).
CREATE TABLE rate_windows (
  key TEXT PRIMARY KEY,
  -- Unix milliseconds.
  window_start BIGINT NOT NULL,
  hits BIGINT NOT NULL
);
CREATE INDEX rate_windows_start ON rate_windows (window_start);
