import { privateKeyToAccount } from "viem/accounts";
import { chainFor } from "../chain/client.js";
import { type FeeQuote, type GasPricing, quoteFees } from "../recurring/gas-quote.js";
import { Relayer } from "../recurring/relayer.js";
import type { BaseRoom } from "./base.js";
import type { ChainRoom } from "./chain.js";

/** The relayer's account, which sends every charge, settlement and receiver split, and how its gas is priced in token units. */
export interface RelayerRoom {
  relayer: Relayer;
  /** The accounts of RELAYER_RETIRED_KEYS: each sends only the captures and voids of open holds naming it. */
  retired: Relayer[];
  pricing: GasPricing;
  /** The fee per gas a transaction sent now should bid. */
  quoteFees(): Promise<FeeQuote>;
}

export function relayerRoom({ config, deps, logger, metrics }: BaseRoom, { client, rpcUrl }: ChainRoom): RelayerRoom {
  const pricing: GasPricing = { unitsPerEth: config.recurring.unitsPerEth, tipWei: config.recurring.tipWei };
  const relayerFor = (key: `0x${string}` | null) =>
    new Relayer(client, key ? privateKeyToAccount(key) : null, chainFor(config.chainId, rpcUrl), {
      paused: config.relayer.paused,
      maxFeePerGas: config.relayer.maxFeePerGas,
      onFeeCeiling: (held) => {
        metrics.feeCeiling.inc({ kind: held.kind });
        logger.warn(
          {
            loop: "relayer",
            kind: held.kind,
            tx_hash: held.hash,
            nonce: held.nonce,
            wanted_max_fee_per_gas: String(held.wantedMaxFeePerGas),
            ceiling: String(held.ceilingWei),
          },
          "stuck transaction held at its bid: a replacement would pass the fee ceiling",
        );
      },
      ...(deps.beforeBroadcast ? { beforeBroadcast: deps.beforeBroadcast } : {}),
    });
  const relayer = relayerFor(config.relayer.privateKey);
  const retired = config.relayer.retiredKeys.map((key) => relayerFor(key));
  return { relayer, retired, pricing, quoteFees: () => quoteFees(client, pricing) };
}
