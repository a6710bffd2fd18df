import { randomUUID } from "node:crypto";
import { getAddress, isAddress, isAddressEqual, type Address, type Hex, type TransactionReceipt } from "viem";
import { agreeOnReceipt, type Agreed } from "../chain/agreement.js";
import { X402ReceiversReader } from "../chain/contracts/x402-receivers.js";
import { rpc } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import type { PaymentChain } from "../payments/verify.js";
import { earnsItsGas, type RelayerBudget } from "../limits/relayer-budget.js";
import type { DepositSettler } from "../payments/deposit-settler.js";
import type { DepositWatch } from "../store/deposit-watches.js";
import type { X402Answers } from "../store/x402-answers.js";
import type { X402ReceiverRecord } from "../store/x402-receivers.js";
import type { X402FacilitatorRequest, X402SettleResponse, X402SupportedResponse, X402VerifyResponse } from "../wire/index.js";
import type { AuthCaptureFacilitator } from "./auth-capture.js";
import { AUTH_CAPTURE } from "./auth-capture-terms.js";
import { ExactVerifier } from "./exact.js";
import { intentPayTo } from "./intent-payto.js";
import { Eip3009Payload, X402_RESERVATION_STALE_MS, X402_REVERTED_PAYER_REFUSAL_MS } from "./payload.js";
import { poll, retried } from "./poll.js";
import { authorizationUsed } from "./proof.js";
import { X402_REASONS } from "./reasons.js";
import { receiverPayTo } from "./receiver-payto.js";
import type { ReceiverSender } from "./receiver-sender.js";
import type { ReceiverSplitter } from "./receiver-splitter.js";
import { exactRefusal, payerRefused, payloadRefusalMessage, settleRefusal, verifyRefusal, type Refusal } from "./refusals.js";
import type { Authorized, PayToTarget } from "./target.js";

export { X402_RESERVATION_STALE_MS, X402_REVERTED_PAYER_REFUSAL_MS, X402_SETTLE_POLL_MS, X402_SETTLE_WAIT_MS, X402_SETTLEMENT_GAS } from "./payload.js";

export interface X402FacilitatorDeps {
  chain: PaymentChain;
  /** The payment addresses this service issued (every created payment's). */
  watches: { find(depositAddress: Address): Promise<DepositWatch | null> };
  /** x402's answers and payer holds (store/x402-answers.ts), for both kinds of payTo. */
  answers: Pick<X402Answers, "reserve" | "claim" | "release" | "holdPayer" | "releasePayer" | "refusePayer" | "isPayerRefused">;
  /** The merchants' receivers this service knows (POST /v1/x402/receivers). */
  receivers: { find(receiver: Address): Promise<X402ReceiverRecord | null> };
  /** Prices and sends a settlement of a payment address through the relayer, recorded and followed (deposit-settler.ts). */
  settlements: Pick<DepositSettler, "priceSettlement" | "sendSettlement">;
  /** Prices and sends a settlement to a receiver, recorded and followed (receiver-sender.ts). */
  receiverSender: Pick<ReceiverSender, "price" | "send">;
  /** Splits what reached a receiver outside a settlement (receiver-splitter.ts). */
  receiverSplitter: Pick<ReceiverSplitter, "splitReceivers">;
  /** The relayer's address (null when this instance has no relayer key). */
  submitter: () => Address | null;
  /** The most gas a settlement may use (the payer's own ERC-1271 code runs in it): more is refused, not paid. */
  maxSettlementGas: bigint;
  /**
   * The smallest amount a receiver payment may be (PAYMENT_MIN_AMOUNT, as for intents): each one costs
   * the relayer a settlement, and a stranger paying their own receiver gets the amount back.
   */
  minReceiverUnits: bigint;
  /** How long settle waits for its transaction to be mined before answering. */
  settleWaitMs: number;
  /** How often the receipt is asked for meanwhile. */
  pollMs: number;
  /** The `auth-capture` scheme (auth-capture.ts), where the deployment has an escrow. */
  authCapture?: AuthCaptureFacilitator;
  /**
   * The relayer's budget for settlements whose fee does not cover their gas (limits/relayer-budget.ts):
   * what a settlement costs now (wei), the price of ETH in token micro-units, and the deployment's fee.
   */
  budget?: { budget: Pick<RelayerBudget, "check" | "spend">; costWei: () => Promise<bigint>; unitsPerEth: bigint; feeBps: number };
}

/** A request that passed this facilitator's own checks: its authorization and what its `payTo` is. */
type Judged = Authorized & { target: PayToTarget };

/**
 * The x402 v2 facilitator for the `exact` scheme with USDC's EIP-3009 on this deployment's chain.
 * `payTo` is either a payment address (one per payment, intent-payto.ts) or a merchant's receiver
 * (one per recipient, a static payTo, receiver-payto.ts). Verify is x402's own (exact.ts) after this
 * service's checks (its network, its USDC, a `payTo` it knows, the amount); settle submits the
 * buyer's authorization and the fee split in one transaction. No funds are held: the authorization
 * moves the buyer's USDC to the payTo and the same transaction moves it out to the recipient and
 * the fee collector.
 */
export class X402Facilitator {
  readonly network: string;
  readonly #exact: ExactVerifier;

  constructor(private readonly deps: X402FacilitatorDeps) {
    this.network = `eip155:${deps.chain.deployment.chainId}`;
    this.#exact = new ExactVerifier(deps.chain.client, deps.submitter);
  }

  /** GET /x402/supported: `exact` on this chain, no extensions, the relayer as the signer. */
  supported(): X402SupportedResponse {
    const submitter = this.deps.submitter();
    const authCapture = this.deps.authCapture?.kind();
    return {
      kinds: [{ x402Version: 2, scheme: "exact", network: this.network }, ...(authCapture ? [authCapture] : [])],
      extensions: [],
      signers: { "eip155:*": submitter ? [submitter] : [] },
    };
  }

  /** POST /x402/verify: whether settling this payment now would pay the payTo. */
  async verify(request: X402FacilitatorRequest): Promise<X402VerifyResponse> {
    const authCapture = this.#authCapture(request);
    if (authCapture) return authCapture.verify(request);
    const judged = await this.#judge(request);
    if ("reason" in judged) return verifyRefusal(judged);
    // x402's own refusal first (a replay of a settled payment is `invalid_exact_evm_nonce_already_used`);
    // a valid authorization for a payment settled by other funds would pay nothing: refused.
    const verdict = await this.#exact.verify(request);
    if (!verdict.isValid) return verifyRefusal(exactRefusal(verdict));
    if (judged.target.settledAlready) return verifyRefusal(settledAlready(judged.payer));
    if (await this.deps.answers.isPayerRefused(judged.payer, Date.now())) return verifyRefusal(payerRefused(judged.payer));
    // x402's simulation moves the funds to payTo; this one runs the settlement itself, split included,
    // and prices it: a payer whose own code would make the relayer pay past the ceiling is refused here,
    // before the resource server does the work.
    const simulated = await this.#simulateSettlement(judged);
    return simulated ? verifyRefusal(simulated) : verdict;
  }

  /**
   * POST /x402/settle: verifies again, sends the settlement and waits for it to be mined, then answers
   * from the chain: success (naming a transaction) only when this authorization moved the amount to
   * the payTo (its `AuthorizationUsed` and that `Transfer` in one transaction) and the funds were split,
   * and only for one request: the one that sent the settlement (it reserves the answer first), or the
   * first to ask when the payment settled otherwise. A front-runner who submitted the same
   * authorization first changes nothing: the funds reached the payTo and were split.
   */
  async settle(request: X402FacilitatorRequest, caller?: string): Promise<X402SettleResponse> {
    const authCapture = this.#authCapture(request);
    if (authCapture) return authCapture.settle(request, caller);
    const judged = await this.#judge(request);
    if ("reason" in judged) return this.#failed(judged);
    const { target } = judged;
    const verdict = await this.#exact.verify(request);
    // A refused authorization may still have paid this payTo (a front-runner used it first, maybe
    // at the edge of its window): only a used one goes on, and only the proof says it paid.
    const refused: Refusal | null = verdict.isValid ? null : { ...exactRefusal(verdict, X402_REASONS.unexpectedSettle), payer: judged.payer };
    if (refused && !(await this.#used(judged))) return this.#failed(refused);
    // Settled already (by other funds, or a receiver's authorization used by someone else): no
    // settlement of ours can add anything; the chain answers.
    if (target.settledAlready || (refused && target.kind === "receiver")) return this.#answer(judged, refused, { token: null });
    // A used authorization runs no payer code in the settlement (USDC refuses the nonce first): the
    // payer's refusal is no reason to leave funds already at the address unsettled.
    if (!refused && (await this.deps.answers.isPayerRefused(judged.payer, Date.now()))) return this.#failed(payerRefused(judged.payer));
    // This request sends the settlement, so the answer is its own: reserved before anything is sent,
    // so a request rebuilt from the mempool or the chain cannot take it.
    const token = randomUUID();
    if (!(await this.deps.answers.reserve(target.subject, token, X402_RESERVATION_STALE_MS))) {
      return this.#failed({ reason: X402_REASONS.nonceUsed, message: "this payment is answered to another request", payer: judged.payer });
    }
    const release = () => this.deps.answers.release(target.subject, token);
    let outcome: X402SettleResponse;
    try {
      outcome = await this.#send(judged, refused, token, caller);
    } catch (error) {
      await release().catch(() => {}); // nothing was sent, or what was sent stays recorded and followed
      throw error;
    }
    if (!outcome.success) await release();
    return outcome;
  }

  /** Sends the settlement (one at a time per contract payer) and answers. */
  async #send(j: Judged, refused: Refusal | null, token: string, caller?: string): Promise<X402SettleResponse> {
    // A contract payer's code runs inside the settlement: one of its settlements at a time, so that a
    // payer whose code passes the simulation and reverts on chain costs the relayer one settlement,
    // not one per concurrent request, before it is refused.
    const contractPayer = !refused && (await this.#hasCode(j.payer));
    if (contractPayer && !(await this.#holdPayer(j.payer))) {
      return this.#failed({ reason: X402_REASONS.transactionState, message: "another settlement of this payer's is on its way: try again", payer: j.payer });
    }
    try {
      if (contractPayer && (await this.deps.answers.isPayerRefused(j.payer, Date.now()))) return this.#failed(payerRefused(j.payer));
      const maxGas = this.deps.maxSettlementGas + j.target.extraGas;
      const unpaid = await this.#unpaidWork(j, caller);
      const sent = await j.target.send(maxGas);
      if (unpaid && typeof sent === "object") await this.deps.budget!.budget.spend(unpaid.parties, unpaid.costWei).catch(() => {});
      // To a receiver, the settlement's simulation fails once the authorization is used: a front-runner
      // sent it straight to USDC after this request's verify. Its funds wait at the receiver: the chain answers.
      if (sent === "unavailable" && j.target.kind === "receiver" && (await this.#used(j))) return await this.#answer(j, refused, { token });
      if (sent === "unavailable") {
        const message = `the settlement cannot be sent now (its simulation failed, it would use more than ${maxGas} gas, or no relayer funds)`;
        return this.#failed(refused ?? { reason: X402_REASONS.transactionState, message, payer: j.payer });
      }
      // Taken: a settlement of this payment address is already out (the service's own deposit
      // settlement after a front-run): its outcome is this one's.
      const waited = sent === "taken" ? await j.target.takenHash() : sent.hash;
      const receipt = waited ? await this.#mined(waited) : null;
      if (receipt?.status === "reverted" && sent !== "taken" && (await j.target.revertedOnItsOwn())) {
        // Valid in simulation, refused on chain, and not because someone settled the payment first (a
        // copy of this very call from the mempool): the relayer pays for one such settlement of this payer's.
        await this.deps.answers.refusePayer(j.payer, Date.now() + X402_REVERTED_PAYER_REFUSAL_MS);
      }
      return await this.#answer(j, refused, { token, waited, receipt });
    } finally {
      if (contractPayer) await this.deps.answers.releasePayer(j.payer).catch(() => {});
    }
  }

  /**
   * A settlement whose fee is below its gas at the current price: held to the relayer's budget
   * (RELAYER_BUDGET_EXCEEDED past it, answered 429 in x402's form) and counted once sent; null for
   * one that earns its gas, which costs the budget nothing, not even a store read.
   */
  async #unpaidWork(j: Judged, caller?: string) {
    const b = this.deps.budget;
    if (!b) return null;
    const costWei = await b.costWei();
    if (earnsItsGas((j.target.amount * BigInt(b.feeBps)) / 10_000n, costWei, b.unitsPerEth)) return null;
    const parties = { payer: j.payer, recipient: j.target.payTo, ...(caller === undefined ? {} : { caller }) };
    await b.budget.check(parties);
    return { parties, costWei };
  }

  /** The `auth-capture` half, for a request of that scheme (its own file: its payload, checks and escrow calls are its own). */
  #authCapture(request: X402FacilitatorRequest): AuthCaptureFacilitator | null {
    return request.paymentRequirements.scheme === AUTH_CAPTURE ? (this.deps.authCapture ?? null) : null;
  }

  #hasCode(address: Address): Promise<boolean> {
    return rpc(() => this.deps.chain.client.getCode({ address })).then((code) => code !== undefined && code !== "0x");
  }

  /** Waits (up to the settle wait) to hold the payer's one settlement at a time. */
  async #holdPayer(payer: Address): Promise<boolean> {
    return (await this.#poll(async () => (await this.deps.answers.holdPayer(payer, X402_RESERVATION_STALE_MS)) || null)) ?? false;
  }

  #poll<T>(probe: () => Promise<T | null>): Promise<T | null> {
    return poll(probe, this.deps.settleWaitMs, this.deps.pollMs);
  }

  /** This service's checks, x402's reasons on refusal: version, scheme, network, payload kind, asset, payTo, amount. */
  async #judge(request: X402FacilitatorRequest): Promise<Judged | Refusal> {
    const { paymentPayload: payload, paymentRequirements: requirements } = request;
    const { deployment } = this.deps.chain;
    const parsed = Eip3009Payload.safeParse(payload.payload);
    const payer = parsed.success ? getAddress(parsed.data.authorization.from) : undefined;
    const refuse = (reason: string, message: string): Refusal => ({ reason, message, ...(payer ? { payer } : {}) });
    if (request.x402Version !== 2 || payload.x402Version !== 2) return refuse(X402_REASONS.version, "this facilitator speaks x402 version 2");
    if (requirements.scheme !== "exact" || payload.accepted.scheme !== "exact") return refuse(X402_REASONS.scheme, "this facilitator settles the exact scheme");
    if (requirements.network !== this.network || payload.accepted.network !== this.network)
      return refuse(X402_REASONS.network, `this facilitator settles on ${this.network}`);
    if (!parsed.success) return refuse(X402_REASONS.payload, payloadRefusalMessage(payload.payload, parsed.error.issues[0]));
    if (!isAddress(requirements.asset, { strict: false }) || !isAddressEqual(requirements.asset, deployment.token.address)) {
      return refuse(X402_REASONS.requirements, `asset must be this deployment's USDC (${deployment.token.address})`);
    }
    if (!isAddress(requirements.payTo, { strict: false }) || !/^[0-9]{1,78}$/.test(requirements.amount)) {
      return refuse(X402_REASONS.requirements, "payTo must be an address and amount an integer of micro-units");
    }
    const authorized: Authorized = { payer: payer!, authorization: parsed.data.authorization, signature: parsed.data.signature as Hex };
    const payTo = getAddress(requirements.payTo);
    const amount = BigInt(requirements.amount);
    const watch = await this.deps.watches.find(payTo);
    if (watch) {
      if (amount !== watch.amountUnits) return refuse(X402_REASONS.requirements, `amount must be the payment's, ${watch.amountUnits} micro-units`);
      return { ...authorized, target: await intentPayTo(this.deps, watch, authorized) };
    }
    const receiver = await this.deps.receivers.find(payTo);
    // A receiver of this deployment for the route's recipient: derived again from the recipient, so
    // only X402Receivers' own address for that recipient and USDC is ever settled to.
    if (receiver && isAddressEqual(receiver.token, deployment.token.address)) {
      const derived = await X402ReceiversReader.of(this.deps.chain).receiverOf(receiver.recipient, deployment.token.address);
      if (isAddressEqual(derived, payTo)) {
        if (amount < this.deps.minReceiverUnits) return refuse(X402_REASONS.requirements, `amount must be at least ${this.deps.minReceiverUnits} micro-units`);
        const target = await receiverPayTo(
          {
            chain: this.deps.chain,
            sender: this.deps.receiverSender,
            splitter: this.deps.receiverSplitter,
            waitMs: this.deps.settleWaitMs,
            pollMs: this.deps.pollMs,
          },
          receiver,
          amount,
          authorized,
        );
        return { ...authorized, target };
      }
    }
    return refuse(
      X402_REASONS.requirements,
      "payTo is neither a payment address this service issued (POST /v1/payments) nor a merchant's receiver (POST /v1/x402/receivers)",
    );
  }

  /** The settlement as the relayer would send it, simulated and priced: null when it settles within the gas ceiling, else the refusal. */
  async #simulateSettlement(j: Judged): Promise<Refusal | null> {
    const priced = await j.target.price();
    if (!priced) return { reason: X402_REASONS.simulationFailed, message: "the settlement's simulation reverted", payer: j.payer };
    const maxGas = this.deps.maxSettlementGas + j.target.extraGas;
    if (priced.gas > maxGas) {
      return {
        reason: X402_REASONS.transactionState,
        message: `the settlement would use ${priced.gas} gas, more than the ${maxGas} this facilitator pays`,
        payer: j.payer,
      };
    }
    return null;
  }

  /** Waits until `hash` is mined (its receipt), or the wait is over (null); a failed read is asked again. */
  #mined(hash: Hex): Promise<TransactionReceipt | null> {
    return this.#poll(() => readReceipt(this.deps.chain.client, hash).catch(() => null));
  }

  /**
   * The receipt of `hash` as a majority of the chain's nodes (RPC_QUORUM) hold it mined, in one block,
   * with one status and the same logs: a success releases the resource, so it never stands on the one
   * node that answered (a forged receipt). Inclusion, not finality, as x402 answers; asked again within
   * the settle wait (a node that disagreed is set aside by then, and the next read is another's).
   * What it says (reverted, say) is for the caller to judge: it is the majority's receipt, not the read.
   */
  async #held(hash: Hex): Promise<Agreed<TransactionReceipt> | null> {
    return this.#poll(async () => {
      const receipt = await readReceipt(this.deps.chain.client, hash).catch(() => null);
      if (!receipt) return null;
      return agreeOnReceipt("x402_success", this.deps.chain.client, MINED, receipt).catch(() => null);
    });
  }

  #used(j: Judged): Promise<boolean> {
    return authorizationUsed(this.deps.chain.client, this.deps.chain.deployment.token.address, j.payer, j.authorization.nonce as Hex);
  }

  /**
   * The answer: success when the payTo's funds from this authorization were settled, for one request
   * only: the one holding the reservation (`token`), or, when no request sent anything (settled by
   * another transaction), the first to ask. The settlement's own receipt proves it when it holds
   * both; otherwise the chain is read.
   */
  async #answer(
    j: Judged,
    refused: Refusal | null,
    sent: { token: string | null; waited?: Hex | undefined; receipt?: TransactionReceipt | null },
  ): Promise<X402SettleResponse> {
    let transaction: Hex;
    let ownProof = false;
    const own = sent.receipt?.status === "success" ? sent.receipt : null;
    if (own && j.target.paidByOwn(own)) {
      transaction = own.transactionHash;
      ownProof = true;
    } else {
      // The agent may have been charged by now: a failed read is asked again before any answer.
      const settlement = await retried(() => j.target.paidBy());
      if (settlement === "unsettled") {
        const message = sent.waited
          ? `the settlement ${sent.waited} was not mined within ${Math.round(this.deps.settleWaitMs / 1000)} s, or reverted: ${j.target.kind === "intent" ? "POST /v1/payments/verify" : "POST /v1/x402/verdict"} with that hash tells which`
          : "the settlement was not sent";
        return this.#failed({ reason: X402_REASONS.transactionState, message, payer: j.payer });
      }
      if (settlement === "not by this authorization") return this.#failed(refused ?? settledAlready(j.payer));
      transaction = settlement;
    }
    const ask = `${j.target.kind === "intent" ? "POST /v1/payments/verify" : "POST /v1/x402/verdict"} with that hash`;
    const held = await this.#held(transaction);
    if (!held) {
      const message = `the settlement ${transaction} is not held by a majority of the chain's nodes yet: ${ask} tells when it is`;
      return this.#failed({ reason: X402_REASONS.transactionState, message, payer: j.payer });
    }
    // Success only as the majority holds the settlement: the same proof, on their receipt.
    if (!(ownProof ? held.status === "success" && j.target.paidByOwn(held) : j.target.settledIn(held))) {
      const message = `the settlement ${transaction} is not this payment's success on a majority of the chain's nodes (reverted, or another transaction): ${ask} tells what it is`;
      return this.#failed({ reason: X402_REASONS.transactionState, message, payer: j.payer });
    }
    if (!(await this.deps.answers.claim(j.target.subject, sent.token, X402_RESERVATION_STALE_MS))) {
      return this.#failed({ reason: X402_REASONS.nonceUsed, message: "this payment was answered to another request: one success per payment", payer: j.payer });
    }
    return { success: true, payer: j.payer, transaction: held.transactionHash, network: this.network };
  }

  #failed(refusal: Refusal): X402SettleResponse {
    return settleRefusal(this.network, refusal);
  }
}

/** Mined: at or below each node's latest block (an x402 success is given at inclusion). */
const MINED: Finality = { kind: "confirmations", confirmations: 0 };

function settledAlready(payer: Address): Refusal {
  return { reason: X402_REASONS.requirements, message: "the payment of this payTo is settled already: ask the resource server for a new one", payer };
}
