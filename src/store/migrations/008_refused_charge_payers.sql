-- Payers whose charge passed its simulation and failed on chain (a lone charge reverted, or a batch
-- item skipped for a reason of the payer's: its signature check, its funds, its token account): the
-- relayer sends none of their charges before `refused_until` (unix milliseconds), so a payer whose
-- code answers a simulation one way and the chain another costs the relayer one failed charge per
-- refusal window, not one per retry. Rows past their time are deleted when a refusal is written.
CREATE TABLE refused_charge_payers (
  payer TEXT PRIMARY KEY,
  refused_until BIGINT NOT NULL
);
