-- A `Paid` log's payment key derives its payment address (CREATE2 of the Splitter, the key and the
-- forwarder's code hash), so a settled payment's watch is found by its primary key: the payment_key
-- column and its index go, and a create writes one index entry (the address) instead of two.
ALTER TABLE deposit_watches DROP COLUMN payment_key;
