import { zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { l1FeeWithMargin, quoteL1Fee } from "../chain/l1-fee.js";
import { agreedEstimate, agreedPendingNonce } from "../chain/relayer-reads.js";

/** The relayer, as far as settling needs it (recurring/relayer.ts implements it). */
export interface SettlementSender {
  readonly address: Address | null;
  ensureAvailable(gas: bigint, maxFeePerGas: bigint, balance: bigint, l1FeeWei: bigint): Address;
  sign(call: { to: Address; data: Hex; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }, nonce: number): Promise<{ hash: Hex; raw: Hex }>;
  send(tx: { hash: Hex; raw: Hex; nonce: number }): Promise<void>;
  broadcast(raw: Hex): Promise<void>;
  /**
   * The same call with the same nonce at higher fees (a node's replacement rule); null when that bid
   * would pass the relayer's fee ceiling.
   */
  signReplacement(
    raw: Hex,
    quote: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    kind: "settlement" | "hold",
  ): Promise<{ hash: Hex; raw: Hex } | null>;
}

/** A sent relayer transaction the node does not know after this long is broadcast again (every follower of the relayer's sends). */
export const RELAYER_RESEND_AFTER_MS = 30_000;

/** Where the relayer's mined work is counted (`/metrics`: relayer_gas_spent_wei_total, relayer_fees_earned_units_total), by operation. */
export interface RelayerLedger {
  spent(operation: string, wei: bigint): void;
  earned(operation: string, units: bigint): void;
}

/** What a mined transaction cost its sender: the L2 gas at the price paid, and the L1 data fee where the receipt names it (Base's). */
export function costOf(receipt: { gasUsed: bigint; effectiveGasPrice: bigint }): bigint {
  const l1Fee = (receipt as { l1Fee?: bigint | null }).l1Fee;
  return receipt.gasUsed * receipt.effectiveGasPrice + (typeof l1Fee === "bigint" ? l1Fee : 0n);
}

/** A settlement's gas limit and the fees it would pay. */
export interface SettlementPrice {
  gas: bigint;
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
}

/** What pricing and checking a relayer call needs. */
export interface RelayerCallDeps {
  client: PublicClient;
  sender: Pick<SettlementSender, "address" | "ensureAvailable">;
  /** The next block's fee cap and tip (recurring/gas-quote.ts). */
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
}

/**
 * `data` to `to` simulated as the relayer would send it, with the fees it would pay (a payer's code
 * may look at them), and priced: its gas limit (the estimate plus 20%) and those fees; null when the
 * simulation does not pass on a majority of the nodes at one block (it reverts, or they could not run it).
 */
export async function priceRelayerCall(deps: RelayerCallDeps, to: Address, data: Hex): Promise<SettlementPrice | null> {
  const fees = await deps.quoteFees();
  const gas = await agreedEstimate(deps.client, { account: deps.sender.address ?? zeroAddress, to, data, ...fees }).catch(() => null);
  return gas === null ? null : { gas: (gas * 12n) / 10n, fees };
}

/**
 * Whether the relayer can send `data` to `to` now: priced (see {@link priceRelayerCall}), within
 * `maxGas` (a payer's own code may run in it: more is not the relayer's to pay), and paid for (the L2
 * gas at the fee cap plus Base's L1 data fee, which the sender pays too). Its price, the relayer and
 * the chain's pending nonce; null when nothing can be sent now (no key, paused, a refused simulation,
 * over `maxGas`, no gas money).
 */
export async function readyRelayerCall(
  deps: RelayerCallDeps,
  to: Address,
  data: Hex,
  maxGas?: bigint,
): Promise<{ relayer: Address; priced: SettlementPrice; pending: number } | null> {
  const relayer = deps.sender.address;
  if (!relayer) return null;
  try {
    const [priced, balance, pending, l1Fee] = await Promise.all([
      priceRelayerCall(deps, to, data),
      deps.client.getBalance({ address: relayer }),
      // A floor under the relayer's own records of its nonces (store/relayer-nonces.ts), as a majority holds it.
      agreedPendingNonce(deps.client, relayer),
      quoteL1Fee(deps.client, { to, data }).then(l1FeeWithMargin),
    ]);
    if (!priced || (maxGas !== undefined && priced.gas > maxGas)) return null;
    deps.sender.ensureAvailable(priced.gas, priced.fees.maxFeePerGas, balance, l1Fee);
    return { relayer, priced, pending };
  } catch {
    return null;
  }
}

/**
 * A call whose gas limit is settled already (its ceiling, after one agreed simulation): whether the
 * relayer can pay for it at `maxFeePerGas` (the L2 gas at that cap plus Base's L1 data fee), and the
 * chain's pending nonce as a majority holds it. Nothing simulated again; null when nothing can be
 * sent now (no key, paused, no gas money).
 */
export async function fundedRelayerCall(
  deps: Pick<RelayerCallDeps, "client" | "sender">,
  to: Address,
  data: Hex,
  gas: bigint,
  maxFeePerGas: bigint,
): Promise<{ relayer: Address; pending: number } | null> {
  const relayer = deps.sender.address;
  if (!relayer) return null;
  try {
    const [balance, pending, l1Fee] = await Promise.all([
      deps.client.getBalance({ address: relayer }),
      agreedPendingNonce(deps.client, relayer),
      quoteL1Fee(deps.client, { to, data }).then(l1FeeWithMargin),
    ]);
    deps.sender.ensureAvailable(gas, maxFeePerGas, balance, l1Fee);
    return { relayer, pending };
  } catch {
    return null;
  }
}
