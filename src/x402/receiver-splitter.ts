import { encodeFunctionData, erc20Abi, type Address, type Hex, type PublicClient } from "viem";
import { x402ReceiversAbi } from "../generated/contracts.js";
import { rpc } from "../chain/rpc-errors.js";
import { everyRound } from "../rounds.js";
import type { X402ReceiverRecord, X402ReceiverStore } from "../store/x402-receivers.js";
import type { X402Answers } from "../store/x402-answers.js";
import type { ReceiverSender } from "./receiver-sender.js";

export interface ReceiverSplitterDeps {
  client: PublicClient;
  token: Address;
  store: X402ReceiverStore;
  answers: Pick<X402Answers, "prune">;
  sender: Pick<ReceiverSender, "send" | "follow">;
  now: () => number;
  /** The deployment's fee, in basis points: what a split earns is this share of the balance. */
  feeBps: number;
  /**
   * What sending `data` (a split) would cost the relayer, in token units: L2 gas at the expected fee
   * plus the L1 data fee; null when it cannot be priced now (the simulation refused).
   */
  costUnits: (data: Hex) => Promise<bigint | null>;
  /** A receiver never funded is forgotten this long after it was last registered (ms). */
  idleMs: number;
}

/** How often a round runs (npm start): the receivers' transactions followed. */
export const RECEIVER_SPLIT_EVERY_MS = 5_000;
/** The backstop (a node that missed a log): this many known receivers' balances... */
export const RECEIVERS_PER_SWEEP = 20;
/** ...once every this long, in address order, round and round. */
export const RECEIVER_SWEEP_EVERY_MS = 60_000;
/** Receivers one call looks at (their balances in one batch): the rest of a burst waits for the next round's re-read or the backstop. */
export const RECEIVERS_PER_CALL = 50;
/** Receivers never funded forgotten per round of the backstop (bounded, so a round stays short). */
export const IDLE_RECEIVERS_DROPPED_PER_SWEEP = 1000;
/** A receiver split this recently is not split again (its split is on its way). */
const SPLIT_AGAIN_AFTER_MS = 30_000;

/**
 * Funds that reached a receiver outside a settlement (a plain transfer, an authorization submitted
 * straight to USDC) leave it split: {@link splitReceivers}, given receivers that received funds,
 * sends `X402Receivers.split` for each that holds any. The deposit settler's read of the token's
 * `Transfer` logs tells {@link onTransfers} each round's recipients (one indexed query picks the
 * receivers among them), so the work grows with transfers into receivers, not with receivers known.
 * {@link tick} follows the transactions sent and, once a minute, a backstop reads
 * {@link RECEIVERS_PER_SWEEP} known receivers' balances, a cursor walking them round and round.
 */
export class ReceiverSplitter {
  #cursor: Address | null = null;
  /** Receivers whose split was sent lately (lower case), and when. */
  readonly #recent = new Map<string, { at: number; hash: Hex }>();
  #stop: (() => void) | null = null;
  #sweepAt: number;

  constructor(private readonly deps: ReceiverSplitterDeps) {
    this.#sweepAt = deps.now() + RECEIVER_SWEEP_EVERY_MS;
  }

  /**
   * A round's token transfers: the receivers among their recipients are split where their balance's
   * fee pays for it. Arriving funds make no receiver funded: the split, once mined, does
   * (receiver-sender.ts), so a stranger's transfer too small to split frees no place.
   */
  async onTransfers(transfers: readonly { to: Address }[]): Promise<Hex[]> {
    const receivers = await this.deps.store.among([...new Set(transfers.map((t) => t.to))]);
    return this.splitReceivers(receivers);
  }

  /**
   * Sends a split for every receiver among `receivers` (at most {@link RECEIVERS_PER_CALL}) whose
   * balance's fee pays for the split; returns the transactions sent. Dust waits in the receiver (its
   * next settlement, or anyone's `split`, moves it): otherwise a stranger's dust transfers would each
   * cost the relayer a transaction that earns nothing, as payment addresses refuse to do for a second
   * deposit. One split is priced once per call (every split costs the same). `evenIfDust`: the
   * facilitator's own split of a payment it verified (a front-run), whatever its size.
   */
  async splitReceivers(receivers: X402ReceiverRecord[], options: { evenIfDust?: boolean } = {}): Promise<Hex[]> {
    const { client, token } = this.deps;
    const now = this.deps.now();
    // A split still unmined (stuck, held at the fee ceiling, replaced) keeps its receiver out: a second
    // one would only cost the relayer a transaction that finds the receiver empty.
    for (const [receiver, { at, hash }] of this.#recent) {
      if (now - at > SPLIT_AGAIN_AFTER_MS && !(await this.deps.store.isPending(hash))) this.#recent.delete(receiver);
    }
    const ours = receivers
      .filter((r) => r.token.toLowerCase() === token.toLowerCase() && !this.#recent.has(r.receiver.toLowerCase()))
      .slice(0, RECEIVERS_PER_CALL);
    const balances = await Promise.all(
      ours.map((r) => rpc(() => client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [r.receiver] }))),
    );
    const sent: Hex[] = [];
    let cost: Promise<bigint | null> | undefined;
    for (const [i, r] of ours.entries()) {
      if (balances[i] === 0n) continue;
      const data = encodeFunctionData({ abi: x402ReceiversAbi, functionName: "split", args: [r.token, r.recipient] });
      if (!options.evenIfDust) {
        cost ??= this.deps.costUnits(data);
        const units = await cost;
        if (units === null || (balances[i]! * BigInt(this.deps.feeBps)) / 10_000n < units) continue;
      }
      const out = await this.deps.sender.send(data);
      if (out === "unavailable") continue;
      this.#recent.set(r.receiver.toLowerCase(), { at: now, hash: out.hash });
      sent.push(out.hash);
    }
    return sent;
  }

  /**
   * One round: follow what was sent and, when due, the backstop's next few funded receivers (a
   * receiver nobody ever funded costs it nothing), and forget receivers never funded and idle.
   */
  async tick(): Promise<{ sent: Hex[] }> {
    await this.deps.sender.follow();
    const now = this.deps.now();
    if (now < this.#sweepAt) return { sent: [] };
    this.#sweepAt = now + RECEIVER_SWEEP_EVERY_MS;
    const page = await this.deps.store.page(this.#cursor, RECEIVERS_PER_SWEEP);
    this.#cursor = page.length < RECEIVERS_PER_SWEEP ? null : page[page.length - 1]!.receiver;
    const sent = await this.splitReceivers(page);
    await this.deps.answers.prune(now);
    await this.deps.store.dropIdle(now - this.deps.idleMs, IDLE_RECEIVERS_DROPPED_PER_SWEEP);
    return { sent };
  }

  start(everyMs: number, onFailure: (error: unknown) => void): void {
    this.#stop ??= everyRound(everyMs, () => this.tick(), onFailure);
  }

  stop(): void {
    this.#stop?.();
    this.#stop = null;
  }
}
