-- One relayer transaction per (subscription, period), written before it is broadcast, so a repeated
-- or restarted charge finds it and never sends a second one.
CREATE TABLE charge_attempts (
  subscription_id TEXT NOT NULL,
  period_index BIGINT NOT NULL,
  tx_hash TEXT NOT NULL,
  -- The signed transaction, so a crash between recording and broadcasting can re-send the same one.
  raw_tx TEXT NOT NULL,
  relayer TEXT NOT NULL,
  nonce BIGINT NOT NULL,
  -- 'sent': not yet reported settled; 'reported': CHARGED was answered once.
  status TEXT NOT NULL CHECK (status IN ('sent', 'reported')),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, period_index)
);
