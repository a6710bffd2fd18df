-- The x402 facilitator's two facts per payment address: whether a settle was already answered with
-- success (at most one request is told a payment paid), and whether an x402 settlement of it
-- reverted (the relayer pays for at most one such settlement per address).
ALTER TABLE deposit_watches ADD COLUMN x402_answered BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE deposit_watches ADD COLUMN x402_reverted BOOLEAN NOT NULL DEFAULT false;
