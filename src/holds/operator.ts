import { encodeFunctionData, isAddressEqual, type Address, type Hex, type PublicClient, type TransactionReceipt } from "viem";
import { agreeOnReceipt, type Agreed } from "../chain/agreement.js";
import { isReceiptSettled } from "../chain/finality.js";
import { readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import type { EscrowSet } from "../deployments.js";
import { DomainError } from "../errors.js";
import { authCaptureEscrowAbi } from "../generated/contracts.js";
import type { TokenEip712 } from "../chain/token-authorizations.js";
import type { CeilingSimulation } from "../chain/relayer-reads.js";
import type { RelayerLedger, SettlementSender } from "../payments/relayer-call.js";
import { fundedRelayerCall } from "../payments/relayer-call.js";
import type { HoldOperation, HoldTransactionStore } from "../store/hold-transactions.js";
import type { RevertedPayers } from "./operator-follow.js";
import { everyRound } from "../rounds.js";
import { decodeEscrowEvent } from "./escrow-events.js";
import { agreedHoldSimulation } from "./escrow-refusals.js";
import { followHoldTransactions } from "./operator-follow.js";
import { feeAmountOf } from "./fee.js";
import { gasCeiling, OPERATOR_BASE_GAS, opens, type HoldRequest, type HoldRules } from "./hold-rules.js";
import { checkSignedFee, overCeiling, senderFor } from "./operator-checks.js";
import { holdAuthorizationTypedData, payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "./payment-info.js";

export interface HoldOperatorDeps {
  client: PublicClient;
  chainId: number;
  /**
   * The escrow sets the operator calls (Commerce Payments' AuthCaptureEscrow, or the local stand-in at
   * its address, and its EIP-3009 collector): the first is the holds'; x402 charges may name any.
   */
  sets: readonly EscrowSet[];
  store: HoldTransactionStore;
  /** The relayer: its account is the escrow's operator for every hold this service makes. */
  sender: SettlementSender;
  /**
   * The relayer's retired accounts (RELAYER_RETIRED_KEYS): each is still the operator of the open
   * holds made under it, so it sends their captures and voids, and nothing else.
   */
  retiredSenders?: readonly SettlementSender[];
  quoteFees: () => Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  now: () => number;
  /** A transaction still unmined this long after it was sent is replaced with a higher fee, within the relayer's ceiling. */
  replaceAfterMs: number;
  /** The finality the service states: a hold's verdict is formed only from a receipt a majority of the nodes hold this final. */
  finality: Finality;
  /** The deployment's fee (`fee_bps`), which every hold signs as both bounds, and who receives it (the fee collector). */
  feeBps: number;
  feeReceiver: Address;
  /** Payers refused for a while after one of their authorizations reverted on chain (x402's table: one rule for every escrow call a payer's signature opens). */
  payers?: RevertedPayers;
  /** The rules every door's calls are held to: a caller's limit, one payer per hold, the relayer's budget (hold-rules.ts). */
  rules: HoldRules;
  /** SIGNATURE_GAS_CAP: what a payer's own signature check may add to an authorize or charge. */
  signatureGasCap: bigint;
  /** Where each mined call's gas and fee are counted (/metrics). */
  ledger?: RelayerLedger;
  /** The token's EIP-712 domain: a contract payer's signature is checked over it when its simulation fails. */
  tokenEip712: TokenEip712;
  onError?: (hash: Hex, error: unknown) => void;
}

/** An operator call recorded and broadcast: its transaction and the hold it is for. */
export interface HoldSent {
  hash: Hex;
  paymentHash: Hex;
  operation: HoldOperation;
}

/** What the escrow did in a mined operator call, once a majority of the nodes hold it final. */
export type HoldStep =
  | { step: "authorized"; amount: bigint }
  | { step: "charged"; amount: bigint; feeAmount: bigint }
  | { step: "captured"; amount: bigint; feeAmount: bigint }
  | { step: "voided"; amount: bigint };

/** A transaction's outcome: not mined (or not final on a majority yet), reverted, or the escrow's step on the majority's receipt. */
export type HoldOutcome =
  | { state: "confirming" }
  | { state: "reverted"; receipt: Agreed<TransactionReceipt> }
  | { state: "done"; receipt: Agreed<TransactionReceipt>; step: HoldStep };

/**
 * The service as the escrow's operator: `authorize`, `capture`, `charge` (both in one step) and `void`,
 * sent by the relayer under its rules: simulated first (a refusal answered in the service's words,
 * nothing signed), priced with the L1 data fee, recorded with the relayer's next nonce before it is
 * broadcast, one call per hold in flight, and followed (lost: sent again; stuck: replaced within the
 * fee ceiling). The fee is always the deployment's `fee_bps` to the fee collector, and a hold whose
 * signed terms do not name this service as operator with exactly that fee is refused before any read.
 */
export class HoldOperator {
  #stop: (() => void) | null = null;

  constructor(private readonly deps: HoldOperatorDeps) {}

  /** Follows the recorded operator calls every `everyMs` (a store read while none is in flight, nothing of the chain). */
  start(everyMs: number, onFailure: (error: unknown) => void): void {
    this.#stop ??= everyRound(everyMs, () => this.follow(), onFailure);
  }

  stop(): void {
    this.#stop?.();
    this.#stop = null;
  }

  /** The escrow's operator for this service's holds (the relayer's account); null without a relayer key. */
  get operator(): Address | null {
    return this.deps.sender.address;
  }

  /** The holds' escrow set: the first listed. */
  get #holds(): EscrowSet {
    return this.deps.sets[0]!;
  }

  /** The escrow's name for a hold (at the holds' escrow unless another set is named). */
  hashOf(info: PaymentInfo, set: EscrowSet = this.#holds): Hex {
    return paymentInfoHash(info, this.deps.chainId, set.escrow);
  }

  /**
   * Authorizes the most the hold may capture, with the buyer's ERC-3009 signature to the holds'
   * collector. `request` names who asks (the holds API's caller, or x402's): the same rules hold for both.
   */
  async authorize(info: PaymentInfo, signature: Hex, request: HoldRequest = {}): Promise<HoldSent> {
    await this.#payerAdmitted(info.payer);
    const set = this.#holds;
    return this.#send(info, { functionName: "authorize", args: [info, info.maxAmount, set.eip3009Collector, signature] }, set, request);
  }

  /** Authorizes and captures `amount` in one step (x402 `auth-capture` without a hold) at `set`'s escrow, at the deployment's fee. */
  async charge(info: PaymentInfo, amount: bigint, signature: Hex, set: EscrowSet = this.#holds, request: HoldRequest = {}): Promise<HoldSent> {
    const { feeBps, feeReceiver } = this.deps;
    if (!this.deps.sets.some((s) => isAddressEqual(s.escrow, set.escrow) && isAddressEqual(s.eip3009Collector, set.eip3009Collector)))
      throw new DomainError("INVALID_HOLD", { detail: "an escrow this deployment does not list" });
    await this.#payerAdmitted(info.payer);
    const args = [info, amount, set.eip3009Collector, signature, feeAmountOf(amount, feeBps), feeReceiver] as const;
    return this.#send(info, { functionName: "charge", args }, set, request);
  }

  /** A payer one of whose authorizations passed its simulation and reverted on chain lately is refused: the relayer paid for one. */
  async #payerAdmitted(payer: Address): Promise<void> {
    if (await this.deps.payers?.isPayerRefused(payer, this.deps.now())) {
      throw new DomainError("TRANSACTION_REVERTED", { detail: "an authorization of this payer's reverted on chain lately: none of theirs is sent for now" });
    }
  }

  /** Captures `amount` of what is authorized: the hold's signed fee of it to its signed fee receiver, the rest to the receiver. */
  capture(info: PaymentInfo, amount: bigint, request: HoldRequest = {}): Promise<HoldSent> {
    return this.#send(info, { functionName: "capture", args: [info, amount, feeAmountOf(amount, info.maxFeeBps), info.feeReceiver] }, this.#holds, request);
  }

  /** Sends everything still authorized back to the buyer (counted in the relayer's budget when nothing was captured, never refused by it). */
  void(info: PaymentInfo, request: HoldRequest = {}): Promise<HoldSent> {
    return this.#send(info, { functionName: "void", args: [info] }, this.#holds, request);
  }

  /** The hold's operator call on its way, if any (a second one is refused until it is mined): this payment's, or any payer's authorization of its terms. */
  async inFlight(info: PaymentInfo, set: EscrowSet = this.#holds) {
    return (await this.deps.store.inFlight(this.hashOf(info, set))) ?? (await this.deps.store.inFlight(this.#termsHash(info, set)));
  }

  /**
   * The transactions recorded for a hold on the holds' escrow (its authorization under the terms'
   * hash, later calls under the payment's; `info`'s payer may be the zero address before one is
   * known), sent or mined, oldest first: where its steps are, without a log range read.
   */
  async recorded(info: PaymentInfo): Promise<Hex[]> {
    const set = this.#holds;
    return (await this.deps.store.calls([this.#termsHash(info, set), this.hashOf(info, set)])).map((t) => t.hash);
  }

  /** Which of these payments (their hashes, lowercase) the service sent a void for: the list tells a void from a reclaim by it. */
  async voidedAmong(paymentHashes: Hex[]): Promise<Set<string>> {
    const calls = await this.deps.store.calls(paymentHashes);
    return new Set(calls.filter((t) => t.operation === "void").map((t) => t.paymentHash.toLowerCase()));
  }

  /**
   * Where a call is recorded (one in flight per key): an authorization (or charge) under the terms'
   * payer-agnostic hash, so two payers authorizing the same hold at once cannot both be sent (each
   * would lock its funds in a payment of its own); every later call under the payment's hash.
   */
  #recordKey(info: PaymentInfo, operation: HoldOperation, set: EscrowSet): Hex {
    return operation === "authorize" || operation === "charge" ? this.#termsHash(info, set) : this.hashOf(info, set);
  }

  #termsHash(info: PaymentInfo, set: EscrowSet): Hex {
    return payerAgnosticHash(info, this.deps.chainId, set.escrow);
  }

  /**
   * What a mined operator call did, on the receipt a majority of the nodes hold final (one node's copy
   * is never the verdict): the escrow's own event in it, for this escrow.
   */
  async outcome(hash: Hex): Promise<HoldOutcome> {
    const { client, finality } = this.deps;
    const receipt = await readReceipt(client, hash);
    // Final first (at or below the finality head, its block still canonical), then on a majority's word.
    if (!receipt || !(await isReceiptSettled(client, finality, receipt))) return { state: "confirming" };
    const seen = this.#stepIn(receipt);
    if (receipt.status !== "success" || !seen) {
      const agreed = await agreeOnReceipt("watch_end", client, finality, receipt);
      return agreed ? { state: "reverted", receipt: agreed } : { state: "confirming" };
    }
    let agreed: Agreed<TransactionReceipt> | null;
    switch (seen.step) {
      case "authorized":
        agreed = await agreeOnReceipt("hold_authorized", client, finality, receipt);
        break;
      case "charged":
      case "captured":
        agreed = await agreeOnReceipt("hold_captured", client, finality, receipt);
        break;
      case "voided":
        agreed = await agreeOnReceipt("hold_voided", client, finality, receipt);
        break;
    }
    // The step is read again from the majority's own receipt, never from the copy first read.
    const step = agreed ? this.#stepIn(agreed) : null;
    return agreed && step ? { state: "done", receipt: agreed, step } : { state: "confirming" };
  }

  /** One round over the recorded transactions (see operator-follow.ts); how many ended. */
  follow(limit = 100): Promise<number> {
    return followHoldTransactions(this.deps, limit);
  }

  /** The escrow's step in a receipt: its first PaymentAuthorized, PaymentCharged, PaymentCaptured or PaymentVoided log, from a listed escrow. */
  #stepIn(receipt: TransactionReceipt): HoldStep | null {
    for (const log of receipt.logs) {
      if (!this.deps.sets.some((s) => isAddressEqual(s.escrow, log.address))) continue;
      const event = decodeEscrowEvent(log);
      if (!event) continue;
      switch (event.eventName) {
        case "PaymentAuthorized":
          return { step: "authorized", amount: event.args.amount };
        case "PaymentCharged":
          return { step: "charged", amount: event.args.amount, feeAmount: event.args.feeAmount };
        case "PaymentCaptured":
          return { step: "captured", amount: event.args.amount, feeAmount: event.args.feeAmount };
        case "PaymentVoided":
          return { step: "voided", amount: event.args.amount };
      }
    }
    return null;
  }

  /**
   * Checks the hold is this service's and the call within the rules (hold-rules.ts), simulates it
   * once at its gas ceiling as a majority of the nodes answer (a refusal answered in the service's
   * words, nothing signed), then records it with that ceiling as its gas limit and broadcasts it.
   */
  async #send(info: PaymentInfo, call: OperatorCall, set: EscrowSet, request: HoldRequest): Promise<HoldSent> {
    const operation = call.functionName;
    const data = encodeFunctionData({ abi: authCaptureEscrowAbi, ...call } as never);
    const { client, store, rules } = this.deps;
    const { escrow } = set;
    if (!this.deps.sender.address) throw new DomainError("RELAYER_UNAVAILABLE", { detail: "no relayer key" });
    const sender = senderFor(info.operator, operation, this.deps.sender, this.deps.retiredSenders);
    if (!sender) throw new DomainError("INVALID_HOLD", { detail: "the hold names another operator" });
    const relayer = sender.address!;
    checkSignedFee(info, operation, this.deps.feeBps, this.deps.feeReceiver);
    const paymentHash = this.hashOf(info, set);
    const busy = await this.inFlight(info, set);
    if (busy) throw new DomainError("HOLD_BUSY", { txHash: busy.hash, detail: `${busy.operation} in flight` });
    if (opens(operation)) await rules.admitOpening(info, operation, this.#termsHash(info, set), request);
    const gas = gasCeiling(operation, this.deps.signatureGasCap);
    const fees = await this.deps.quoteFees();
    const simulate = (node: PublicClient, blockNumber: bigint | undefined) =>
      node.simulateContract({
        address: escrow,
        abi: authCaptureEscrowAbi,
        account: relayer,
        ...call,
        gas,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        ...(blockNumber === undefined ? {} : { blockNumber }),
      } as never);
    let simulated: CeilingSimulation;
    try {
      simulated = await agreedHoldSimulation(client, simulate, () => this.#collected(paymentHash, escrow));
    } catch (error) {
      throw await this.#tooExpensive(error, info, call, set);
    }
    if (!simulated.passes) throw overCeiling(operation, gas);
    // What the call should cost (its steady-state gas, hold-rules.ts), at the fee cap it bids: the budget's measure, before the receipt says.
    const costWei = OPERATOR_BASE_GAS[operation] * fees.maxFeePerGas;
    const feeUnits = operation === "charge" ? feeAmountOf(call.args[1], this.deps.feeBps) : 0n;
    if (operation === "charge") await rules.admitCharge(info, feeUnits, costWei, request);
    const ready = await fundedRelayerCall({ ...this.deps, sender }, escrow, data, gas, fees.maxFeePerGas);
    if (!ready) throw new DomainError("RELAYER_UNAVAILABLE", { detail: "the operator call cannot be sent now (paused, or no gas money)" });
    const recorded = await store.record({ relayer, paymentHash: this.#recordKey(info, operation, set), operation }, ready.pending, this.deps.now(), (nonce) =>
      sender.sign({ to: escrow, data, gas, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }, nonce),
    );
    if ("busy" in recorded) throw new DomainError("HOLD_BUSY", { txHash: recorded.busy.hash, detail: `${recorded.busy.operation} in flight` });
    await sender.send(recorded).catch(() => {}); // recorded: the follow round sends it again if lost
    await rules.sent(info, operation, paymentHash, costWei, feeUnits, request).catch((error: unknown) => this.deps.onError?.(recorded.hash, error));
    return { hash: recorded.hash, paymentHash, operation };
  }

  /**
   * A refusal of the simulated call, unless it is a contract payer's signature check that alone spends
   * more than SIGNATURE_GAS_CAP (its check fails under the ceiling, and the token says only "invalid
   * signature"): then SIGNATURE_VALIDATION_TOO_EXPENSIVE.
   */
  async #tooExpensive(refused: unknown, info: PaymentInfo, call: OperatorCall, set: EscrowSet): Promise<unknown> {
    if (!(refused instanceof DomainError) || refused.code !== "INVALID_SIGNATURE" || !opens(call.functionName)) return refused;
    const chain = { chainId: this.deps.chainId, escrow: set.escrow, collector: set.eip3009Collector, tokenEip712: this.deps.tokenEip712 };
    const typed = holdAuthorizationTypedData(info, info.payer, chain);
    const signature = call.args[3] as Hex;
    return (await this.deps.rules.signatureTooExpensive(info.payer, typed as never, signature))
      ? new DomainError("SIGNATURE_VALIDATION_TOO_EXPENSIVE", { detail: `the payer's signature check spends more than ${this.deps.signatureGasCap} gas` })
      : refused;
  }

  async #collected(paymentHash: Hex, escrow: Address): Promise<boolean> {
    const [collected] = await this.deps.client.readContract({
      address: escrow,
      abi: authCaptureEscrowAbi,
      functionName: "paymentState",
      args: [paymentHash],
    });
    return collected;
  }
}

/** An operator call to the escrow, as its ABI names it. */
type OperatorCall =
  | { functionName: "authorize"; args: readonly [PaymentInfo, bigint, Address, Hex] }
  | { functionName: "charge"; args: readonly [PaymentInfo, bigint, Address, Hex, bigint, Address] }
  | { functionName: "capture"; args: readonly [PaymentInfo, bigint, bigint, Address] }
  | { functionName: "void"; args: readonly [PaymentInfo] };
