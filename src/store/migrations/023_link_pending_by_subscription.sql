-- The follower's Charged logs name subscriptions, not links: a pending subscriber is found by its
-- subscription id to be made active once its first charge is final.
CREATE INDEX link_subscriptions_pending_by_subscription ON link_subscriptions (subscription_id) WHERE state = 'pending';
