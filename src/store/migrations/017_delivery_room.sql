-- A lease changes only lease_until, which no index holds: with room left on the row's page the
-- update is HOT (a new version on the same page, no new entry in the table's seven indexes). Pages
-- filled to the brim by the enqueue's INSERTs left no room, so every lease wrote seven index entries
-- per row. Half of each new page is kept free for the lease and the acknowledgement.
ALTER TABLE webhook_deliveries SET (fillfactor = 50);
