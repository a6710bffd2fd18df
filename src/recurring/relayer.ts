import { BaseError, keccak256, NonceTooHighError, parseTransaction, type Address, type Chain, type Hex, type PrivateKeyAccount, type PublicClient } from "viem";
import { getNodeError } from "viem/utils";
import { DomainError } from "../errors.js";
import type { SignedTransaction } from "../store/charge-attempts.js";

export type { SignedTransaction };

export interface RelayerOptions {
  /** Operator switch: a paused relayer answers RELAYER_UNAVAILABLE and sends nothing. */
  paused: boolean;
  /** Test hook: runs after the transaction is recorded and before it is broadcast (a crash there). */
  beforeBroadcast?: (tx: SignedTransaction) => Promise<void> | void;
}

export interface RelayerCall {
  to: Address;
  data: Hex;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** How long a broadcast refused for a nonce gap is tried again (its lower nonce is on its way). */
const GAP_RETRY_MS = 10_000;
const GAP_RETRY_EVERY_MS = 25;

interface Outgoing {
  nonce: number;
  raw: Hex;
  firstTried: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The service's relayer: signs charge transactions locally and broadcasts them. Nonces come from
 * the store (see `ChargeAttempts.recordWithNonce`), so no lock is held across a chain round trip:
 * many charges are simulated, signed and recorded at once. Broadcasts leave in nonce order: every
 * transaction waiting when a broadcast round starts goes in one JSON-RPC batch (one round trip for
 * all of them). A node that refuses a nonce above its next (an automining node cannot queue; another
 * instance's lower nonce is still on its way) is asked again shortly, for a while.
 */
export class Relayer {
  readonly #outbox: Outgoing[] = [];
  #flushing = false;

  constructor(
    private readonly client: PublicClient,
    readonly account: PrivateKeyAccount | null,
    private readonly chain: Chain,
    private readonly options: RelayerOptions,
  ) {}

  get address(): Address | null {
    return this.account?.address ?? null;
  }

  /**
   * Refuses when paused, keyless, or without `balance` enough to pay `gas` at `maxFeePerGas` plus the
   * L1 data fee (`l1FeeWei`, which an OP-stack chain takes from the sender too). Nothing is spent.
   */
  ensureAvailable(gas: bigint, maxFeePerGas: bigint, balance: bigint, l1FeeWei = 0n): Address {
    if (this.options.paused || !this.account) throw new DomainError("RELAYER_UNAVAILABLE", { detail: this.account ? "paused" : "no relayer key" });
    if (balance < gas * maxFeePerGas + l1FeeWei) throw new DomainError("RELAYER_UNAVAILABLE", { detail: "relayer short of gas money" });
    return this.account.address;
  }

  /** Signs `call` with `nonce` (local: no chain call). */
  async sign(call: RelayerCall, nonce: number): Promise<{ hash: Hex; raw: Hex }> {
    const raw = await this.account!.signTransaction({
      chainId: this.chain.id,
      type: "eip1559",
      nonce,
      to: call.to,
      data: call.data,
      gas: call.gas,
      maxFeePerGas: call.maxFeePerGas,
      maxPriorityFeePerGas: call.maxPriorityFeePerGas,
      value: 0n,
    });
    return { hash: keccak256(raw), raw };
  }

  /**
   * The same call with the same nonce at higher fees (each at least 1.25× the stuck one's and at
   * least the current quote), so a node replaces it in its pool.
   */
  async signReplacement(raw: Hex, quote: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Promise<{ hash: Hex; raw: Hex; maxFeePerGas: bigint }> {
    const stuck = parseTransaction(raw);
    if (stuck.type !== "eip1559" || stuck.nonce === undefined || !stuck.to || stuck.gas === undefined) throw new Error("not a relayer transaction");
    const bump = (fee: bigint | undefined, floor: bigint) => {
      const raised = ((fee ?? 0n) * 125n) / 100n + 1n;
      return raised > floor ? raised : floor;
    };
    const maxPriorityFeePerGas = bump(stuck.maxPriorityFeePerGas, quote.maxPriorityFeePerGas);
    const maxFeePerGas = bump(stuck.maxFeePerGas, quote.maxFeePerGas > maxPriorityFeePerGas ? quote.maxFeePerGas : maxPriorityFeePerGas);
    const signed = await this.sign({ to: stuck.to, data: stuck.data ?? "0x", gas: stuck.gas, maxFeePerGas, maxPriorityFeePerGas }, stuck.nonce);
    return { ...signed, maxFeePerGas };
  }

  /** Runs the test hook between recording and broadcasting (a crash there), then broadcasts. */
  async send(tx: SignedTransaction): Promise<void> {
    await this.options.beforeBroadcast?.(tx);
    await this.broadcast(tx.raw);
  }

  /** Sends a signed transaction, in nonce order with the others waiting; a refusal is RELAYER_ERROR. */
  broadcast(raw: Hex): Promise<void> {
    const nonce = parseTransaction(raw).nonce ?? 0;
    return new Promise<void>((resolve, reject) => {
      this.#outbox.push({ nonce, raw, firstTried: Date.now(), resolve, reject });
      void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      while (this.#outbox.length > 0) {
        const round = this.#outbox.splice(0).sort((a, b) => a.nonce - b.nonce);
        // Started together: one JSON-RPC batch, in nonce order.
        const results = await Promise.allSettled(round.map((o) => this.client.sendRawTransaction({ serializedTransaction: o.raw })));
        let gapped = false;
        for (const [i, result] of results.entries()) {
          const o = round[i]!;
          if (result.status === "fulfilled") {
            o.resolve();
          } else if (isNonceGap(result.reason) && Date.now() - o.firstTried < GAP_RETRY_MS) {
            this.#outbox.push(o);
            gapped = true;
          } else {
            o.reject(new DomainError("RELAYER_ERROR", { cause: result.reason }));
          }
        }
        if (gapped) await new Promise((resolve) => setTimeout(resolve, GAP_RETRY_EVERY_MS));
      }
    } finally {
      this.#flushing = false;
    }
  }
}

/**
 * Whether a node refused a transaction because its nonce is above the account's next one (geth
 * queues such a transaction; an automining node refuses it): viem's node-error classification,
 * `NonceTooHighError`, which `sendRawTransaction` does not apply by itself.
 */
export function isNonceGap(error: unknown): boolean {
  return error instanceof BaseError && getNodeError(error, {}) instanceof NonceTooHighError;
}
