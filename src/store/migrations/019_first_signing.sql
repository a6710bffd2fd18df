-- Each event's first signing (its first attempt's, or a read-back's before any attempt): POST
-- /v1/events answers these headers for good, the same as delivered, rather than signing afresh at
-- every read (which handed whoever holds a capability fresh timestamps for old events).
ALTER TABLE webhook_deliveries ADD COLUMN signed_at BIGINT;
ALTER TABLE webhook_deliveries ADD COLUMN signature TEXT
