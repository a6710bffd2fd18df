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
export function measuredChargeGas(path = GAS_SNAPSHOT): bigint {
  const figures = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const gas = figures[CHARGE_GAS_FIGURE];
  if (typeof gas !== "number" || !Number.isInteger(gas) || gas <= 0)
    throw new Error(`${path} has no "${CHARGE_GAS_FIGURE}" figure: run \`npm run gas -- --update\``);
  return BigInt(gas);
}
