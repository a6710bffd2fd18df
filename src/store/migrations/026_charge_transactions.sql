-- A charge transaction's signed bytes, kept once: a chargeBatch carries up to hundreds of periods, and
-- each period's row held its own copy of the whole transaction (tens of kilobytes each), so a wave of
-- 10,000 renewals wrote hundreds of megabytes and most of the store's CPU went to compressing them.
-- A period's row names its latest transaction by `tx_hash`; the bytes are here, one row per transaction.
CREATE TABLE charge_transactions (
  tx_hash TEXT PRIMARY KEY,
  raw_tx TEXT NOT NULL
);
INSERT INTO charge_transactions (tx_hash, raw_tx)
  SELECT DISTINCT ON (tx_hash) tx_hash, raw_tx FROM charge_attempts WHERE tx_hash <> '' ORDER BY tx_hash;
ALTER TABLE charge_attempts DROP COLUMN raw_tx;
