import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { encodeFunctionData, getAddress, isAddress, isAddressEqual, type Address, type Hex } from "viem";
import { z } from "zod";
import { fiatTokenAbi, splitterAbi } from "../generated/contracts.js";
import { SplitterReader } from "../chain/contracts/splitter.js";
import { rpc } from "../chain/rpc-errors.js";
import { readReceipt } from "../chain/transactions.js";
import { paymentKeyOf, type PaymentChain } from "../payments/verify.js";
import type { DepositWatch } from "../store/deposit-watches.js";
import type { X402FacilitatorRequest, X402SettleResponse, X402SupportedResponse, X402VerifyResponse } from "../wire/index.js";
import { readOnlyEvmSigner } from "./evm-signer.js";
import { X402_REASONS } from "./reasons.js";

export interface X402FacilitatorDeps {
  chain: PaymentChain;
  /** The payment addresses this service issued (every created payment's). */
  watches: { find(depositAddress: Address): Promise<DepositWatch | null> };
  /** Sends a settlement of a payment address through the relayer, recorded and followed (deposit-settler.ts). */
  settlements: { sendSettlement(depositAddress: Address, data: Hex): Promise<{ hash: Hex } | "taken" | "unavailable"> };
  /** The relayer's address (null when this instance has no relayer key). */
  submitter: () => Address | null;
  /** How long settle waits for its transaction to be mined before answering. */
  settleWaitMs: number;
  /** How often the receipt is asked for meanwhile. */
  pollMs: number;
}

/** How long settle waits for its settlement to be mined (x402's HTTPFacilitatorClient gives up after 90 s). */
export const X402_SETTLE_WAIT_MS = 60_000;
/** How often settle asks for the settlement's receipt meanwhile (Base mines every 2 s). */
export const X402_SETTLE_POLL_MS = 250;

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

type Refusal = { reason: string; message: string; payer?: string };

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
    if ("reason" in judged) return refusedVerify(judged);
    // x402's own refusal first (a replay of a settled payment is `invalid_exact_evm_nonce_already_used`);
    // a valid authorization for a payment settled by other funds would pay nothing: refused.
    const verdict = await this.#verifyWithX402(request);
    if (verdict.isValid && judged.settledBlock !== 0n) return refusedVerify(settledAlready(judged.payer));
    return verdict;
  }

  /**
   * POST /x402/settle: verifies again, sends the settlement and waits for it to be mined, then answers
   * from the chain: success (naming the settlement transaction) when the buyer's authorization is used
   * and the payment settled, by our transaction or anyone's (a front-runner who submitted the same
   * authorization first, to the token or to the Splitter: its funds are at the payment address, and
   * the split still happens).
   */
  async settle(request: X402FacilitatorRequest): Promise<X402SettleResponse> {
    const judged = await this.#judge(request);
    if ("reason" in judged) return this.#failed(judged);
    const verdict = await this.#verifyWithX402(request);
    const alreadyUsed = !verdict.isValid && verdict.invalidReason === X402_REASONS.nonceUsed;
    if (!verdict.isValid && !alreadyUsed)
      return this.#failed({ reason: verdict.invalidReason ?? X402_REASONS.unexpectedSettle, message: verdict.invalidMessage ?? "", payer: judged.payer });
    // An authorization still unused, for a payment settled by other funds, pays nothing here: refused.
    if (judged.settledBlock !== 0n && !alreadyUsed) return this.#failed(settledAlready(judged.payer));
    let waited: Hex | undefined;
    if (judged.settledBlock === 0n) {
      const sent = await this.deps.settlements.sendSettlement(judged.watch.depositAddress, this.#settlementCall(judged));
      if (sent === "unavailable") {
        return this.#failed({
          reason: X402_REASONS.transactionState,
          message: "the settlement cannot be sent now (its simulation failed, or no relayer funds)",
          payer: judged.payer,
        });
      }
      // Taken: a settlement of this address is already out (a concurrent settle, or the service's own
      // deposit settlement after a front-run): its outcome is this one's.
      waited = sent === "taken" ? ((await this.deps.watches.find(judged.watch.depositAddress))?.txHash ?? undefined) : sent.hash;
      if (waited) await this.#mined(waited);
    }
    return this.#outcome(judged, waited);
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

  /** Waits until `hash` is mined, or the wait is over. */
  async #mined(hash: Hex): Promise<void> {
    const until = Date.now() + this.deps.settleWaitMs;
    while (!(await readReceipt(this.deps.chain.client, hash)) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, this.deps.pollMs));
    }
  }

  /**
   * The answer, read from the chain: paid when this authorization is used (its funds went to the
   * payment address: the signature binds `to`) and the payment settled; the transaction named is the
   * one whose `Paid` settled it.
   */
  async #outcome(j: Judged, waited: Hex | undefined): Promise<X402SettleResponse> {
    const { client, deployment } = this.deps.chain;
    const splitter = SplitterReader.of(this.deps.chain);
    const [used, settledBlock] = await Promise.all([
      rpc(() =>
        client.readContract({
          address: deployment.token.address,
          abi: fiatTokenAbi,
          functionName: "authorizationState",
          args: [j.payer, j.authorization.nonce as Hex],
        }),
      ),
      splitter.settledBlock(j.key),
    ]);
    if (used && settledBlock !== 0n) {
      const [paid] = await splitter.paidLogs(j.key, settledBlock);
      if (paid) return { success: true, payer: j.payer, transaction: paid.transactionHash, network: this.network };
    }
    if (settledBlock !== 0n) return this.#failed(settledAlready(j.payer));
    const message = waited
      ? `the settlement ${waited} was not mined within ${Math.round(this.deps.settleWaitMs / 1000)} s, or reverted: POST /v1/payments/verify with that hash tells which`
      : "the settlement was not sent";
    return this.#failed({ reason: X402_REASONS.transactionState, message, payer: j.payer });
  }

  #failed(refusal: Refusal): X402SettleResponse {
    return {
      success: false,
      errorReason: refusal.reason,
      ...(refusal.message ? { errorMessage: refusal.message } : {}),
      ...(refusal.payer ? { payer: refusal.payer } : {}),
      transaction: "",
      network: this.network,
    };
  }
}

function refusedVerify(refusal: Refusal): X402VerifyResponse {
  return { isValid: false, invalidReason: refusal.reason, invalidMessage: refusal.message, ...(refusal.payer ? { payer: refusal.payer } : {}) };
}

function settledAlready(payer: Address): Refusal {
  return { reason: X402_REASONS.requirements, message: "the payment of this payTo is settled already: ask the resource server for a new one", payer };
}
