import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The committed gas figures, measured on the local chain against Circle's USDC (`npm run gas -- --update`). */
const GAS_SNAPSHOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../snapshots/gas.json");

/** The figure the indicative network fee uses: a payer's first charge (an EOA's signature checked, slots created). */
export const CHARGE_GAS_FIGURE = "first charge (EOA)";

/**
 * The gas of one charge as measured, not guessed: `snapshots/gas.json`'s first charge (the
 * `Gas` test keeps that file equal to what the contracts cost on real USDC).
 */
export function measuredChargeGas(path = GAS_SNAPSHOT, figure = CHARGE_GAS_FIGURE): bigint {
  const figures = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const gas = figures[figure];
  if (typeof gas !== "number" || !Number.isInteger(gas) || gas <= 0) throw new Error(`${path} has no "${figure}" figure: run \`npm run gas -- --update\``);
  return BigInt(gas);
}

/**
 * The figure a renewal's gas limit comes from: the dearest renewal measured (one that opens a slot
 * of charge records). A renewal checks no signature, so its gas depends on no account's code: it is
 * simulated (one eth_call, for its refusals) rather than estimated (a search of many runs).
 */
export const RENEWAL_GAS_FIGURE = "later charge (new slot)";

/**
 * A renewal's share of a chargeBatch, measured in a batch of 20 on real USDC (each payer paying its own
 * merchant, so no balance slot is warm from another item): the period that opens a slot of charge
 * records (one in six), and any other.
 */
export const BATCHED_RENEWAL_FIGURES = { newSlot: "renewal in a batch of 20 (new slot)", other: "renewal in a batch of 20" } as const;

/** What a charge adds to a batch beyond what it costs alone: its self-call (a few thousand gas), less the 21,000 base it no longer pays. */
export const BATCH_ITEM_OVERHEAD = 5_000n - 21_000n;
