import {
  encodeAbiParameters,
  getContractAddress,
  isAddressEqual,
  keccak256,
  parseEventLogs,
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from "viem";
import { x402ReceiversAbi } from "../../generated/contracts.js";
import { agreeOnRead } from "../agreement.js";
import { rpc } from "../rpc-errors.js";

export type ReceiverPaidLog = ReturnType<typeof parseEventLogs<typeof x402ReceiversAbi, true, "ReceiverPaid">>[number];
export type ReceiverSplitLog = ReturnType<typeof parseEventLogs<typeof x402ReceiversAbi, true, "ReceiverSplit">>[number];
const RECEIVER_SPLIT = x402ReceiversAbi.find((i) => i.type === "event" && i.name === "ReceiverSplit")!;

/** What locates X402Receivers: the client and the deployment. */
export interface X402ReceiversChain {
  client: PublicClient;
  deployment: { contracts: { X402Receivers: { address: Address } } };
}

/** A receiver's CREATE2 salt: `keccak256(abi.encode(recipient, token))`, as X402Receivers computes it. */
export function receiverSalt(recipient: Address, token: Address): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "address" }], [recipient, token]));
}

/** A receiver's address, offline: CREATE2 of X402Receivers with the receiver's creation-code hash. */
export function receiverAddress(receivers: Address, codeHash: Hex, recipient: Address, token: Address): Address {
  return getContractAddress({ opcode: "CREATE2", from: receivers, salt: receiverSalt(recipient, token), bytecodeHash: codeHash });
}

/** Reads of X402Receivers (the x402 receivers' factory and settler), for the facilitator and the verdict. */
export class X402ReceiversReader {
  /** Per client (one service's nodes) and contract: a service started on other nodes reads it again. */
  static #codeHashes = new WeakMap<PublicClient, Map<string, Promise<Hex>>>();

  static of(chain: X402ReceiversChain): X402ReceiversReader {
    return new X402ReceiversReader(chain.client, chain.deployment.contracts.X402Receivers.address);
  }

  constructor(
    private readonly client: PublicClient,
    readonly address: Address,
  ) {}

  /** The receiver's creation-code hash, read once per contract and nodes (it never changes); a failed read is asked again next time. */
  codeHash(): Promise<Hex> {
    const byAddress = X402ReceiversReader.#codeHashes.get(this.client) ?? new Map<string, Promise<Hex>>();
    X402ReceiversReader.#codeHashes.set(this.client, byAddress);
    let cached = byAddress.get(this.address);
    if (!cached) {
      // Every receiver address is derived from it: the answer a majority of the chain's nodes give.
      cached = agreeOnRead("code_hash", this.client, (client) =>
        rpc(() => client.readContract({ address: this.address, abi: x402ReceiversAbi, functionName: "RECEIVER_CODE_HASH" })),
      ).then((hash) => hash as Hex);
      cached.catch(() => byAddress.delete(this.address));
      byAddress.set(this.address, cached);
    }
    return cached;
  }

  /** The receiver of `recipient` for `token` (derived, no call once the code hash is known). */
  async receiverOf(recipient: Address, token: Address): Promise<Address> {
    return receiverAddress(this.address, await this.codeHash(), recipient, token);
  }

  /** The `ReceiverPaid` events this contract emitted in a receipt. */
  paidIn(receipt: TransactionReceipt): ReceiverPaidLog[] {
    return parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverPaid", logs: receipt.logs, strict: true }).filter((l) =>
      isAddressEqual(l.address, this.address),
    );
  }

  /**
   * The `ReceiverSplit` events of `token` this contract emitted in a receipt. A receiver splits any
   * ERC-20 it holds (`splitAsset`), so a split of another token names the same receiver: only the
   * token's own splits say its funds left.
   */
  splitIn(receipt: TransactionReceipt, token: Address): ReceiverSplitLog[] {
    return parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: receipt.logs, strict: true }).filter(
      (l) => isAddressEqual(l.address, this.address) && isAddressEqual(l.args.token, token),
    );
  }

  /** `ReceiverSplit` logs of one receiver's `token` in `[fromBlock, toBlock]` (see {@link splitIn}). */
  splitLogs(receiver: Address, token: Address, fromBlock: bigint, toBlock: bigint) {
    return rpc(() => this.client.getLogs({ address: this.address, event: RECEIVER_SPLIT, args: { receiver, token }, fromBlock, toBlock, strict: true }));
  }
}
