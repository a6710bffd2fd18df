import { keccak256, type Address, type Chain, type Hex, type PrivateKeyAccount, type PublicClient } from "viem";
import { ServiceError } from "../errors.js";
import { rpc } from "../chain/rpc-errors.js";

export interface SignedTransaction {
  hash: Hex;
  raw: Hex;
  nonce: number;
}

export interface RelayerOptions {
  /** Operator switch: a paused relayer answers RELAYER_UNAVAILABLE and sends nothing. */
  paused: boolean;
  /** Test hook: runs after the transaction is recorded and before it is broadcast (a crash there). */
  beforeBroadcast?: (tx: SignedTransaction) => Promise<void> | void;
}

/**
 * The service's relayer: signs charge transactions locally and broadcasts them. Submissions run one
 * at a time under a lock, each taking the node's pending nonce after the previous broadcast, so
 * concurrent charges of different subscriptions never collide (and a reorg that rewinds the nonce
 * is followed, not fought).
 */
export class Relayer {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: PublicClient,
    readonly account: PrivateKeyAccount | null,
    private readonly chain: Chain,
    private readonly options: RelayerOptions,
  ) {}

  get address(): Address | null {
    return this.account?.address ?? null;
  }

  /** Refuses when paused, keyless, or without the ETH to pay `gas` at `maxFeePerGas`. Nothing is spent. */
  async ensureAvailable(gas: bigint, maxFeePerGas: bigint): Promise<Address> {
    if (this.options.paused || !this.account) throw new ServiceError("RELAYER_UNAVAILABLE", { detail: this.account ? "paused" : "no relayer key" });
    const balance = await rpc(() => this.client.getBalance({ address: this.account!.address }));
    if (balance < gas * maxFeePerGas) throw new ServiceError("RELAYER_UNAVAILABLE", { detail: "relayer short of gas money" });
    return this.account.address;
  }

  /**
   * Signs a transaction with the next nonce, lets `record` store it (before anything leaves the
   * process), then broadcasts it. Returns null when `record` declined (someone else recorded first).
   */
  submit(
    call: { to: Address; data: Hex; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    record: (tx: SignedTransaction) => Promise<boolean>,
  ): Promise<SignedTransaction | null> {
    const run = this.#queue.then(() => this.#submit(call, record));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #submit(
    call: { to: Address; data: Hex; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    record: (tx: SignedTransaction) => Promise<boolean>,
  ): Promise<SignedTransaction | null> {
    const account = this.account!;
    const nonce = await rpc(() => this.client.getTransactionCount({ address: account.address, blockTag: "pending" }));
    const raw = await account.signTransaction({
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
    const tx = { hash: keccak256(raw), raw, nonce };
    if (!(await record(tx))) return null;
    await this.options.beforeBroadcast?.(tx);
    await this.broadcast(tx.raw);
    return tx;
  }

  /** Sends a signed transaction; a refusal is RELAYER_ERROR. */
  async broadcast(raw: Hex): Promise<void> {
    try {
      await this.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      throw new ServiceError("RELAYER_ERROR", { cause: error });
    }
  }
}
