import { getAddress, parseTransaction, recoverAddress, serializeTransaction, type Address, type Hex, type TransactionSerializable } from "viem";
import { keccak256Hex } from "../../src/chain/keccak.js";
import type { BaseNodeStats } from "./base-node-types.js";
import { TRANSACTION_GAS_CAP } from "./denim.js";
import type { RequestProvider } from "./rpc-server.js";
import type { ReadWriteGate } from "./rw-gate.js";

/** The per-sender slots of geth's and reth's default transaction pool: the 17th is refused. */
export const NODE_ACCOUNT_SLOTS = 16;
/** The pool's answer to a sender past its slots: geth's `ErrAccountLimitExceeded`. */
const ACCOUNT_LIMIT_ERROR = { code: -32000, message: "account limit exceeded" };

/**
 * The Base-like node's transaction pool as a node keeps it per sender: the nonces of each sender's
 * unmined transactions (at most `slots`), its next nonce as of the last block; a transaction over
 * EIP-7825's gas cap refused before it.
 */
export class SenderPool {
  /** Per sender: the nonces of its transactions in the pool (unmined), and its next nonce as of the last block. */
  readonly #pool = new Map<Address, { nonces: Set<number>; mined: number }>();

  constructor(
    private readonly upstream: RequestProvider,
    private readonly gate: ReadWriteGate,
    private readonly slots: number,
    private readonly stats: BaseNodeStats,
  ) {}

  /** After a block: each sender's mined nonce, and the pool without what the block took. */
  async pruneMined(): Promise<void> {
    for (const [sender, entry] of this.#pool) {
      if (entry.nonces.size === 0) continue;
      entry.mined = Number(await this.upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
      for (const n of entry.nonces) if (n < entry.mined) entry.nonces.delete(n);
    }
  }

  /** A sender's pool entry, its mined nonce read once (afterwards kept by `pruneMined` after each block). */
  async #entryOf(sender: Address) {
    let entry = this.#pool.get(sender);
    if (!entry) {
      const mined = Number(await this.upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
      entry = this.#pool.get(sender) ?? { nonces: new Set<number>(), mined };
      this.#pool.set(sender, entry);
    }
    return entry;
  }

  async admit(raw: Hex): Promise<Hex> {
    const tx = parseTransaction(raw);
    // EIP-7825: refused before the pool, as geth's and reth's pools refuse it (the nonce stays free).
    if ((tx.gas ?? 0n) > TRANSACTION_GAS_CAP)
      throw Object.assign(new Error(`transaction gas limit too high (cap: ${TRANSACTION_GAS_CAP}, tx: ${tx.gas})`), { code: -32000 });
    // The sender, as recoverTransactionAddress finds it, hashed with Keccak in WebAssembly: a batch of
    // renewals is tens of kilobytes, and viem's JS Keccak made the node a bench's own bottleneck.
    const unsigned = { ...tx, r: undefined, s: undefined, v: undefined, yParity: undefined, sidecars: undefined } as TransactionSerializable;
    const sender = await recoverAddress({
      hash: keccak256Hex(serializeTransaction(unsigned)),
      signature: { r: tx.r!, s: tx.s!, v: tx.v, yParity: tx.yParity } as Parameters<typeof recoverAddress>[0]["signature"],
    });
    const entry = await this.#entryOf(sender);
    const nonce = tx.nonce ?? 0;
    // The slot is counted and taken at once (no await between), as a node's pool does under its lock.
    // A replacement takes the slot it replaces; a nonce already mined is the node's to refuse.
    const fresh = nonce >= entry.mined && !entry.nonces.has(nonce);
    if (fresh && entry.nonces.size >= this.slots) {
      this.stats.refusedFull++;
      throw Object.assign(new Error(ACCOUNT_LIMIT_ERROR.message), { code: ACCOUNT_LIMIT_ERROR.code });
    }
    if (fresh) entry.nonces.add(nonce);
    try {
      const hash = (await this.gate.read(() => this.upstream.request({ method: "eth_sendRawTransaction", params: [raw] }))) as Hex;
      this.stats.accepted++;
      return hash;
    } catch (error) {
      if (fresh) entry.nonces.delete(nonce); // refused by the node itself: the slot is free again
      throw error;
    }
  }

  /**
   * A sender's pending nonce as a node's pool answers it: its latest nonce and the unbroken run of its
   * transactions in the pool above it. The local chain would build a pending block from its whole
   * pool to answer it.
   */
  async pendingNonce(sender: Address): Promise<Hex> {
    let next = Number(await this.upstream.request({ method: "eth_getTransactionCount", params: [sender, "latest"] }));
    const entry = this.#pool.get(sender);
    if (entry) while (entry.nonces.has(next)) next++;
    return hex(BigInt(next));
  }

  /** The pool as the chain holds it (after a revert brought transactions back into it). */
  async rebuild(): Promise<void> {
    this.#pool.clear();
    const pending = (await this.upstream.request({ method: "eth_pendingTransactions", params: [] })) as { from: Hex; nonce: Hex }[];
    for (const tx of pending) (await this.#entryOf(getAddress(tx.from))).nonces.add(Number(BigInt(tx.nonce)));
  }

  /** A transaction of `sender` left the pool unmined (dropped): its slot is free. */
  forget(sender: Address, nonce: number): void {
    this.#pool.get(sender)?.nonces.delete(nonce);
  }

  /** Forgets every sender (read again from the chain on its next transaction). */
  clear(): void {
    this.#pool.clear();
  }
}

function hex(n: bigint): Hex {
  return `0x${n.toString(16)}`;
}
