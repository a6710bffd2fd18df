import type { Address, Hex } from "viem";
import { agreeOnRead } from "../chain/agreement.js";
import { create2Address } from "../chain/keccak.js";
import { SplitterReader, type SplitterChain } from "../chain/contracts/splitter.js";
import type { Intent } from "./intent.js";
import { paymentKeyOf } from "./verify.js";

/**
 * Payment addresses: where a plain transfer of a payment's amount pays it (an exchange withdrawal, an
 * EIP-681 request, any wallet). Each is CREATE2 of the Splitter, the payment's key and the forwarder's
 * creation code hash, so it is derived here without a chain call per payment. The hash is read from
 * the deployed Splitter once (the contract's own value, whatever build deployed it), from every node,
 * and the majority's answer is the one used; a failed read is tried again on the next use.
 */
export class DepositAddresses {
  #codeHash: Promise<Hex> | null = null;

  constructor(private readonly chain: SplitterChain & { deployment: { token: { address: Address } } }) {}

  /** The forwarder code hash, read once, the answer a majority of the chain's nodes give (every payment address is derived from it). */
  codeHash(): Promise<Hex> {
    if (!this.#codeHash) {
      const read = agreeOnRead("code_hash", this.chain.client, (client) => SplitterReader.of({ ...this.chain, client }).forwarderCodeHash());
      this.#codeHash = read;
      read.catch(() => {
        if (this.#codeHash === read) this.#codeHash = null;
      });
    }
    return this.#codeHash;
  }

  /** The payment address of `intent`'s payment (the deployment's token). */
  of(intent: Pick<Intent, "recipient" | "amountUnits" | "reference">): Promise<Address> {
    return this.ofKey(paymentKeyOf(this.chain.deployment.token.address, intent));
  }

  /** The payment address of the payment whose key is `key` (what a `Paid` names). */
  async ofKey(key: Hex): Promise<Address> {
    return depositAddressOf(this.chain.deployment.contracts.Splitter.address, key, await this.codeHash());
  }
}

/** CREATE2(splitter, key, codeHash): the Splitter's `depositAddress`, off chain. */
export function depositAddressOf(splitter: Address, key: Hex, codeHash: Hex): Address {
  return create2Address(splitter, key, codeHash);
}
