import { erc20Abi, isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from "viem";
import { z } from "zod";
import { DomainError } from "../errors.js";
import type { FairGate } from "../limits/fair-gate.js";
import { formatAmount, parseUnits } from "../money.js";
import { isSettled, readReceiptsAfterHead } from "../chain/finality.js";
import { agreeOnRead, agreeOnReceipt, type Agreed, type VerdictKind } from "../chain/agreement.js";
import { TOKEN_KINDS, type CapabilityTokens } from "../tokens/capability.js";
import { readIntent } from "../payments/intent.js";
import type { SubscriptionCapabilities } from "../recurring/capabilities.js";
import type { DepositAddresses } from "../payments/deposit-address.js";
import { depositorOf } from "../payments/depositor.js";
import { chargeSettlement, isAfter, paymentSettlement, referenceSettlement, type Settlement, type SettlementChain } from "./settlement.js";

/** The original settlement a refund names: a payment (intent) or one recurring charge (subscription + period). */
export interface RefundIdentifier {
  txHash: Hex;
  intent?: string;
  subscription?: string;
  periodIndex?: number;
  /** Extension: with neither capability, the payment a `Paid` (or an x402 receiver's `ReceiverPaid`) names by this reference in `txHash`. */
  reference?: Hex;
  /**
   * Extension (DESIGN v7): the wallet to refund where the chain names no payer, one of the senders
   * PAYER_UNKNOWN listed; where it names one, `to` must be that payer. Verify is stateless: it takes
   * the same `to` as prepare, and checks the transfer went there.
   */
  to?: Address;
}

export interface RefundsDeps {
  chain: SettlementChain;
  /** Payment addresses: a payment settled from one names the address as payer; the refund goes to who sent the deposit. */
  depositAddresses: DepositAddresses;
  tokens: CapabilityTokens;
  subscriptions: SubscriptionCapabilities;
  ttlSeconds: number;
  now: () => number;
  /**
   * Every prepare and verify reads the chain (a payment address's depositor search may walk far back)
   * and `reference` needs no capability: each caller's calls wait in a queue of their own, in turn.
   */
  gate: Pick<FairGate, "run" | "held">;
}

/**
 * Ranges a refund's depositor search asks at most: a refund is rare and its target is money, so it
 * reads back as far as a month of Base (13,000,000 blocks) behind a 10,000-block range cap.
 */
const REFUND_DEPOSITOR_MAX_READS = 1_400;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** A refund token locks terms derived from the chain only; the merchant chose nothing but the amount. */
const RefundPayload = z.strictObject({
  token: address,
  merchant: address,
  payer: address,
  amount_units: z.string().regex(/^[1-9][0-9]{0,29}$/),
  expires_at: z.number().int(),
  deposit: z.literal(true).optional(),
});

/** The settlement a refund answers, with its ceiling where the merchant named one of several senders. */
type Target = Settlement & { ceilingUnits?: bigint };

/** A judgement of the original receipt (its refusals thrown): the settlement, and the payment address its payer may be. */
type Judge = (receipt: Agreed<TransactionReceipt> | null, head: bigint) => { settlement: Settlement; depositAddress?: () => Promise<Address> };

/**
 * The refund's one transfer in `receipt`: exactly one transfer of the payment token from the
 * merchant to the payer, for exactly `amount`, after the original settlement's event (by block, then
 * log index); REFUND_TRANSACTION_MISMATCH otherwise. Other transfers in the receipt (a multisig's
 * batch) are ignored.
 */
function refundTransfer(receipt: Agreed<TransactionReceipt>, settlement: Settlement, amount: bigint): void {
  if (receipt.status !== "success") throw new DomainError("REFUND_TRANSACTION_MISMATCH", { detail: "reverted" });
  const toPayer = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs, strict: true }).filter(
    (l) => isAddressEqual(l.address, settlement.token) && isAddressEqual(l.args.from, settlement.merchant) && isAddressEqual(l.args.to, settlement.payer),
  );
  const [transfer] = toPayer;
  if (toPayer.length !== 1 || transfer!.args.value !== amount) throw new DomainError("REFUND_TRANSACTION_MISMATCH");
  // A transfer at or before the original's event (an earlier payout of the same amount) is not its refund.
  if (!isAfter({ blockNumber: receipt.blockNumber, logIndex: transfer!.logIndex }, settlement.position)) {
    throw new DomainError("REFUND_TRANSACTION_MISMATCH", { detail: "the transfer precedes the original settlement" });
  }
}

/**
 * Refunds: a plain token transfer from the merchant's wallet to the wallet that paid. The service
 * derives token, merchant, payer and ceiling from the chain, locks them in a short-lived token for
 * the checkout, and verifies the transfer by its event. It keeps no refund history.
 */
export class Refunds {
  constructor(private readonly deps: RefundsDeps) {}

  /** Prepares and verifies running and waiting in the gate now. */
  get held(): { running: number; waiting: number } {
    return this.deps.gate.held;
  }

  /** Prepare in `caller`'s own turn (callers told apart as the rate limiter tells them); RPC_BUSY past its queue. */
  async prepare(id: RefundIdentifier, amountText: string, caller = "anyone") {
    return this.#gated(caller, () => this.#prepare(id, amountText));
  }

  /** Verify in `caller`'s own turn, as prepare. */
  async verify(id: RefundIdentifier, refundAmountText: string, refundTxHash: Hex, caller = "anyone") {
    return this.#gated(caller, () => this.#verify(id, refundAmountText, refundTxHash));
  }

  async #gated<T>(caller: string, work: () => Promise<T>): Promise<T> {
    const ran = await this.deps.gate.run(caller, work);
    if (!ran) throw new DomainError("RPC_BUSY", { detail: "this caller's refund queue is full" });
    return ran.value;
  }

  async #prepare(id: RefundIdentifier, amountText: string) {
    const judge = this.#settlement(id);
    const { head, receipts } = await readReceiptsAfterHead(this.deps.chain.client, this.deps.chain.finality, [id.txHash]);
    const settlement = await this.#original("refund_target", judge, receipts[0]!, head, id.to);
    const amount = this.#amount(amountText, settlement);
    const expiresAt = Math.floor(this.deps.now() / 1000) + this.deps.ttlSeconds;
    const refundToken = this.deps.tokens.mint(TOKEN_KINDS.refund, {
      token: settlement.token,
      merchant: settlement.merchant,
      payer: settlement.payer,
      amount_units: amount.toString(),
      expires_at: expiresAt,
      ...(settlement.fromDeposit ? { deposit: true as const } : {}),
    });
    return {
      refund_token: refundToken,
      chain_id: this.deps.chain.deployment.chainId,
      token: settlement.token,
      merchant: settlement.merchant,
      payer: settlement.payer,
      original_amount: formatAmount(settlement.amountUnits),
      original_amount_units: settlement.amountUnits.toString(),
      refund_amount: formatAmount(amount),
      refund_amount_units: amount.toString(),
      expires_at: expiresAt,
      ...(settlement.fromDeposit ? { payer_from_deposit: true as const } : {}),
    };
  }

  /** What the checkout's refund page needs; reads only the token, touches no chain. */
  resolve(refundToken: string) {
    const data = this.deps.tokens.verify(TOKEN_KINDS.refund, refundToken, RefundPayload);
    if (!data) throw new DomainError("INVALID_REFUND_TOKEN");
    if (Math.floor(this.deps.now() / 1000) >= data.expires_at) throw new DomainError("REFUND_TOKEN_EXPIRED");
    return {
      chain_id: this.deps.chain.deployment.chainId,
      token: data.token as Address,
      merchant: data.merchant as Address,
      payer: data.payer as Address,
      ...(data.deposit ? { payer_from_deposit: true as const } : {}),
      amount: formatAmount(BigInt(data.amount_units)),
      amount_units: data.amount_units,
      expires_at: data.expires_at,
    };
  }

  /**
   * Verifies a refund: the receipt must carry exactly one transfer of the payment token from the
   * original merchant to the original payer, for exactly `refund_amount`, after the original
   * settlement's event (by block, then log index). Other transfers in the receipt (a multisig's
   * batch) are ignored. By event, not by sender, so a multisig or smart account executing for the
   * merchant verifies. The finality head, then both receipts in one batch; then each receipt put to
   * the nodes (the door: one batch per node each), and for a payment address's payment the
   * depositor search on each node.
   */
  async #verify(id: RefundIdentifier, refundAmountText: string, refundTxHash: Hex) {
    const judge = this.#settlement(id);
    const { client, finality } = this.deps.chain;
    const { head, receipts } = await readReceiptsAfterHead(client, finality, [id.txHash, refundTxHash]);
    const settlement = await this.#original("refunded", judge, receipts[0]!, head, id.to);
    const amount = this.#amount(refundAmountText, settlement);
    const receipt = receipts[1];
    // Not mined, or not known to this node (it may have been broadcast through another): the money
    // may already have moved, so the caller polls the same hash and never sends another refund.
    if (!receipt) throw new DomainError("REFUND_CONFIRMING", { detail: "no receipt yet" });
    // Judged only on the refund's receipt a majority of the nodes hold (the original's was above), a
    // refusal as well as REFUNDED: one node's forged receipt decides neither.
    const held = await agreeOnReceipt("refunded", client, finality, receipt);
    if (!held) throw new DomainError("REFUND_CONFIRMING", { detail: "short of a majority of the chain's nodes" });
    refundTransfer(held, settlement, amount);
    if (!isSettled(held.blockNumber, head)) throw new DomainError("REFUND_CONFIRMING");
    return {
      status: "REFUNDED" as const,
      refund_tx_hash: refundTxHash,
      refund_amount: amount.toString(),
      original_amount: settlement.amountUnits.toString(),
      payer: settlement.payer,
      merchant: settlement.merchant,
      block_number: held.blockNumber.toString(),
    };
  }

  /**
   * The original settlement, on what a majority of the nodes hold: judged on the majority's receipt
   * (a refusal too: one node's forged receipt refuses nothing), and its payer from a payment
   * address found by the majority's search. PAYMENT_CONFIRMING while short of a majority.
   */
  async #original(kind: VerdictKind, judge: Judge, receipt: TransactionReceipt | null, head: bigint, to: Address | undefined): Promise<Target> {
    // No receipt on the node read: judged as none (not found, or still on its way).
    if (!receipt) judge(receipt, head);
    const held = await agreeOnReceipt(kind, this.deps.chain.client, this.deps.chain.finality, receipt!);
    if (!held) throw new DomainError("PAYMENT_CONFIRMING", { detail: "short of a majority of the chain's nodes" });
    const { settlement, depositAddress } = judge(held, head);
    return depositAddress ? this.#fromDepositAddress(await depositAddress(), settlement, to) : toPayer(settlement, to);
  }

  /**
   * A payment settled from its payment address names the address as payer: the wallet that paid is
   * the one sender whose own transfers reached the amount first (depositor.ts), and the refund goes
   * there. Where no one did, PAYER_UNKNOWN lists the senders, and the merchant names one as `to`;
   * a refund to it is capped at what it sent, so no wallet gets back more than it put in. The search
   * is asked of every node and its answer is the majority's (a refund target is where money goes):
   * RPC_BUSY without one.
   */
  async #fromDepositAddress(depositAddress: Address, settlement: Settlement, to: Address | undefined): Promise<Target> {
    if (!isAddressEqual(settlement.payer, depositAddress)) return toPayer(settlement, to);
    const { chain } = this.deps;
    const depositor = await agreeOnRead("refund_target", chain.client, (client) =>
      depositorOf({ ...chain, client }, depositAddress, settlement.position, settlement.amountUnits, { maxReads: REFUND_DEPOSITOR_MAX_READS }),
    );
    if (depositor.payer !== null) return { ...toPayer({ ...settlement, payer: depositor.payer }, to), fromDeposit: true };
    if (to === undefined) throw new DomainError("PAYER_UNKNOWN", { detail: depositor.reason, senders: depositor.senders });
    const sender = depositor.senders.find((s) => isAddressEqual(s.address, to));
    if (!sender) throw new DomainError("INVALID_REQUEST", { detail: "to: not one of the senders PAYER_UNKNOWN lists" });
    const ceiling = sender.amountUnits < settlement.amountUnits ? sender.amountUnits : settlement.amountUnits;
    return { ...settlement, payer: sender.address, ceilingUnits: ceiling, fromDeposit: true };
  }

  /**
   * Rule 1: exactly one identifier; `intent` wins when both are sent; neither is INVALID_REQUEST.
   * Extension: with neither, `reference` names the payment by its event alone (the merchant page,
   * whose recipient wallet holds no intent for a link's payments). It grants nothing an intent does
   * not: the refund token it locks is derived from the chain, and only the recipient's own wallet can
   * send the transfer it describes, to the payer the chain names.
   * Checked before any chain read; returns the judgement of the original receipt, and where its
   * payer is a payment address, how to find that address.
   */
  #settlement(id: RefundIdentifier): Judge {
    const { chain, depositAddresses } = this.deps;
    if (id.intent !== undefined) {
      const intent = readIntent(this.deps.tokens, id.intent);
      if (!intent) throw new DomainError("INVALID_INTENT");
      return (receipt, head) => ({ settlement: paymentSettlement(chain, intent, receipt, head), depositAddress: () => depositAddresses.of(intent) });
    }
    if (id.subscription !== undefined) {
      if (id.periodIndex === undefined) throw new DomainError("INVALID_REQUEST", { detail: "period_index: required with subscription" });
      const { terms } = this.deps.subscriptions.read(id.subscription);
      const subscriptionId = this.deps.subscriptions.subscriptionId(terms);
      return (receipt, head) => ({ settlement: chargeSettlement(chain, subscriptionId, terms, BigInt(id.periodIndex!), receipt, head) });
    }
    if (id.reference !== undefined) {
      const reference = id.reference.toLowerCase() as Hex;
      return (receipt, head) => {
        const { key, ...settlement } = referenceSettlement(chain, reference, receipt, head);
        return key === undefined ? { settlement } : { settlement, depositAddress: () => depositAddresses.ofKey(key) };
      };
    }
    throw new DomainError("INVALID_REQUEST", { detail: "intent: send intent or subscription" });
  }

  /** Rule 3: a positive integer number of units, at most the commercial amount paid (or what the named sender sent). */
  #amount(text: string, settlement: Target): bigint {
    const units = parseUnits(text);
    if (units === null || units === 0n || units > (settlement.ceilingUnits ?? settlement.amountUnits)) throw new DomainError("REFUND_AMOUNT_INVALID");
    return units;
  }
}

/** Where the chain names the payer, a `to` the merchant sends must be that payer. */
function toPayer(settlement: Settlement, to: Address | undefined): Settlement {
  if (to !== undefined && !isAddressEqual(to, settlement.payer)) throw new DomainError("INVALID_REQUEST", { detail: "to: not the payer the chain names" });
  return settlement;
}
