-- Relayer nonces allocated in the store, so several instances can share one relayer key: the row is
-- locked only while a nonce is taken and the signed transaction recorded (no chain call inside).
CREATE TABLE relayer_nonces (
  relayer TEXT PRIMARY KEY,
  -- The next nonce this store hands out (the chain's pending count may be higher: it wins).
  next_nonce BIGINT NOT NULL
);

-- Every hash an attempt was sent with (a stuck transaction is replaced with a higher fee: same nonce,
-- same call, a new hash); status reads check all of them. `tx_hash` / `raw_tx` are the latest.
ALTER TABLE charge_attempts ADD COLUMN tx_hashes TEXT[] NOT NULL DEFAULT '{}';
UPDATE charge_attempts SET tx_hashes = ARRAY[tx_hash];
-- Unix milliseconds of the latest (re)send: a transaction unmined long after it is replaced.
ALTER TABLE charge_attempts ADD COLUMN sent_at BIGINT NOT NULL DEFAULT 0;
-- One transaction per nonce and relayer: a nonce is never handed out twice.
CREATE UNIQUE INDEX charge_attempts_relayer_nonce ON charge_attempts (relayer, nonce);
CREATE INDEX charge_attempts_sent ON charge_attempts (status, sent_at);
