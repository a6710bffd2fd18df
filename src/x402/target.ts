import type { Address, Hex, TransactionReceipt } from "viem";
import type { Agreed } from "../chain/agreement.js";
import type { SettlementPrice } from "../payments/deposit-settler.js";
import type { Eip3009Authorization } from "./payload.js";

/** A request's authorization, parsed: who pays, what they signed. */
export interface Authorized {
  payer: Address;
  authorization: Eip3009Authorization;
  signature: Hex;
}

/**
 * What a `payTo` is, for the facilitator's shared verify and settle: a payment address (one per
 * intent, intent-payto.ts) or a merchant's receiver (receiver-payto.ts). Each kind says how its
 * settlement is priced and sent, and how the chain proves an authorization paid it.
 */
export interface PayToTarget {
  kind: "intent" | "receiver";
  /** The key of the one success answer (x402_answers). */
  subject: string;
  payTo: Address;
  amount: bigint;
  /** Gas this settlement may use beyond the facilitator's ceiling: a receiver's one-time deployment, by its first settlement. */
  extraGas: bigint;
  /** Settled already by other funds (a payment address whose payment settled): only a proof that this authorization paid answers success. */
  settledAlready: boolean;
  /** The settlement simulated as the relayer would send it, priced; null when it reverts. */
  price(): Promise<SettlementPrice | null>;
  /** Sends the settlement: its hash, "taken" (a settlement of this payTo is already out), or "unavailable". */
  send(maxGas: bigint): Promise<{ hash: Hex } | "taken" | "unavailable">;
  /** The settlement already out when `send` answered "taken". */
  takenHash(): Promise<Hex | undefined>;
  /** After our settlement reverted: true when nothing else explains it (no front-runner settled or used the authorization), so the payer is to blame. */
  revertedOnItsOwn(): Promise<boolean>;
  /** Whether our own mined settlement is this authorization's payment, settled. */
  paidByOwn(receipt: TransactionReceipt): boolean;
  /** Whether a receipt is a transaction {@link paidBy} may name: one that settled this payTo (its `Paid`; a receiver's: this authorization's transfer into it). */
  settledIn(receipt: Agreed<TransactionReceipt>): boolean;
  /** From the chain: the transaction that answers success (the authorization paid this payTo and it was settled), or why not. */
  paidBy(): Promise<Hex | "unsettled" | "not by this authorization">;
}
