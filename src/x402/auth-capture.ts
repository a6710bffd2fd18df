import { randomUUID } from "node:crypto";
import {
  BaseError,
  ContractFunctionRevertedError,
  decodeEventLog,
  getAddress,
  isAddressEqual,
  zeroAddress,
  type Address,
  type Hex,
  type TransactionReceipt,
} from "viem";
import { agreeOnReceipt, type Agreed } from "../chain/agreement.js";
import { rpc, toRpcError } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";
import type { Finality } from "../config.js";
import type { EscrowSet } from "../deployments.js";
import { DomainError } from "../errors.js";
import { authCaptureEscrowAbi, fiatTokenAbi } from "../generated/contracts.js";
import { feeAmountOf } from "../holds/fee.js";
import { payerAgnosticHash, type PaymentInfo } from "../holds/payment-info.js";
import type { PaymentChain } from "../payments/verify.js";
import type { X402Answers } from "../store/x402-answers.js";
import type { X402FacilitatorRequest, X402SettledHold, X402SettleResponse, X402SupportedKind, X402VerifyResponse } from "../wire/index.js";
import { agreedBalances, sendLifecycle, type LifecycleOperator } from "./auth-capture-lifecycle-send.js";
import { isLifecyclePayload, judgeLifecycle, lifecyclePreconditions, type LifecycleCall } from "./auth-capture-lifecycle.js";
import { AUTH_CAPTURE, authCaptureExtra } from "./auth-capture-route.js";
import { judgeAuthCapture, type AuthCaptureTerms, type ChainEyes } from "./auth-capture-terms.js";
import { X402_RESERVATION_STALE_MS, X402_REVERTED_PAYER_REFUSAL_MS } from "./payload.js";
import { poll } from "./poll.js";
import { AUTHORIZATION_LOOKBACK, authorizationUsed } from "./proof.js";
import { AUTH_CAPTURE_REASONS, X402_REASONS } from "./reasons.js";
import { payerRefused, settleRefusal, verifyRefusal, type Refusal } from "./refusals.js";

/** The escrow calls the facilitator has sent: the holds' operator (src/holds/operator.ts), under the relayer's rules. */
export interface AuthCaptureOperator extends LifecycleOperator {
  /** The escrow's operator (the relayer's account); null without a relayer key. */
  readonly operator: Address | null;
  /** Authorizes the payment's whole amount (a hold, on the holds' escrow). Throws a DomainError when the escrow would refuse it or it cannot be sent. */
  authorize(info: PaymentInfo, signature: Hex, request?: { caller?: string }): Promise<{ hash: Hex }>;
  /** Authorizes and captures `amount` in one step at `escrow`, the deployment's fee to the fee collector. */
  charge(info: PaymentInfo, amount: bigint, signature: Hex, escrow: EscrowSet, request?: { caller?: string }): Promise<{ hash: Hex }>;
}

export interface AuthCaptureDeps {
  chain: PaymentChain;
  operator: AuthCaptureOperator;
  /** One success per payment, across instances (store/x402-answers.ts). */
  answers: Pick<X402Answers, "reserve" | "claim" | "release" | "holdPayer" | "releasePayer" | "refusePayer" | "isPayerRefused">;
  /** The smallest amount a payment may be (PAYMENT_MIN_AMOUNT). */
  minUnits: bigint;
  /** The most gas an escrow call may use (the payer's own ERC-1271 code runs in it): more is refused, not paid. */
  maxGas: bigint;
  /** The hold a settled authorization is, for the merchant: its `ho` capability (auth-capture-hold.ts), given the authorization's block. */
  holdAnswer: (terms: AuthCaptureTerms, authorizedIn: Agreed<Pick<TransactionReceipt, "blockNumber">>) => X402SettledHold;
  settleWaitMs: number;
  pollMs: number;
}

/**
 * The gas of an auth-capture escrow call with no payer code (a `charge` 170,841 and an `authorize`
 * 145,903 measured on the stand-in, docs/gas.md) rounded up: a call's ceiling is this plus the
 * configured cap on a contract payer's signature check.
 */
export const AUTH_CAPTURE_GAS = 250_000n;

/** Mined: at or below each node's latest block (an x402 success is given at inclusion, as for `exact`). */
const MINED: Finality = { kind: "confirmations", confirmations: 0 };

/**
 * x402's `auth-capture` scheme (EVM binding v1.1) on this deployment's escrow, the service its
 * `"delegated"` operator: verify checks a payload against its requirements and the chain in the
 * binding's order; settle sends the client's payload as the escrow's `authorize` (`paymentFlow:
 * "escrow"`) or as a `charge` the receiver authorizer signed (`"authorization"`), and a server's
 * lifecycle payload as a `capture` (with a sync close-out's `void`) or a `void`, always through the
 * holds' operator, and answers success only from the receipt a majority of the nodes hold.
 */
export class AuthCaptureFacilitator {
  constructor(
    private readonly deps: AuthCaptureDeps,
    readonly network: string,
  ) {}

  /** The kind `/x402/supported` lists; null while the deployment has no escrow or the service no relayer key. */
  kind(): X402SupportedKind | null {
    const extra = authCaptureExtra(this.#service());
    return extra ? { x402Version: 2, scheme: AUTH_CAPTURE, network: this.network, extra } : null;
  }

  async verify(request: X402FacilitatorRequest): Promise<X402VerifyResponse> {
    const eyes = await this.#eyes();
    if (isLifecyclePayload(request.paymentPayload.payload)) {
      const call = await judgeLifecycle(request, this.#service(), this.network, eyes);
      if ("reason" in call) return verifyRefusal(call);
      const refused = lifecyclePreconditions(call, await agreedBalances(this.#lifecycleDeps(), call), eyes.now) ?? (await this.#simulateLifecycle(call));
      return refused ? verifyRefusal(refused) : { isValid: true, payer: call.info.payer };
    }
    const terms = await judgeAuthCapture(request, this.#service(), this.network, eyes, false);
    if ("reason" in terms) return verifyRefusal(terms);
    if (await this.deps.answers.isPayerRefused(terms.payer, Date.now())) return verifyRefusal(payerRefused(terms.payer));
    const refused = await this.#chainRefusal(terms);
    return refused ? verifyRefusal(refused) : { isValid: true, payer: terms.payer };
  }

  /**
   * Verifies again, reserves the payment's one answer, sends the escrow call and waits for it to be
   * mined, then answers from the receipt the nodes agree on. A payment the escrow collected already
   * (this service's call, answered to nobody: a crash, a wait that ran out) is answered from the chain
   * to the first request that asks; every later one is refused.
   */
  async settle(request: X402FacilitatorRequest, caller?: string): Promise<X402SettleResponse> {
    const eyes = await this.#eyes();
    if (isLifecyclePayload(request.paymentPayload.payload)) {
      const call = await judgeLifecycle(request, this.#service(), this.network, eyes);
      if ("reason" in call) return this.#failed(call);
      return sendLifecycle(this.#lifecycleDeps(), call, this.network, eyes.now);
    }
    const terms = await judgeAuthCapture(request, this.#service(), this.network, eyes, true);
    if ("reason" in terms) return this.#failed(terms);
    // Not simulated here: the operator simulates what it sends, once, agreed, at the call's gas ceiling.
    const refused = await this.#chainRefusal(terms, false);
    if (refused?.reason === AUTH_CAPTURE_REASONS.alreadyCollected) return this.#answerCollected(terms, refused);
    if (refused) return this.#failed(refused);
    if (await this.deps.answers.isPayerRefused(terms.payer, Date.now())) return this.#failed(payerRefused(terms.payer));
    const token = randomUUID();
    const subject = subjectOf(terms);
    if (!(await this.deps.answers.reserve(subject, token, X402_RESERVATION_STALE_MS))) {
      return this.#failed({ reason: AUTH_CAPTURE_REASONS.alreadyCollected, message: "this payment is answered to another request", payer: terms.payer });
    }
    let outcome: X402SettleResponse;
    try {
      outcome = await this.#send(terms, token, caller === undefined ? {} : { caller }); // the operator holds every door's caller to one set of rules
    } catch (error) {
      await this.deps.answers.release(subject, token).catch(() => {}); // what was sent stays recorded and followed by the operator
      throw error;
    }
    if (!outcome.success) await this.deps.answers.release(subject, token);
    return outcome;
  }

  /**
   * A contract payer's code runs inside the escrow call (its signature check): one of its calls at a
   * time, so one that passes the simulation and reverts on chain costs the relayer one call, not one
   * per concurrent request, before the payer is refused.
   */
  async #send(terms: AuthCaptureTerms, token: string, request: { caller?: string }): Promise<X402SettleResponse> {
    const { answers, chain } = this.deps;
    const code = await rpc(() => chain.client.getCode({ address: terms.payer }));
    const contractPayer = code !== undefined && code !== "0x";
    if (
      contractPayer &&
      !(await poll(async () => (await answers.holdPayer(terms.payer, X402_RESERVATION_STALE_MS)) || null, this.deps.settleWaitMs, this.deps.pollMs))
    ) {
      return this.#failed({
        reason: X402_REASONS.transactionState,
        message: "another settlement of this payer's is on its way: try again",
        payer: terms.payer,
      });
    }
    try {
      if (contractPayer && (await answers.isPayerRefused(terms.payer, Date.now()))) return this.#failed(payerRefused(terms.payer));
      return await this.#sendHeld(terms, token, request);
    } finally {
      if (contractPayer) await answers.releasePayer(terms.payer).catch(() => {});
    }
  }

  async #sendHeld(terms: AuthCaptureTerms, token: string, request: { caller?: string }): Promise<X402SettleResponse> {
    const { operator } = this.deps;
    let sent: { hash: Hex };
    try {
      sent =
        terms.operation === "authorize"
          ? await operator.authorize(terms.info, terms.signature, request)
          : await operator.charge(terms.info, chargedOf(terms), terms.signature, terms.escrow, request);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === "RELAYER_BUDGET_EXCEEDED") throw error; // the budget's refusal: 429 in x402's form (http/x402.ts)
      const message = `the escrow call cannot be sent now (${error.code}${error.detail ? `: ${error.detail}` : ""})`;
      // The operator's agreed simulation refused it: the escrow's refusal, in the binding's code.
      const reason = error.code === "ESCROW_REFUSED" ? AUTH_CAPTURE_REASONS.simulationFailed : X402_REASONS.transactionState;
      return this.#failed({ reason, message, payer: terms.payer });
    }
    const receipt = await poll(() => readReceipt(this.deps.chain.client, sent.hash), this.deps.settleWaitMs, this.deps.pollMs);
    if (!receipt) {
      const message = `the escrow call ${sent.hash} is not mined yet: it is followed; ask again with the same payment`;
      return this.#failed({ reason: X402_REASONS.transactionState, message, payer: terms.payer });
    }
    // Valid in simulation, refused on chain: only the payer could (nobody else may use the authorization,
    // and the payment's one answer is reserved), so the relayer pays for one such call of this payer's.
    if (receipt.status !== "success") await this.deps.answers.refusePayer(terms.payer, Date.now() + X402_REVERTED_PAYER_REFUSAL_MS);
    return this.#answer(terms, receipt, token);
  }

  /** The answer from a mined escrow call: success only on the receipt a majority of the nodes hold, naming this payment's collection, and only once. */
  async #answer(terms: AuthCaptureTerms, receipt: TransactionReceipt, token: string | null): Promise<X402SettleResponse> {
    const { chain } = this.deps;
    if (receipt.status !== "success") {
      return this.#failed({
        reason: AUTH_CAPTURE_REASONS.transactionReverted,
        message: `the escrow call ${receipt.transactionHash} reverted on chain`,
        payer: terms.payer,
      });
    }
    const held = await agreeOnReceipt("x402_auth_capture_success", chain.client, MINED, receipt);
    // Judged again on the majority's own receipt: one node's copy is never the verdict.
    if (!held || !this.#collectedIn(held, terms)) {
      const message = "the escrow call is not held mined, collecting this payment, by a majority of the chain's nodes: ask again";
      return this.#failed({ reason: X402_REASONS.transactionState, message, payer: terms.payer });
    }
    if (!(await this.deps.answers.claim(subjectOf(terms), token, X402_RESERVATION_STALE_MS))) {
      return this.#failed({ reason: AUTH_CAPTURE_REASONS.alreadyCollected, message: "this payment is answered to another request", payer: terms.payer });
    }
    return {
      success: true,
      payer: terms.payer,
      transaction: held.transactionHash,
      network: this.network,
      amount: (terms.operation === "authorize" ? terms.info.maxAmount : chargedOf(terms)).toString(),
      ...(collectOnly(terms) ? { extra: { hold: this.deps.holdAnswer(terms, held) } } : {}),
    };
  }

  /**
   * Whether the receipt holds the escrow's collection of this payment: `PaymentCharged` with the
   * deployment's fee amount to the fee collector, or `PaymentAuthorized` for a hold, for this payment's hash
   * and its whole amount.
   */
  #collectedIn(receipt: Agreed<TransactionReceipt>, terms: AuthCaptureTerms): boolean {
    const { escrow } = terms.escrow;
    const { feeBps, feeCollector } = this.deps.chain.deployment.parameters;
    return receipt.logs.some((log) => {
      if (!isAddressEqual(log.address, escrow)) return false;
      const event = escrowEvent(log);
      if (event?.eventName === "PaymentCharged" && terms.operation === "charge") {
        const a = event.args;
        return (
          a.paymentInfoHash === terms.paymentHash &&
          a.amount === chargedOf(terms) &&
          a.feeAmount === feeAmountOf(a.amount, feeBps) &&
          isAddressEqual(a.feeReceiver, feeCollector)
        );
      }
      if (event?.eventName === "PaymentAuthorized" && terms.operation === "authorize") {
        return event.args.paymentInfoHash === terms.paymentHash && event.args.amount === terms.info.maxAmount;
      }
      return false;
    });
  }

  /** A payment the escrow has collected: the chain answers, to the first request asking when none holds the answer. */
  async #answerCollected(terms: AuthCaptureTerms, refused: Refusal): Promise<X402SettleResponse> {
    const { client } = this.deps.chain;
    const { escrow } = terms.escrow;
    const head = await rpc(() => client.getBlockNumber());
    const fromBlock = head > AUTHORIZATION_LOOKBACK ? head - AUTHORIZATION_LOOKBACK : 0n;
    const logs = await rpc(() =>
      client.getContractEvents({
        address: escrow,
        abi: authCaptureEscrowAbi,
        eventName: terms.operation === "authorize" ? "PaymentAuthorized" : "PaymentCharged",
        args: { paymentInfoHash: terms.paymentHash },
        fromBlock,
      }),
    );
    const receipt = logs[0] ? await readReceipt(client, logs[0].transactionHash) : null;
    return receipt ? this.#answer(terms, receipt, null) : this.#failed(refused);
  }

  /** What the judges read of the chain: its time (the latest block's), and signatures checked as viem checks them (ECDSA, or ERC-1271 on a deployed account). */
  async #eyes(): Promise<ChainEyes> {
    const { client } = this.deps.chain;
    const now = (await rpc(() => client.getBlock())).timestamp;
    const signed = (address: Address, typed: object, signature: Hex) =>
      rpc(() => client.verifyTypedData({ ...typed, address, signature } as never)).catch((error: unknown) => {
        if (error instanceof DomainError) throw error;
        return false;
      });
    return { now, signed };
  }

  #lifecycleDeps() {
    const { chain, operator, settleWaitMs, pollMs } = this.deps;
    return { client: chain.client, finality: chain.finality, operator, waitMs: settleWaitMs, pollMs };
  }

  /** The chain's checks after the judge's: the authorization and the payment unused, the payer's balance, then step 15, the escrow call simulated from the operator. */
  async #chainRefusal(terms: AuthCaptureTerms, simulate = true): Promise<Refusal | null> {
    const { client, deployment } = this.deps.chain;
    const { info, payer, escrow } = terms;
    const refuse = (reason: string, message: string): Refusal => ({ reason, message, payer });
    const nonce = payerAgnosticHash(info, deployment.chainId, escrow.escrow);
    const [used, state, balance] = await Promise.all([
      authorizationUsed(client, deployment.token.address, payer, nonce),
      rpc(() => client.readContract({ address: escrow.escrow, abi: authCaptureEscrowAbi, functionName: "paymentState", args: [terms.paymentHash] })),
      rpc(() => client.readContract({ address: deployment.token.address, abi: fiatTokenAbi, functionName: "balanceOf", args: [payer] })),
    ]);
    if (used || state[0]) return refuse(AUTH_CAPTURE_REASONS.alreadyCollected, "this payment is collected already: its authorization is used");
    if (balance < info.maxAmount) return refuse(AUTH_CAPTURE_REASONS.insufficientBalance, "the payer holds less USDC than the amount");
    return simulate ? this.#simulate(terms) : null;
  }

  /** A lifecycle call simulated from the operator (verify only: settle's operator simulates what it sends). */
  async #simulateLifecycle(call: LifecycleCall): Promise<Refusal | null> {
    const { client } = this.deps.chain;
    const args =
      call.type === "capture"
        ? { functionName: "capture" as const, args: [call.info, call.amount, call.feeAmount, call.route.feeRecipient] as const }
        : { functionName: "void" as const, args: [call.info] as const };
    try {
      await client.simulateContract({ address: call.escrow.escrow, abi: authCaptureEscrowAbi, account: call.route.operator, ...args } as never);
      return null;
    } catch (error) {
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (!(reverted instanceof ContractFunctionRevertedError)) throw toRpcError(error);
      const named = reverted.data?.errorName;
      return {
        reason: AUTH_CAPTURE_REASONS.simulationFailed,
        message: `the escrow refuses this ${call.type} now${named ? ` (${named})` : ""}`,
        payer: call.info.payer,
      };
    }
  }

  /** The escrow call this settle would send, simulated as the operator sends it. */
  async #simulate(terms: AuthCaptureTerms): Promise<Refusal | null> {
    const { client, deployment } = this.deps.chain;
    const { escrow } = terms;
    const account = this.deps.operator.operator!;
    const { feeBps, feeCollector } = deployment.parameters;
    const charged = chargedOf(terms);
    const call =
      terms.operation === "authorize"
        ? { functionName: "authorize" as const, args: [terms.info, terms.info.maxAmount, escrow.eip3009Collector, terms.signature] as const }
        : {
            functionName: "charge" as const,
            args: [terms.info, charged, escrow.eip3009Collector, terms.signature, feeAmountOf(charged, feeBps), feeCollector] as const,
          };
    try {
      await client.simulateContract({ address: escrow.escrow, abi: authCaptureEscrowAbi, account, ...call } as never);
      // A contract payer's signature check runs inside the call, at the relayer's cost: past the ceiling it is refused here.
      const gas = await client.estimateContractGas({ address: escrow.escrow, abi: authCaptureEscrowAbi, account, ...call } as never);
      if (gas > this.deps.maxGas) {
        return {
          reason: X402_REASONS.transactionState,
          message: `the escrow call would use more than ${this.deps.maxGas} gas (the payer's signature check)`,
          payer: terms.payer,
        };
      }
      return null;
    } catch (error) {
      // A revert is the escrow's refusal, named by its decoded error; anything else is the node's failure, never a verdict.
      const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (!(reverted instanceof ContractFunctionRevertedError)) throw toRpcError(error);
      const named = reverted.data?.errorName;
      return { reason: AUTH_CAPTURE_REASONS.simulationFailed, message: `the escrow refuses this payment now${named ? ` (${named})` : ""}`, payer: terms.payer };
    }
  }

  #service() {
    return {
      deployment: this.deps.chain.deployment,
      operator: this.deps.operator.operator ? getAddress(this.deps.operator.operator) : null,
      minUnits: this.deps.minUnits,
    };
  }

  #failed(refusal: Refusal): X402SettleResponse {
    return settleRefusal(this.network, refusal);
  }
}

/** What a charge collects: its authorizer-signed amount, or (a raw charge at /verify) the whole amount, simulated provisionally. */
function chargedOf(terms: AuthCaptureTerms): bigint {
  return terms.charge?.amount ?? terms.info.maxAmount;
}

/** An escrow route with no receiver authorizer: its hold is finalized out of band, through /v1/holds with the `ho` the settle answer hands the resource server. */
function collectOnly(terms: AuthCaptureTerms): boolean {
  return terms.operation === "authorize" && terms.route.receiverAuthorizer === zeroAddress;
}

/** The payment's one answer, in x402's answers: the escrow's name for it. */
function subjectOf(terms: AuthCaptureTerms): string {
  return `auth-capture:${terms.paymentHash}`;
}

/** An escrow log decoded by the escrow's ABI; null for a log it does not declare. */
function escrowEvent(log: { data: Hex; topics: [Hex, ...Hex[]] | [] }) {
  try {
    return decodeEventLog({ abi: authCaptureEscrowAbi, data: log.data, topics: log.topics });
  } catch {
    return null;
  }
}
