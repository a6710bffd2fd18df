-- Payment addresses are found funded from the token's Transfer logs, not by polling every open
-- address, and leave the open set when the Splitter's Paid for their payment key is final.
-- `payment_key` is what a Paid log names (keccak256 of token, recipient, amount, reference).
ALTER TABLE deposit_watches ADD COLUMN payment_key TEXT;
CREATE INDEX deposit_watches_payment_key ON deposit_watches (payment_key);
-- `next_check_at` is now only a retry (a deposit whose settlement could not be sent, or whose
-- settlement reverted): NULL for a watch nothing is owed to. Rows from before keep their value, so
-- each is looked at once more after the upgrade (a deposit that arrived meanwhile is not missed).
ALTER TABLE deposit_watches ALTER COLUMN next_check_at DROP NOT NULL;
-- Partial indexes: a new watch (open, no retry, no transaction) adds an entry to none of them, so a
-- create pays for the primary key and the payment key only.
DROP INDEX deposit_watches_due;
CREATE INDEX deposit_watches_retry ON deposit_watches (next_check_at) WHERE status = 'open' AND next_check_at IS NOT NULL;
CREATE INDEX deposit_watches_sent ON deposit_watches (sent_at) WHERE status = 'sent';
DROP INDEX deposit_watches_relayer_nonce;
CREATE INDEX deposit_watches_relayer_nonce ON deposit_watches (relayer, nonce) WHERE relayer IS NOT NULL;
-- Where the deposit settler's log reads stand, shared by every instance and kept across restarts:
-- 'transfers' (the token's Transfer logs, read up to the latest block, a few blocks re-read each
-- round) and 'paid' (the Splitter's Paid logs, read up to the finality head).
CREATE TABLE deposit_scan (
  name TEXT PRIMARY KEY,
  block_number BIGINT NOT NULL
);
