-- x402's own room. Its answers leave deposit_watches: one row per settled x402 payment, keyed by its
-- subject (a payment address for a per-intent payTo, `payer:nonce` for an authorization paid to a
-- merchant's receiver), written only by a settle request (an unpaid 402 writes nothing). `answer`:
-- a settle request's reservation `reserved:<token>` taken before it sends the settlement, with
-- `reserved_at` by the database's clock, or `answered`; at most one request is told a payment paid.
CREATE TABLE x402_answers (
  subject TEXT PRIMARY KEY,
  answer TEXT,
  reserved_at BIGINT,
  created_at BIGINT NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint
);
INSERT INTO x402_answers (subject, answer, reserved_at)
  SELECT deposit_address, x402_answer, x402_reserved_at FROM deposit_watches WHERE x402_answer IS NOT NULL;
ALTER TABLE deposit_watches DROP COLUMN x402_answer;
ALTER TABLE deposit_watches DROP COLUMN x402_reserved_at;
-- Merchants' receivers (POST /v1/x402/receivers, or a settlement to one): one row per receiver, never
-- one per request; the receiver splitter looks at these for funds that arrived outside a settlement.
CREATE TABLE x402_receivers (
  receiver TEXT PRIMARY KEY,
  recipient TEXT NOT NULL,
  token TEXT NOT NULL,
  created_at BIGINT NOT NULL DEFAULT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint
);
-- The relayer's transactions to X402Receivers (settlements and splits), recorded with their nonce
-- before they are broadcast, followed until mined or their nonce is taken by another transaction.
CREATE TABLE x402_transactions (
  tx_hash TEXT PRIMARY KEY,
  relayer TEXT NOT NULL,
  nonce BIGINT NOT NULL,
  raw_tx TEXT NOT NULL,
  sent_at BIGINT NOT NULL,
  status TEXT NOT NULL DEFAULT 'sent'
);
CREATE INDEX x402_transactions_relayer_nonce ON x402_transactions (relayer, nonce);
CREATE INDEX x402_transactions_sent ON x402_transactions (status) WHERE status = 'sent'
