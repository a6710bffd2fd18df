import type { Address, Hex, PublicClient } from "viem";
import type { LiveDeployment } from "../deployments.js";
import { rpc } from "../chain/rpc-errors.js";
import { readTokenState, type TokenState } from "../chain/token-refusals.js";
import { quoteL1Fee, quoteL1FeeAt, readL1FeePrices, type L1FeePrices } from "../chain/l1-fee.js";
import { quoteFees, type FeeQuote, type GasPricing } from "./gas-quote.js";
import { agreedPendingNonce } from "../chain/relayer-reads.js";
import type { Relayer } from "./relayer.js";

/**
 * The latest block, the fee quote, the relayer's balance, its pending nonce, and what the token says
 * of the accounts every charge shares (fee collector, contract) and of `paused`, each read or failed.
 */
export type ChainView = [
  PromiseSettledResult<{ number: bigint; timestamp: bigint; gasLimit: bigint }>,
  PromiseSettledResult<FeeQuote>,
  PromiseSettledResult<bigint>,
  PromiseSettledResult<number>,
  PromiseSettledResult<TokenState>,
];

/** A settled read's value, or its error thrown. */
export function settledValue<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

export interface ChargeViewsDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  pricing: GasPricing;
  relayer: Relayer;
  /** RecurringCharges' address: the charges' calldata goes there. */
  contract: Address;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * The chain as the charges starting together see it (charges.ts): one view read at a time, shared by
 * every charge that starts while it is in flight, and the L1 data fee of a charge or of a batch.
 */
export class ChargeViews {
  constructor(private readonly deps: ChargeViewsDeps) {}

  #view: { read: Promise<ChainView>; l1Fee: (data: Hex) => Promise<bigint> } | null = null;

  /** The GasPriceOracle's prices as the latest chain view read them (null: no Fjord oracle, quote through it). */
  #l1Prices: Promise<L1FeePrices | null> | null = null;

  /** The prices of the last view whose read answered: a batch is priced with them rather than wait a round trip for newer ones. */
  #l1PricesRead: L1FeePrices | null = null;

  /**
   * The latest block, the fee quote, the relayer's balance, its pending nonce and the L1 fee's
   * prices: one round trip, shared by every charge that starts while it is in flight (a month-start
   * burst reads them once, not once per subscription). Never reused once answered. With it, the L1
   * data fee of a charge, computed here from those prices as the GasPriceOracle computes it
   * (chain/l1-fee.ts: the oracle compresses the calldata in the EVM, a node's dearest work in a
   * wave; without a Fjord oracle, quoted by it), once per calldata length for the charges sharing the
   * view (charges of one length differ only in their values, which compress alike: the 1.2× margin
   * covers the difference).
   */
  current(): { read: Promise<ChainView>; l1Fee: (data: Hex) => Promise<bigint> } {
    if (!this.#view) {
      const quotes = new Map<number, Promise<bigint>>();
      const prices = readL1FeePrices(this.deps.client);
      // A failed read is answered by each charge's l1Fee (GAS_QUOTE_UNAVAILABLE).
      prices.then(
        (read) => {
          if (read) this.#l1PricesRead = read;
        },
        () => {},
      );
      const view = {
        read: this.#readChainView(),
        l1Fee: (data: Hex) => {
          const length = (data.length - 2) / 2;
          let quote = quotes.get(length);
          if (!quote) {
            quote = prices.then((known) =>
              known ? quoteL1FeeAt(known, this.#chainId, { to: this.deps.contract, data }) : quoteL1Fee(this.deps.client, { to: this.deps.contract, data }),
            );
            quotes.set(length, quote);
          }
          return quote;
        },
      };
      this.#view = view;
      this.#l1Prices = prices;
      void view.read.finally(() => {
        if (this.#view === view) this.#view = null;
      });
    }
    return this.#view;
  }

  /** The last view's block: its timestamp, and when this host's clock read it (null before one answered). */
  #lastSeen: { timestamp: bigint; at: number } | null = null;

  /**
   * The chain's time as the last view saw it, and now as that view and this host's clock tell it, in
   * seconds: a guess to start the reads that depend on the period before the view answers
   * (charges.ts), never a decision.
   */
  chainTime(now: number): { seen: bigint; guessed: bigint } | null {
    const last = this.#lastSeen;
    return last && { seen: last.timestamp, guessed: last.timestamp + BigInt(Math.floor((now - last.at) / 1000)) };
  }

  get #chainId(): number {
    return this.deps.client.chain!.id;
  }

  /**
   * A batch's L1 data fee: computed from the prices the last answered view read (its charges were
   * quoted with those or older: the L1 prices move once an L1 block, 12 s), from the view in flight
   * before any answered, or quoted by the oracle without them.
   */
  async batchL1Fee(data: Hex): Promise<bigint> {
    const known = this.#l1PricesRead ?? (await (this.#l1Prices ?? Promise.resolve(null)).catch(() => null));
    if (known) return quoteL1FeeAt(known, this.#chainId, { to: this.deps.contract, data });
    return quoteL1Fee(this.deps.client, { to: this.deps.contract, data });
  }

  #readChainView(): Promise<ChainView> {
    const { client, relayer } = this.deps;
    const relayerAddress = relayer.address;
    return Promise.allSettled([
      rpc(() => client.getBlock({ blockTag: "latest" })).then((block) => {
        this.#lastSeen = { timestamp: block.timestamp, at: this.deps.now() };
        return block;
      }),
      quoteFees(client, this.deps.pricing),
      relayerAddress ? rpc(() => client.getBalance({ address: relayerAddress })) : Promise.resolve(0n),
      // The chain's pending nonce as a majority holds it: a floor under the relayer's own records.
      relayerAddress ? rpc(() => agreedPendingNonce(client, relayerAddress)) : Promise.resolve(0),
      readTokenState(client, this.deps.deployment.token.address, [this.deps.deployment.parameters.feeCollector, this.deps.contract]),
    ]) as Promise<ChainView>;
  }
}
