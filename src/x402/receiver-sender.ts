import { decodeEventLog, type Address, type Hex, type PublicClient } from "viem";
import { x402ReceiversAbi } from "../generated/contracts.js";
import type { Finality } from "../config.js";
import type { SettlementPrice, SettlementSender } from "../payments/deposit-settler.js";
import { costOf, priceRelayerCall, readyRelayerCall, type RelayerLedger } from "../payments/relayer-call.js";
import { followSent } from "../payments/relayer-follow.js";
import type { X402ReceiverStore, X402Transaction } from "../store/x402-receivers.js";
import { paidOutOf } from "./receiver-funding.js";

export interface ReceiverSenderDeps {
  client: PublicClient;
  /** X402Receivers' address. */
  to: Address;
  /** The token whose transfers out of a receiver, in a mined transaction of ours, make it funded. */
  token: Address;
  store: X402ReceiverStore;
  sender: SettlementSender;
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  now: () => number;
  /** A transaction still unmined this long after it was sent is replaced with a higher fee, within the relayer's ceiling (the relayer's rule for charges and settlements). */
  replaceAfterMs: number;
  /** One transaction's follow failed (an RPC fault): told here, and the round goes on with the others. */
  onError?: (hash: Hex, error: unknown) => void;
  /** A mined transaction is done only once its receipt is this final and a majority of the nodes agree on it (chain/agreement.ts). */
  finality: Finality;
  /** Where each mined transaction's gas is counted (/metrics). */
  ledger?: RelayerLedger;
}

/**
 * The relayer's transactions to X402Receivers (an x402 settlement to a receiver, or a split): priced
 * as the relayer would send them, recorded with the relayer's next nonce before they are broadcast,
 * and followed (mined: done; its nonce used by another transaction: done; lost: sent again; stuck
 * under a risen base fee: replaced within the relayer's fee ceiling), so a recorded nonce never holds
 * the relayer's later transactions back.
 */
export class ReceiverSender {
  constructor(private readonly deps: ReceiverSenderDeps) {}

  /** `data` simulated as the relayer would send it, with its fees: the gas limit (estimate + 20%); null when it reverts. */
  price(data: Hex): Promise<SettlementPrice | null> {
    return priceRelayerCall(this.deps, this.deps.to, data);
  }

  /** Prices, records and broadcasts `data`; "unavailable" when it cannot be sent now (no relayer, a refused simulation, over `maxGas`, no gas money). */
  async send(data: Hex, maxGas?: bigint): Promise<{ hash: Hex } | "unavailable"> {
    const { sender, store, to } = this.deps;
    const ready = await readyRelayerCall(this.deps, to, data, maxGas);
    if (!ready) return "unavailable";
    const { relayer, priced, pending } = ready;
    const { gas, fees } = priced;
    const signed = await store.record(relayer, pending, this.deps.now(), (nonce) =>
      sender.sign({ to, data, gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }, nonce),
    );
    await sender.send(signed).catch(() => {}); // recorded: follow() sends it again if lost
    return { hash: signed.hash };
  }

  /**
   * One round over the recorded transactions: mined, or its nonce used by another transaction (a
   * replacement of it included), ends them; a lost one is broadcast again and a stuck one replaced, by
   * the instance holding the key that signed it. One transaction's error never stops the round.
   */
  async follow(limit = 100): Promise<number> {
    let done = 0;
    for (const t of await this.deps.store.sent(limit)) {
      try {
        if (await this.#followOne(t)) done++;
      } catch (error) {
        this.deps.onError?.(t.hash, error);
      }
    }
    return done;
  }

  async #followOne(t: X402Transaction): Promise<boolean> {
    const { sender, store } = this.deps;
    const step = await followSent({ ...this.deps, senders: [sender] }, t, "settlement", (next) => store.replace(t.hash, next, this.deps.now()));
    if (step.state === "sent") return false;
    if (step.state === "dropped") {
      await store.markDone(t.hash, "dropped");
      return true;
    }
    const mined = step.receipt;
    // A payment through a receiver settled, as a majority holds it: funded (kept, walked by the backstop) from now on.
    if (mined.status === "success") await store.markFunded(paidOutOf(mined.logs, this.deps.token), this.deps.now());
    await store.markDone(t.hash, "mined");
    this.deps.ledger?.spent("x402_receiver_settlement", costOf(mined));
    if (mined.status === "success") this.deps.ledger?.earned("x402_receiver_settlement", this.#feeIn(mined.logs));
    return true;
  }

  /** The fee collector's part of the payments a mined transaction settled: X402Receivers' own ReceiverPaid logs. */
  #feeIn(logs: ReadonlyArray<{ address: Address; data: Hex; topics: readonly Hex[] }>): bigint {
    let fee = 0n;
    for (const log of logs) {
      if (log.address.toLowerCase() !== this.deps.to.toLowerCase()) continue;
      try {
        const event = decodeEventLog({ abi: x402ReceiversAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]] });
        if (event.eventName === "ReceiverPaid") fee += event.args.fee;
      } catch {
        // Another of its events.
      }
    }
    return fee;
  }
}
