import {
  BaseError,
  NonceTooHighError,
  parseSignature,
  parseTransaction,
  type Address,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
} from "viem";
import { getNodeError } from "viem/utils";
import { DomainError } from "../errors.js";
import { keccak256Hex } from "../chain/keccak.js";
import { eip1559Bytes } from "../chain/eip1559-bytes.js";
import type { SignedTransaction } from "../store/charge-attempts.js";

export type { SignedTransaction };

export interface RelayerOptions {
  /** Operator switch: a paused relayer answers RELAYER_UNAVAILABLE and sends nothing. */
  paused: boolean;
  /** Test hook: runs after the transaction is recorded and before it is broadcast (a crash there). */
  beforeBroadcast?: (tx: SignedTransaction) => Promise<void> | void;
  /** RELAYER_MAX_FEE_PER_GAS: no replacement bids a fee cap above it; null: {@link DEFAULT_CEILING_QUOTES} times the current quote's cap. */
  maxFeePerGas?: bigint | null;
  /** A stuck transaction not replaced because its next bid would pass the ceiling (a metric and a log line). */
  onFeeCeiling?: (event: FeeCeilingEvent) => void;
}

/** A replacement the ceiling refused: what it would have bid, and the ceiling. */
export interface FeeCeilingEvent {
  kind: "settlement" | "charge" | "hold";
  nonce: number;
  hash: Hex;
  wantedMaxFeePerGas: bigint;
  ceilingWei: bigint;
}

/**
 * The default fee ceiling, in multiples of the current quote's fee cap (twice the next base fee plus
 * the tip): about ten times the base fee the node reports now. Far above what a risen base fee needs
 * (EIP-1559 raises it at most 12.5% a block), so a stuck transaction still gets through a spike; but
 * a bid that keeps rising 1.25× a minute while the base fee does not stops there, after about seven
 * replacements.
 */
export const DEFAULT_CEILING_QUOTES = 5n;

export interface RelayerCall {
  to: Address;
  data: Hex;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * How many of the relayer's transactions may wait unmined at the node: the per-sender slots of
 * geth's and reth's default transaction pools (16). A transaction whose nonce is that far past the
 * node's latest nonce waits in the outbox, unsent, until blocks make room.
 */
export const POOL_WINDOW = 16;
/** How many transactions held at the fee ceiling are remembered, so each is reported once. */
const HELD_REMEMBERED = 10_000;
/** How long the outbox waits (for room in the window, or after a refusal it retries) without the chain moving before it gives up. */
const STALL_MS = 30_000;
/** The pause between broadcast rounds while something waits (each 200 ms block frees the window in steps). */
const RETRY_EVERY_MS = 50;

interface Outgoing {
  nonce: number;
  raw: Hex;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** The node took it, or it was given up: no longer waiting for room. */
  taken: () => void;
}

/**
 * The service's relayer: signs charge transactions locally and broadcasts them. Nonces come from
 * the store (see `ChargeAttempts.recordWithNonce`), so no lock is held across a chain round trip:
 * many charges are simulated, signed and recorded at once. Broadcasts leave in nonce order: every
 * transaction waiting when a broadcast round starts goes in one JSON-RPC batch (one round trip for
 * all of them) with a read of the node's latest nonce for the next round.
 *
 * The node's pool holds at most {@link POOL_WINDOW} pending transactions per sender: a transaction
 * that would be the 17th waits in the outbox until blocks make room, and a refusal for a full pool
 * or a nonce gap (a lower nonce still on its way) is tried again in the next round, lowest nonce
 * first, so a refused broadcast never leaves a gap behind it. None of this is an error the merchant
 * sees, and the charge's answer does not wait for it: a recorded transaction in line for room is
 * answered at once (CONFIRMING), and the outbox keeps it until the node takes it. A transaction the
 * node refuses for what it is answers RELAYER_ERROR; one still in line when the chain stops moving
 * for {@link STALL_MS} is left to its record (the next ask sends it again).
 */
export class Relayer {
  readonly #outbox: Outgoing[] = [];
  readonly #heldAtCeiling = new Set<Hex>();
  #flushing = false;
  /** Transactions handed to `broadcast` that the node has not taken yet (in line for room in the window, or being sent). */
  #unsent = 0;

  /** How many of the relayer's transactions wait for the node to take them: while any does, the pool's window is full. */
  get unsent(): number {
    return this.#unsent;
  }

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

  /** Signs `call` with `nonce` (local: no chain call); RELAYER_UNAVAILABLE without a key. */
  async sign(call: RelayerCall, nonce: number): Promise<{ hash: Hex; raw: Hex }> {
    if (!this.account) throw new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key" });
    const transaction = {
      chainId: this.chain.id,
      nonce,
      to: call.to,
      data: call.data,
      gas: call.gas,
      maxFeePerGas: call.maxFeePerGas,
      maxPriorityFeePerGas: call.maxPriorityFeePerGas,
      value: 0n,
    };
    // As viem's signTransaction signs (the unsigned bytes' hash, then the bytes with the signature),
    // with Buffers and Keccak in WebAssembly: a batch's calldata is tens of kilobytes, serialized and
    // hashed twice, and viem's JS did it a character pair at a time (test/unit/relayer-sign.test.ts).
    const bytes = eip1559Bytes(transaction);
    const signature = parseSignature(await this.account.sign({ hash: keccak256Hex(bytes.unsigned) }));
    const raw = bytes.signed({ yParity: signature.yParity!, r: signature.r, s: signature.s });
    return { hash: keccak256Hex(raw), raw };
  }

  /** The highest fee cap a replacement may bid now: RELAYER_MAX_FEE_PER_GAS, or a multiple of the current quote's cap. */
  feeCeiling(quote: { maxFeePerGas: bigint }): bigint {
    return this.options.maxFeePerGas ?? DEFAULT_CEILING_QUOTES * quote.maxFeePerGas;
  }

  /**
   * The same call with the same nonce at higher fees (each at least 1.25× the stuck one's and at
   * least the current quote), so a node replaces it in its pool; null, reported to `onFeeCeiling`,
   * when that fee cap would pass {@link feeCeiling}: the transaction waits at its bid, never a higher one.
   */
  async signReplacement(
    raw: Hex,
    quote: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    kind: FeeCeilingEvent["kind"],
  ): Promise<{ hash: Hex; raw: Hex; maxFeePerGas: bigint } | null> {
    const stuck = parseTransaction(raw);
    if (stuck.type !== "eip1559" || stuck.nonce === undefined || !stuck.to || stuck.gas === undefined) throw new Error("not a relayer transaction");
    const bump = (fee: bigint | undefined, floor: bigint) => {
      const raised = ((fee ?? 0n) * 125n) / 100n + 1n;
      return raised > floor ? raised : floor;
    };
    const maxPriorityFeePerGas = bump(stuck.maxPriorityFeePerGas, quote.maxPriorityFeePerGas);
    const maxFeePerGas = bump(stuck.maxFeePerGas, quote.maxFeePerGas > maxPriorityFeePerGas ? quote.maxFeePerGas : maxPriorityFeePerGas);
    const ceilingWei = this.feeCeiling(quote);
    if (maxFeePerGas > ceilingWei) {
      // Told once per transaction held (each sweep finds it again until it is mined or the base fee falls).
      const hash = keccak256Hex(raw);
      if (!this.#heldAtCeiling.has(hash)) {
        if (this.#heldAtCeiling.size >= HELD_REMEMBERED) this.#heldAtCeiling.clear();
        this.#heldAtCeiling.add(hash);
        this.options.onFeeCeiling?.({ kind, nonce: stuck.nonce, hash, wantedMaxFeePerGas: maxFeePerGas, ceilingWei });
      }
      return null;
    }
    const signed = await this.sign({ to: stuck.to, data: stuck.data ?? "0x", gas: stuck.gas, maxFeePerGas, maxPriorityFeePerGas }, stuck.nonce);
    return { ...signed, maxFeePerGas };
  }

  /** Runs the test hook between recording and broadcasting (a crash there), then broadcasts. */
  async send(tx: SignedTransaction): Promise<void> {
    await this.options.beforeBroadcast?.(tx);
    await this.broadcast(tx.raw);
  }

  /**
   * Sends a signed transaction, in nonce order with the others waiting; a final refusal is
   * RELAYER_ERROR. An instance without a key has no outbox (its window is the key's nonce): it
   * answers RELAYER_UNAVAILABLE and sends nothing.
   */
  broadcast(raw: Hex): Promise<void> {
    if (!this.account) return Promise.reject(new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key" }));
    const nonce = parseTransaction(raw).nonce ?? 0;
    return new Promise<void>((resolve, reject) => {
      // Answered once: a transaction resolved while it waits for room is not failed later (its record
      // stays, and the next ask follows it).
      let answered = false;
      const once =
        <A extends unknown[]>(f: (...args: A) => void) =>
        (...args: A) => {
          if (answered) return;
          answered = true;
          f(...args);
        };
      // Counted until the node takes it or it is given up (each outcome once, whichever answer came first).
      this.#unsent++;
      let counted = true;
      const taken = () => {
        if (counted) this.#unsent--;
        counted = false;
      };
      const outgoing = { nonce, raw, resolve: once(resolve), reject: once(reject), taken };
      this.#outbox.push(outgoing);
      // Past the window as last read: in line for room whatever the round under way brings, so its
      // caller is answered now rather than after that round (which waits on the node, and the node on
      // its block). The outbox keeps it until the node takes it, as below.
      if (this.#mined !== null && nonce >= this.#mined + POOL_WINDOW) outgoing.resolve();
      void this.#flush();
    });
  }

  /** The node's latest nonce for the relayer as last read (null until read): the pool's window starts there. */
  #mined: number | null = null;
  #movedAt = Date.now();

  #noteMined(mined: number): void {
    if (this.#mined === null || mined > this.#mined) {
      this.#mined = mined;
      this.#movedAt = Date.now();
    }
  }

  async #flush(): Promise<void> {
    const address = this.account?.address;
    if (this.#flushing || !address) return; // broadcast() refuses first: nothing reaches the outbox without a key
    this.#flushing = true;
    const readMined = () => this.client.getTransactionCount({ address, blockTag: "latest" });
    this.#movedAt = Date.now(); // a stall is counted from when there is something to send
    try {
      while (this.#outbox.length > 0) {
        const waiting = this.#outbox.splice(0).sort((a, b) => a.nonce - b.nonce);
        // The window is known from the last round; read first only when it is unknown or full.
        if (this.#mined === null || waiting.some((o) => o.nonce >= this.#mined! + POOL_WINDOW)) {
          try {
            this.#noteMined(await readMined());
          } catch (error) {
            for (const o of waiting) {
              o.reject(new DomainError("RELAYER_ERROR", { cause: error }));
              o.taken();
            }
            continue;
          }
        }
        const mined = this.#mined!;
        // Within the pool's window: at most POOL_WINDOW unmined per sender. The rest waits.
        const round = waiting.filter((o) => o.nonce < mined + POOL_WINDOW);
        const retry = waiting.filter((o) => o.nonce >= mined + POOL_WINDOW);
        // Recorded, signed and next in line: its caller need not hold on for the blocks that make room
        // (its answer is CONFIRMING either way, and a recorded transaction is followed, and sent again
        // if the node never got it, on the next ask). It stays in the outbox until the node takes it.
        for (const o of retry) o.resolve();
        // Started together: one JSON-RPC batch, in nonce order, with the latest nonce read again for the next round.
        const [minedRead, ...results] = await Promise.allSettled([
          readMined(),
          ...round.map((o) => this.client.sendRawTransaction({ serializedTransaction: o.raw })),
        ]);
        if (minedRead.status === "fulfilled") this.#noteMined(minedRead.value as number);
        for (const [i, result] of results.entries()) {
          const o = round[i]!;
          if (result.status === "fulfilled") {
            o.resolve();
            o.taken();
          } else if (isNonceGap(result.reason) || isPoolFull(result.reason)) {
            retry.push(o);
            o.resolve(); // refused for room, not for what it is: in line, as above
          } else {
            o.reject(new DomainError("RELAYER_ERROR", { cause: result.reason }));
            o.taken();
          }
        }
        if (retry.length === 0) continue;
        if (Date.now() - this.#movedAt > STALL_MS) {
          for (const o of retry) {
            o.reject(new DomainError("RELAYER_ERROR", { detail: "the chain has not mined the relayer's transactions for a while" }));
            o.taken();
          }
          continue;
        }
        this.#outbox.push(...retry);
        await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
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

/**
 * Whether a node refused a transaction because the sender's slots in its pool are taken (geth's
 * "account limit exceeded" and "txpool is full", reth's "exceeds max account slots"): no viem class
 * names it, so the node's message decides. Tried again once blocks make room.
 */
export function isPoolFull(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const full = /account limit exceeded|txpool is full|transaction pool is full|max account slots/i;
  return error.walk((e) => full.test((e as BaseError).details ?? (e as Error).message)) !== null;
}
