-- A link's subscribers' watches now count under the caps (each a place of the link's caller, as long
-- as its subscription is watched); only payments minted through a link do not. The counters are
-- recounted under that rule, so that pruning a subscriber's watch gives back a place it took.
UPDATE watch_counts SET active = 0;
INSERT INTO watch_counts (scope, active)
  SELECT 'caller:' || caller, count(*) FROM watches WHERE kind <> 'payment' OR link_id IS NULL GROUP BY caller
  ON CONFLICT (scope) DO UPDATE SET active = EXCLUDED.active;
INSERT INTO watch_counts (scope, active)
  SELECT 'total', count(*) FROM watches WHERE kind <> 'payment' OR link_id IS NULL
  ON CONFLICT (scope) DO UPDATE SET active = EXCLUDED.active;
