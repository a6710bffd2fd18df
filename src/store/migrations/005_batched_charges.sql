-- A batched renewal: one relayer transaction (chargeBatch) carries the charges of several
-- subscription periods, so several attempts share one nonce, one signed transaction and its hashes.
-- The nonce is still handed out once (relayer_nonces' row lock): the index stays, no longer unique.
DROP INDEX charge_attempts_relayer_nonce;
CREATE INDEX charge_attempts_relayer_nonce ON charge_attempts (relayer, nonce);
CREATE INDEX charge_attempts_tx_hash ON charge_attempts (tx_hash);
