-- The relayer's hourly gas budget for work whose fee does not cover its gas (limits/relayer-budget.ts):
-- wei spent per key (the total, a payer, a recipient, a caller) in the window starting at
-- `window_start` (Unix milliseconds, on the hour). Shared by every instance on one PostgreSQL.
CREATE TABLE relayer_budget (
  key TEXT PRIMARY KEY,
  window_start BIGINT NOT NULL,
  spent_wei NUMERIC(78, 0) NOT NULL
);
CREATE INDEX relayer_budget_start ON relayer_budget (window_start);
