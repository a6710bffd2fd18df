import { randomUUID } from "node:crypto";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { encodeFunctionData, erc20Abi, getAddress, isAddress, isAddressEqual, parseEventLogs, type Address, type Hex, type TransactionReceipt } from "viem";
import { z } from "zod";
import { fiatTokenAbi, splitterAbi } from "../generated/contracts.js";
import { SplitterReader } from "../chain/contracts/splitter.js";
import { rpc } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";
import { paymentKeyOf, type PaymentChain } from "../payments/verify.js";
import type { DepositSettler } from "../payments/deposit-settler.js";
import type { DepositWatch } from "../store/deposit-watches.js";
import type { X402FacilitatorRequest, X402SettleResponse, X402SupportedResponse, X402VerifyResponse } from "../wire/index.js";
import { readOnlyEvmSigner } from "./evm-signer.js";
import { X402_REASONS } from "./reasons.js";
import { settleRefusal, verifyRefusal, type Refusal } from "./refusals.js";

export interface X402FacilitatorDeps {
  chain: PaymentChain;
  /** The payment addresses this service issued (every created payment's). */
  watches: {
    find(depositAddress: Address): Promise<DepositWatch | null>;
    reserveX402Answer(depositAddress: Address, token: string, staleAfterMs: number): Promise<boolean>;
    claimX402Answer(depositAddress: Address, token: string | null, staleAfterMs: number): Promise<boolean>;
    releaseX402Answer(depositAddress: Address, token: string): Promise<void>;
    holdX402Payer(payer: Address, staleAfterMs: number): Promise<boolean>;
    releaseX402Payer(payer: Address): Promise<void>;
    refuseX402Payer(payer: Address, untilMs: number): Promise<void>;
    isX402PayerRefused(payer: Address, nowMs: number): Promise<boolean>;
  };
  /** Prices and sends a settlement of a payment address through the relayer, recorded and followed (deposit-settler.ts). */
  settlements: Pick<DepositSettler, "priceSettlement" | "sendSettlement">;
  /** The relayer's address (null when this instance has no relayer key). */
  submitter: () => Address | null;
  /** The most gas a settlement may use (the payer's own ERC-1271 code runs in it): more is refused, not paid. */
  maxSettlementGas: bigint;
  /** How long settle waits for its transaction to be mined before answering. */
  settleWaitMs: number;
  /** How often the receipt is asked for meanwhile. */
  pollMs: number;
}

/** How long settle waits for its settlement to be mined (x402's HTTPFacilitatorClient gives up after 90 s). */
export const X402_SETTLE_WAIT_MS = 60_000;
/** How often settle asks for the settlement's receipt meanwhile (Base mines every 2 s). */
export const X402_SETTLE_POLL_MS = 250;
/**
 * The gas of an x402 settlement with no payer code (174,669 measured, docs/gas.md) rounded up: a
 * settlement's ceiling is this plus the configured cap on a contract payer's signature check.
 */
export const X402_SETTLEMENT_GAS = 200_000n;
/**
 * A settle's reservation of its answer, or its hold on a contract payer, older than this belongs to a
 * request that never finished (a crash, an RPC that hung): another may take it. Far above the longest
 * a settle runs (its wait, and its RPC calls with their timeouts).
 */
export const X402_RESERVATION_STALE_MS = 10 * 60_000;
/** How long a payer whose x402 settlement reverted on chain is refused (docs/decisions.md). */
export const X402_REVERTED_PAYER_REFUSAL_MS = 60 * 60_000;
/** How far before the settlement an authorization's use is looked for (x402 settles seconds after signing). */
const AUTHORIZATION_LOOKBACK = 2_000n;
const AUTHORIZATION_USED = fiatTokenAbi.find((i) => i.type === "event" && i.name === "AuthorizationUsed")!;

/** The `exact` EVM payload: an EIP-3009 `TransferWithAuthorization` and its signature (x402's wire: strings). */
const Eip3009Payload = z.object({
  signature: z.string().regex(/^0x([0-9a-fA-F]{2})+$/),
  authorization: z.object({
    from: z.string().refine((a) => isAddress(a, { strict: false })),
    to: z.string().refine((a) => isAddress(a, { strict: false })),
    value: z.string().regex(/^[0-9]{1,78}$/),
    validAfter: z.string().regex(/^[0-9]{1,78}$/),
    validBefore: z.string().regex(/^[0-9]{1,78}$/),
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  }),
});
type Eip3009Payload = z.infer<typeof Eip3009Payload>;

/** A request that passed this facilitator's own checks: the payment its `payTo` is, and the authorization. */
interface Judged {
  watch: DepositWatch;
  key: Hex;
  settledBlock: bigint;
  authorization: Eip3009Payload["authorization"];
  signature: Hex;
  payer: Address;
}

/**
 * The x402 v2 facilitator for the `exact` scheme with USDC's EIP-3009 on this deployment's chain,
 * where `payTo` is a payment address (one per payment, CREATE2 of the Splitter): verify is x402's own
 * (@x402/evm's `exact` verify: signature incl. ERC-1271, ERC-6492 only from an allowed factory (none),
 * time window, amount, simulation, replay diagnosis) after this service's checks (its network, its
 * USDC, a `payTo` it issued for that amount, not settled); settle submits the buyer's authorization
 * and the fee split in one transaction (`Splitter.settleDepositFromAuthorization`). No funds are
 * held: the authorization moves the buyer's USDC to the payment address and the same transaction
 * moves it out to the recipient and the fee collector.
 */
export class X402Facilitator {
  readonly network: string;
  readonly #scheme: ExactEvmScheme;

  constructor(private readonly deps: X402FacilitatorDeps) {
    this.network = `eip155:${deps.chain.deployment.chainId}`;
    this.#scheme = new ExactEvmScheme(readOnlyEvmSigner(deps.chain.client, deps.submitter));
  }

  /** GET /x402/supported: `exact` on this chain, no extensions, the relayer as the signer. */
  supported(): X402SupportedResponse {
    const submitter = this.deps.submitter();
    return {
      kinds: [{ x402Version: 2, scheme: "exact", network: this.network }],
      extensions: [],
      signers: { "eip155:*": submitter ? [submitter] : [] },
    };
  }

  /** POST /x402/verify: whether settling this payment now would pay the payment `payTo` is. */
  async verify(request: X402FacilitatorRequest): Promise<X402VerifyResponse> {
    const judged = await this.#judge(request);
    if ("reason" in judged) return verifyRefusal(judged);
    // x402's own refusal first (a replay of a settled payment is `invalid_exact_evm_nonce_already_used`);
    // a valid authorization for a payment settled by other funds would pay nothing: refused.
    const verdict = await this.#verifyWithX402(request);
    if (!verdict.isValid) return verdict;
    if (judged.settledBlock !== 0n) return verifyRefusal(settledAlready(judged.payer));
    if (await this.deps.watches.isX402PayerRefused(judged.payer, Date.now())) return verifyRefusal(payerRefused(judged.payer));
    // x402's simulation moves the funds to payTo; this one runs the settlement itself, split included,
    // and prices it: a payer whose own code would make the relayer pay past the ceiling is refused here,
    // before the resource server does the work.
    const simulated = await this.#simulateSettlement(judged);
    return simulated ? verifyRefusal(simulated) : verdict;
  }

  /**
   * POST /x402/settle: verifies again, sends the settlement and waits for it to be mined, then answers
   * from the chain: success (naming the settlement transaction) only when this authorization moved the
   * amount to the payment address (its `AuthorizationUsed` and that `Transfer` in one transaction, at
   * or before the settlement) and the payment settled, and only for one request: the one that sent the
   * settlement (it reserves the answer first), or the first to ask when the payment settled otherwise.
   * A front-runner who submitted the same authorization first, to USDC or to the Splitter, changes
   * nothing: the funds reached the address and split, and the answer names the settlement.
   */
  async settle(request: X402FacilitatorRequest): Promise<X402SettleResponse> {
    const judged = await this.#judge(request);
    if ("reason" in judged) return this.#failed(judged);
    const verdict = await this.#verifyWithX402(request);
    // A refused authorization may still have paid this address (a front-runner used it first, maybe
    // at the edge of its window): only a used one goes on, and only the proof below says it paid.
    const refused: Refusal | null = verdict.isValid
      ? null
      : { reason: verdict.invalidReason ?? X402_REASONS.unexpectedSettle, message: verdict.invalidMessage ?? "", payer: judged.payer };
    if (refused && !(await this.#used(judged))) return this.#failed(refused);
    if (judged.settledBlock !== 0n) return this.#answer(judged, refused, { token: null });
    // A used authorization runs no payer code in the settlement (USDC refuses the nonce first): the
    // payer's refusal is no reason to leave funds already at the address unsettled.
    if (!refused && (await this.deps.watches.isX402PayerRefused(judged.payer, Date.now()))) return this.#failed(payerRefused(judged.payer));
    // This request sends the settlement, so the answer is its own: reserved before anything is sent,
    // so a request rebuilt from the mempool or the chain cannot take it.
    const token = randomUUID();
    if (!(await this.deps.watches.reserveX402Answer(judged.watch.depositAddress, token, X402_RESERVATION_STALE_MS))) {
      return this.#failed({ reason: X402_REASONS.nonceUsed, message: "this payment is answered to another request", payer: judged.payer });
    }
    const release = () => this.deps.watches.releaseX402Answer(judged.watch.depositAddress, token);
    let outcome: X402SettleResponse;
    try {
      outcome = await this.#send(judged, refused, token);
    } catch (error) {
      await release().catch(() => {}); // nothing was sent, or what was sent stays recorded and followed
      throw error;
    }
    if (!outcome.success) await release();
    return outcome;
  }

  /** Sends the settlement (one at a time per contract payer) and answers. */
  async #send(j: Judged, refused: Refusal | null, token: string): Promise<X402SettleResponse> {
    // A contract payer's code runs inside the settlement: one of its settlements at a time, so that a
    // payer whose code passes the simulation and reverts on chain costs the relayer one settlement,
    // not one per concurrent request, before it is refused.
    const contractPayer = !refused && (await this.#hasCode(j.payer));
    if (contractPayer && !(await this.#holdPayer(j.payer))) {
      return this.#failed({ reason: X402_REASONS.transactionState, message: "another settlement of this payer's is on its way: try again", payer: j.payer });
    }
    try {
      if (contractPayer && (await this.deps.watches.isX402PayerRefused(j.payer, Date.now()))) return this.#failed(payerRefused(j.payer));
      const sent = await this.deps.settlements.sendSettlement(j.watch.depositAddress, this.#settlementCall(j), this.deps.maxSettlementGas);
      if (sent === "unavailable") {
        const message = `the settlement cannot be sent now (its simulation failed, it would use more than ${this.deps.maxSettlementGas} gas, or no relayer funds)`;
        return this.#failed(refused ?? { reason: X402_REASONS.transactionState, message, payer: j.payer });
      }
      // Taken: a settlement of this address is already out (the service's own deposit settlement after
      // a front-run): its outcome is this one's.
      const waited = sent === "taken" ? ((await this.deps.watches.find(j.watch.depositAddress))?.txHash ?? undefined) : sent.hash;
      const receipt = waited ? await this.#mined(waited) : null;
      if (receipt?.status === "reverted" && sent !== "taken" && (await SplitterReader.of(this.deps.chain).settledBlock(j.key)) === 0n) {
        // Valid in simulation, refused on chain, and not because someone settled the payment first (a
        // copy of this very call from the mempool): the relayer pays for one such settlement of this payer's.
        await this.deps.watches.refuseX402Payer(j.payer, Date.now() + X402_REVERTED_PAYER_REFUSAL_MS);
      }
      return await this.#answer(j, refused, { token, waited, receipt });
    } finally {
      if (contractPayer) await this.deps.watches.releaseX402Payer(j.payer).catch(() => {});
    }
  }

  #hasCode(address: Address): Promise<boolean> {
    return rpc(() => this.deps.chain.client.getCode({ address })).then((code) => code !== undefined && code !== "0x");
  }

  /** Waits (up to the settle wait) to hold the payer's one settlement at a time. */
  async #holdPayer(payer: Address): Promise<boolean> {
    return (await this.#poll(async () => (await this.deps.watches.holdX402Payer(payer, X402_RESERVATION_STALE_MS)) || null)) ?? false;
  }

  /** Asks `probe` every `pollMs` until it answers (not null) or the settle wait is over (null). */
  async #poll<T>(probe: () => Promise<T | null>): Promise<T | null> {
    const until = Date.now() + this.deps.settleWaitMs;
    for (;;) {
      const answer = await probe();
      if (answer !== null || Date.now() >= until) return answer;
      await new Promise((resolve) => setTimeout(resolve, this.deps.pollMs));
    }
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
    if (!parsed.success) return refuse(X402_REASONS.payload, "this facilitator settles EIP-3009 authorizations (exact on EVM), not Permit2");
    if (!isAddress(requirements.asset, { strict: false }) || !isAddressEqual(requirements.asset, deployment.token.address)) {
      return refuse(X402_REASONS.requirements, `asset must be this deployment's USDC (${deployment.token.address})`);
    }
    const watch = isAddress(requirements.payTo, { strict: false }) ? await this.deps.watches.find(getAddress(requirements.payTo)) : null;
    if (!watch)
      return refuse(X402_REASONS.requirements, "payTo is not a payment address this service issued (POST /v1/payments answers one: pay.deposit_address)");
    if (!/^[0-9]{1,78}$/.test(requirements.amount) || BigInt(requirements.amount) !== watch.amountUnits) {
      return refuse(X402_REASONS.requirements, `amount must be the payment's, ${watch.amountUnits} micro-units`);
    }
    const key = paymentKeyOf(deployment.token.address, watch);
    const settledBlock = await SplitterReader.of(this.deps.chain).settledBlock(key);
    return { watch, key, settledBlock, authorization: parsed.data.authorization, signature: parsed.data.signature as Hex, payer: payer! };
  }

  /** x402's own `exact` verify (@x402/evm), with its on-chain simulation of the authorization. */
  async #verifyWithX402(request: X402FacilitatorRequest): Promise<X402VerifyResponse> {
    const result = await this.#scheme.verify(
      request.paymentPayload as unknown as PaymentPayload,
      request.paymentRequirements as unknown as PaymentRequirements,
    );
    return {
      isValid: result.isValid,
      ...(result.invalidReason ? { invalidReason: result.invalidReason } : {}),
      ...(result.invalidMessage ? { invalidMessage: result.invalidMessage } : {}),
      ...(result.payer ? { payer: result.payer } : {}),
    };
  }

  /** The settlement as the relayer would send it, simulated and priced: null when it settles within the gas ceiling, else the refusal. */
  async #simulateSettlement(j: Judged): Promise<Refusal | null> {
    const priced = await this.deps.settlements.priceSettlement(this.#settlementCall(j));
    if (!priced) return { reason: X402_REASONS.simulationFailed, message: "the settlement's simulation reverted", payer: j.payer };
    if (priced.gas > this.deps.maxSettlementGas) {
      return {
        reason: X402_REASONS.transactionState,
        message: `the settlement would use ${priced.gas} gas, more than the ${this.deps.maxSettlementGas} this facilitator pays`,
        payer: j.payer,
      };
    }
    return null;
  }

  #settlementCall(j: Judged): Hex {
    const { deployment } = this.deps.chain;
    const a = j.authorization;
    return encodeFunctionData({
      abi: splitterAbi,
      functionName: "settleDepositFromAuthorization",
      args: [
        deployment.token.address,
        j.watch.recipient,
        j.watch.amountUnits,
        j.watch.reference,
        j.payer,
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce as Hex,
        j.signature,
      ],
    });
  }

  /** Waits until `hash` is mined (its receipt), or the wait is over (null); a failed read is asked again. */
  #mined(hash: Hex): Promise<TransactionReceipt | null> {
    return this.#poll(() => readReceipt(this.deps.chain.client, hash).catch(() => null));
  }

  /** Whether USDC has seen this authorization's nonce (used, or cancelled). */
  #used(j: Judged): Promise<boolean> {
    const { client, deployment } = this.deps.chain;
    return rpc(() =>
      client.readContract({
        address: deployment.token.address,
        abi: fiatTokenAbi,
        functionName: "authorizationState",
        args: [j.payer, j.authorization.nonce as Hex],
      }),
    );
  }

  /**
   * The answer: success when the payment settled and this authorization paid the payment address
   * before or with the settlement, for one request only: the one holding the reservation (`token`), or,
   * when no request sent anything (the payment was settled by another transaction), the first to ask.
   * The settlement's own receipt proves it when it holds both; otherwise the chain is read.
   */
  async #answer(
    j: Judged,
    refused: Refusal | null,
    sent: { token: string | null; waited?: Hex | undefined; receipt?: TransactionReceipt | null },
  ): Promise<X402SettleResponse> {
    let transaction: Hex | null = null;
    const own = sent.receipt?.status === "success" ? sent.receipt : null;
    if (
      own &&
      SplitterReader.of(this.deps.chain)
        .paidIn(own)
        .some((p) => p.args.paymentKey === j.key) &&
      this.#paidIn(own, j)
    ) {
      transaction = own.transactionHash;
    } else {
      // The agent may have been charged by now: a failed read is asked again before any answer.
      const settlement = await retried(() => this.#settlementPaidBy(j));
      if (settlement === "unsettled") {
        const message = sent.waited
          ? `the settlement ${sent.waited} was not mined within ${Math.round(this.deps.settleWaitMs / 1000)} s, or reverted: POST /v1/payments/verify with that hash tells which`
          : "the settlement was not sent";
        return this.#failed({ reason: X402_REASONS.transactionState, message, payer: j.payer });
      }
      if (settlement === "not by this authorization") return this.#failed(refused ?? settledAlready(j.payer));
      transaction = settlement;
    }
    if (!(await this.deps.watches.claimX402Answer(j.watch.depositAddress, sent.token, X402_RESERVATION_STALE_MS))) {
      return this.#failed({ reason: X402_REASONS.nonceUsed, message: "this payment was answered to another request: one success per payment", payer: j.payer });
    }
    return { success: true, payer: j.payer, transaction, network: this.network };
  }

  /** The transaction whose `Paid` settled the payment, when this authorization paid the address at or before it. */
  async #settlementPaidBy(j: Judged): Promise<Hex | "unsettled" | "not by this authorization"> {
    const splitter = SplitterReader.of(this.deps.chain);
    const settledBlock = await splitter.settledBlock(j.key);
    if (settledBlock === 0n) return "unsettled";
    if (!(await this.#paidTheAddress(j, settledBlock))) return "not by this authorization";
    const [paid] = await splitter.paidLogs(j.key, settledBlock);
    return paid ? paid.transactionHash : "unsettled";
  }

  /**
   * Whether this authorization moved the amount from the payer to the payment address, at or before
   * the settlement: its `AuthorizationUsed(payer, nonce)` (USDC emits `AuthorizationCanceled` for a
   * cancelled one, which moved nothing) in a transaction with that `Transfer`, within the 2,000 blocks
   * before the settlement (x402 settles seconds after signing).
   */
  async #paidTheAddress(j: Judged, settledBlock: bigint): Promise<boolean> {
    const { client, deployment } = this.deps.chain;
    const uses = await rpc(() =>
      client.getLogs({
        address: deployment.token.address,
        event: AUTHORIZATION_USED,
        args: { authorizer: j.payer, nonce: j.authorization.nonce as Hex },
        fromBlock: settledBlock > AUTHORIZATION_LOOKBACK ? settledBlock - AUTHORIZATION_LOOKBACK : 0n,
        toBlock: settledBlock,
        strict: true,
      }),
    );
    for (const use of uses) {
      const receipt = await readReceipt(client, use.transactionHash);
      if (receipt && this.#paidIn(receipt, j)) return true;
    }
    return false;
  }

  /** Whether a receipt holds this authorization's use and its transfer of the amount from the payer to the payment address. */
  #paidIn(receipt: TransactionReceipt, j: Judged): boolean {
    const token = this.deps.chain.deployment.token.address;
    const ofToken = receipt.logs.filter((l) => isAddressEqual(l.address, token));
    const used = parseEventLogs({ abi: [AUTHORIZATION_USED], logs: ofToken, strict: true }).some(
      (u) => isAddressEqual(u.args.authorizer, j.payer) && u.args.nonce.toLowerCase() === j.authorization.nonce.toLowerCase(),
    );
    const moved = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: ofToken, strict: true }).some(
      (t) => isAddressEqual(t.args.from, j.payer) && isAddressEqual(t.args.to, j.watch.depositAddress) && t.args.value === j.watch.amountUnits,
    );
    return used && moved;
  }

  #failed(refusal: Refusal): X402SettleResponse {
    return settleRefusal(this.network, refusal);
  }
}

/** `read`, asked up to three times, a quarter second apart, before its error stands. */
async function retried<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function payerRefused(payer: Address): Refusal {
  return { reason: X402_REASONS.transactionState, message: "a settlement of this payer's reverted on chain lately: none of theirs is sent for now", payer };
}

function settledAlready(payer: Address): Refusal {
  return { reason: X402_REASONS.requirements, message: "the payment of this payTo is settled already: ask the resource server for a new one", payer };
}
