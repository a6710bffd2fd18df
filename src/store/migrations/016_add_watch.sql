-- A watch and its places under the caps in one statement. add_watch inserts (or renews) the watch
-- and, for a new counted one, takes a place for its caller and one in the total (in that order, as
-- every writer does); with no room it raises SQLSTATE SVNRM, so the statement writes nothing. One
-- round trip to the store instead of a transaction's five (begin, insert, two places, commit): a
-- create with a notify_url does not hold the store's one transaction slot across them.
CREATE FUNCTION add_watch(
  p_kind TEXT, p_key TEXT, p_notify_url TEXT, p_caller TEXT, p_link_id TEXT, p_data JSONB, p_watch_until BIGINT,
  p_counted BOOLEAN, p_per_caller_cap BIGINT, p_total_cap BIGINT
) RETURNS VOID LANGUAGE plpgsql AS $$
DECLARE
  inserted BOOLEAN;
BEGIN
  INSERT INTO watches (kind, key, notify_url, caller, link_id, data, watch_until)
    VALUES (p_kind, p_key, p_notify_url, p_caller, p_link_id, p_data, p_watch_until)
    ON CONFLICT (kind, key) DO UPDATE SET notify_url = EXCLUDED.notify_url, watch_until = EXCLUDED.watch_until
    RETURNING (xmax = 0) INTO inserted;
  IF NOT inserted OR NOT p_counted THEN
    RETURN;
  END IF;
  INSERT INTO watch_counts (scope, active) SELECT 'caller:' || p_caller, 1 WHERE 1 <= p_per_caller_cap
    ON CONFLICT (scope) DO UPDATE SET active = watch_counts.active + 1 WHERE watch_counts.active < p_per_caller_cap;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no room under the watch caps' USING ERRCODE = 'SVNRM';
  END IF;
  INSERT INTO watch_counts (scope, active) SELECT 'total', 1 WHERE 1 <= p_total_cap
    ON CONFLICT (scope) DO UPDATE SET active = watch_counts.active + 1 WHERE watch_counts.active < p_total_cap;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no room under the watch caps' USING ERRCODE = 'SVNRM';
  END IF;
END
$$;
