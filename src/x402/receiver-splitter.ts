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
}

/** How often the bounded trigger runs (npm start). */
export const RECEIVER_SPLIT_EVERY_MS = 5_000;
/** Receivers looked at per round by the bounded trigger (their balances in one JSON-RPC batch). */
export const RECEIVERS_PER_ROUND = 200;
/** A receiver split this recently is not split again (its split is on its way). */
const SPLIT_AGAIN_AFTER_MS = 30_000;

/**
 * Funds that reached a receiver outside a settlement (a plain transfer, an authorization submitted
 * straight to USDC) leave it split: {@link splitReceivers}, given receivers that received funds,
 * sends `X402Receivers.split` for each that holds any. The detection of arrivals by the token's
 * `Transfer` logs calls it; until then {@link tick} is a bounded trigger of its own: a page of the
 * known receivers per round, their balances in one batch, a cursor over the pages.
 */
export class ReceiverSplitter {
  #cursor: Address | null = null;
  /** Receivers whose split was sent lately (lower case), and when. */
  readonly #recent = new Map<string, number>();
  #stop: (() => void) | null = null;

  constructor(private readonly deps: ReceiverSplitterDeps) {}

  /** Sends a split for every receiver among `receivers` that holds a balance; returns the transactions sent. */
  async splitReceivers(receivers: X402ReceiverRecord[]): Promise<Hex[]> {
    const { client, token } = this.deps;
    const now = this.deps.now();
    for (const [receiver, at] of this.#recent) if (now - at > SPLIT_AGAIN_AFTER_MS) this.#recent.delete(receiver);
    const ours = receivers.filter((r) => r.token.toLowerCase() === token.toLowerCase() && !this.#recent.has(r.receiver.toLowerCase()));
    const balances = await Promise.all(
      ours.map((r) => rpc(() => client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [r.receiver] }))),
    );
    const sent: Hex[] = [];
    for (const [i, r] of ours.entries()) {
      if (balances[i] === 0n) continue;
      const out = await this.deps.sender.send(encodeFunctionData({ abi: x402ReceiversAbi, functionName: "split", args: [r.token, r.recipient] }));
      if (out === "unavailable") continue;
      this.#recent.set(r.receiver.toLowerCase(), now);
      sent.push(out.hash);
    }
    return sent;
  }

  /** One round of the bounded trigger: follow what was sent, then look at the next page of receivers. */
  async tick(): Promise<{ sent: Hex[] }> {
    await this.deps.sender.follow();
    const page = await this.deps.store.page(this.#cursor, RECEIVERS_PER_ROUND);
    this.#cursor = page.length < RECEIVERS_PER_ROUND ? null : page[page.length - 1]!.receiver;
    const sent = await this.splitReceivers(page);
    await this.deps.answers.prune(this.deps.now());
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
