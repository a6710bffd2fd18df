-- Payment addresses the service settles by itself: one row per payment whose address it watches,
-- from creation until the payment settles or the watch ends. No balance and no customer: the
-- payment's own public values (recipient, amount, reference), when to look again, and the relayer
-- transaction sent to settle it (its nonce comes from relayer_nonces, as a charge's does).
CREATE TABLE deposit_watches (
  deposit_address TEXT PRIMARY KEY,
  recipient TEXT NOT NULL,
  amount_units NUMERIC(78, 0) NOT NULL,
  reference TEXT NOT NULL,
  watch_until BIGINT NOT NULL,
  next_check_at BIGINT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open',
  tx_hash TEXT,
  raw_tx TEXT,
  relayer TEXT,
  nonce BIGINT,
  sent_at BIGINT
);
CREATE INDEX deposit_watches_due ON deposit_watches (status, next_check_at);
CREATE INDEX deposit_watches_relayer_nonce ON deposit_watches (relayer, nonce);
