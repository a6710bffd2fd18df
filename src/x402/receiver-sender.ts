import { zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { isKnownTransaction, readReceipt } from "../chain/transactions.js";
import { rpc } from "../chain/rpc-errors.js";
import type { SettlementPrice, SettlementSender } from "../payments/deposit-settler.js";
import type { X402ReceiverStore } from "../store/x402-receivers.js";

/** A sent transaction to X402Receivers the node does not know after this long is broadcast again. */
export const RECEIVER_RESEND_AFTER_MS = 30_000;

export interface ReceiverSenderDeps {
  client: PublicClient;
  /** X402Receivers' address. */
  to: Address;
  store: X402ReceiverStore;
  sender: SettlementSender;
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  now: () => number;
}

/**
 * The relayer's transactions to X402Receivers (an x402 settlement to a receiver, or a split): priced
 * as the relayer would send them, recorded with the relayer's next nonce before they are broadcast,
 * and followed (mined: done; its nonce used by another transaction: done; lost: sent again), so a
 * recorded nonce never holds the relayer's later transactions back.
 */
export class ReceiverSender {
  constructor(private readonly deps: ReceiverSenderDeps) {}

  /** `data` simulated as the relayer would send it, with its fees: the gas limit (estimate + 20%); null when it reverts. */
  async price(data: Hex): Promise<SettlementPrice | null> {
    const { client, sender, to } = this.deps;
    const fees = await this.deps.quoteFees();
    const gas = await client.estimateGas({ account: sender.address ?? zeroAddress, to, data, ...fees }).catch(() => null);
    return gas === null ? null : { gas: (gas * 12n) / 10n, fees };
  }

  /** Prices, records and broadcasts `data`; "unavailable" when it cannot be sent now (no relayer, a refused simulation, over `maxGas`, no gas money). */
  async send(data: Hex, maxGas?: bigint): Promise<{ hash: Hex } | "unavailable"> {
    const { client, sender, store, to } = this.deps;
    const relayer = sender.address;
    if (!relayer) return "unavailable";
    let priced: SettlementPrice | null;
    let pending: number;
    try {
      let balance: bigint;
      [priced, balance, pending] = await Promise.all([
        this.price(data),
        client.getBalance({ address: relayer }),
        client.getTransactionCount({ address: relayer, blockTag: "pending" }),
      ]);
      if (!priced || (maxGas !== undefined && priced.gas > maxGas)) return "unavailable";
      sender.ensureAvailable(priced.gas, priced.fees.maxFeePerGas, balance);
    } catch {
      return "unavailable";
    }
    const { gas, fees } = priced;
    const signed = await store.record(relayer, pending, this.deps.now(), (nonce) =>
      sender.sign({ to, data, gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }, nonce),
    );
    await sender.send(signed).catch(() => {}); // recorded: follow() sends it again if lost
    return { hash: signed.hash };
  }

  /** One round over the recorded transactions: mined or replaced ends them; a lost one is broadcast again. */
  async follow(limit = 100): Promise<number> {
    const { client, sender, store } = this.deps;
    let done = 0;
    for (const t of await store.sent(limit)) {
      if (await readReceipt(client, t.hash)) {
        await store.markDone(t.hash, "mined");
        done++;
        continue;
      }
      const used = await rpc(() => client.getTransactionCount({ address: t.relayer, blockTag: "latest" }));
      if (used > t.nonce) {
        await store.markDone(t.hash, "dropped"); // another transaction took its nonce
        done++;
      } else if (this.deps.now() - t.sentAt > RECEIVER_RESEND_AFTER_MS && !(await isKnownTransaction(client, t.hash))) {
        await sender.broadcast(t.raw).catch(() => {});
      }
    }
    return done;
  }
}
