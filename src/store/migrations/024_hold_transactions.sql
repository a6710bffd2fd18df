-- The relayer's transactions to Commerce Payments' escrow, as the holds' operator (authorize, capture,
-- charge, void), recorded with their nonce before they are broadcast and followed until mined or
-- their nonce is taken by another transaction. `payment_hash` is the escrow's name for the hold
-- (protocol information, nothing of the merchant's): one operator call per hold in flight at a time.
CREATE TABLE hold_transactions (
  tx_hash TEXT PRIMARY KEY,
  relayer TEXT NOT NULL,
  nonce BIGINT NOT NULL,
  raw_tx TEXT NOT NULL,
  sent_at BIGINT NOT NULL,
  status TEXT NOT NULL DEFAULT 'sent',
  payment_hash TEXT NOT NULL,
  operation TEXT NOT NULL
);
CREATE INDEX hold_transactions_relayer_nonce ON hold_transactions (relayer, nonce);
CREATE INDEX hold_transactions_sent ON hold_transactions (status) WHERE status = 'sent';
CREATE INDEX hold_transactions_payment ON hold_transactions (payment_hash, status);
-- A hold made with a notify_url is watched like a payment (its place under the caps, until its
-- refund_before), keyed by its id; its authorization's payment hash joins its data (the escrow
-- indexes every later event by it).
ALTER TABLE watches DROP CONSTRAINT IF EXISTS watches_kind_check;
ALTER TABLE watches ADD CONSTRAINT watches_kind_check CHECK (kind IN ('payment', 'subscription', 'link', 'hold'));
CREATE INDEX watches_hold_payment ON watches ((data->>'payment_hash')) WHERE kind = 'hold';
