-- Every hash a payment address's settlement was sent under (the first send and each fee replacement,
-- same nonce, same call), oldest first, like a charge attempt's tx_hashes: whichever of them the chain
-- mines is the settlement, so each is followed, not only the latest.
ALTER TABLE deposit_watches ADD COLUMN tx_hashes TEXT[];
UPDATE deposit_watches SET tx_hashes = ARRAY[tx_hash] WHERE tx_hash IS NOT NULL;
