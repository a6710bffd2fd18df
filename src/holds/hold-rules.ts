import { hashTypedData, isAddressEqual, type Address, type Hex, type PublicClient } from "viem";
import { majorityRead } from "../chain/majority-read.js";
import { readReceipt } from "../chain/transactions.js";
import { DomainError } from "../errors.js";
import { ierc1271Abi } from "../generated/contracts.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import { earnsItsGas, type RelayerBudget } from "../limits/relayer-budget.js";
import type { HoldOperation, HoldTransactionStore } from "../store/hold-transactions.js";
import { payerIn } from "./operator-follow.js";
import type { PaymentInfo } from "./payment-info.js";

/**
 * The gas an operator call should cost on the escrow with no payer code in it, rounded up well
 * above docs/gas.md's steady-state measures (authorize 145,903, charge 170,841, capture 78,040, void
 * 63,606): an operator's first authorize creates its token store, and a first capture to a receiver
 * or fee collector creates their balance slots (its estimate, the gas it must be given, is about
 * 249,000 on the local stand-in). An authorize or charge runs the payer's own signature check too,
 * so its ceiling adds SIGNATURE_GAS_CAP.
 */
export const OPERATOR_BASE_GAS: Record<HoldOperation, bigint> = { authorize: 250_000n, charge: 250_000n, capture: 300_000n, void: 300_000n };

/** Whether a call opens a payment (a payer's signature runs in it) rather than closing one. */
export function opens(operation: HoldOperation): operation is "authorize" | "charge" {
  return operation === "authorize" || operation === "charge";
}

/** The most gas the relayer gives an operator call: more is refused, never sent. */
export function gasCeiling(operation: HoldOperation, signatureGasCap: bigint): bigint {
  return OPERATOR_BASE_GAS[operation] + (opens(operation) ? signatureGasCap : 0n);
}

/** Who asks for an operator call, whichever door it came in by (the holds API, x402's facilitator). */
export interface HoldRequest {
  /** The caller's address as the HTTP layer has it; absent for the service's own calls. */
  caller?: string;
}

export interface HoldRulesDeps {
  client: PublicClient;
  /** The recorded operator calls (only their list by key is read). */
  store: Pick<HoldTransactionStore, "calls">;
  /** Authorizations a caller may ask for a minute (RECOVER_LIMIT_PER_MINUTE), whichever door. */
  callerLimit?: RateLimiter;
  /** The relayer's budget for work that earns no fee (limits/relayer-budget.ts). */
  budget?: Pick<RelayerBudget, "check" | "spend">;
  /** Token micro-units per ETH (GAS_PRICE_USDC_PER_ETH): whether a charge's fee covers its gas. */
  unitsPerEth: bigint;
  signatureGasCap: bigint;
}

/**
 * The rules every operator call is held to before anything is simulated, whichever door it came in
 * by: a caller's authorizations a minute, one payer per hold, and the relayer's budget for work that
 * earns no fee (never a merchant's capture or void).
 */
export class HoldRules {
  constructor(private readonly deps: HoldRulesDeps) {}

  /**
   * An authorization or charge: for an authorization, the caller's limit; then another payer's
   * authorization of the same terms mined already (each payer's would be another payment locked in
   * escrow where no capture reaches it); then the budget, for an authorization (it earns only once
   * captured; a charge is weighed once its gas is known, admitCharge).
   */
  async admitOpening(info: PaymentInfo, operation: "authorize" | "charge", termsHash: Hex, request: HoldRequest): Promise<void> {
    const { callerLimit, budget } = this.deps;
    // An authorization earns nothing until it is captured: a caller's are limited a minute. A charge pays its fee; the budget weighs it.
    if (callerLimit && request.caller !== undefined && operation === "authorize") {
      const hit = await callerLimit.hit(`hold-authorize|${request.caller}`);
      if (!hit.allowed) throw new DomainError("RATE_LIMITED", { retryAfter: hit.retryAfterSeconds });
    }
    if (await this.#otherPayer(info, termsHash)) throw new DomainError("HOLD_ALREADY_AUTHORIZED", { detail: "another payer authorized this hold" });
    if (budget && operation === "authorize") await budget.check(partiesOf(info, request));
  }

  /** A charge's budget check, once its gas is known: only one whose fee is below its gas at the quoted price. */
  async admitCharge(info: PaymentInfo, feeUnits: bigint, costWei: bigint, request: HoldRequest): Promise<void> {
    if (this.deps.budget && !this.#earns(feeUnits, costWei)) await this.deps.budget.check(partiesOf(info, request));
  }

  /**
   * Counts a sent call against the budget when it earns no fee: an authorization, a void with no
   * capture of the hold recorded, a charge whose fee is below its gas. Earning work writes nothing.
   */
  async sent(info: PaymentInfo, operation: HoldOperation, paymentHash: Hex, costWei: bigint, feeUnits: bigint, request: HoldRequest): Promise<void> {
    const { budget, store } = this.deps;
    if (!budget) return;
    switch (operation) {
      case "capture":
        return;
      case "charge":
        if (this.#earns(feeUnits, costWei)) return;
        break;
      case "void":
        if ((await store.calls([paymentHash])).some((t) => t.operation === "capture")) return;
        break;
    }
    await budget.spend(partiesOf(info, request), costWei);
  }

  /**
   * Whether a payer's contract spends more than SIGNATURE_GAS_CAP checking `signature` over the
   * ERC-3009 authorization `typedData` (a majority of the nodes' answer): a simulation under the call's
   * ceiling then fails inside the token's check, which says only "invalid signature".
   */
  async signatureTooExpensive(payer: Address, typedData: Parameters<typeof hashTypedData>[0], signature: Hex): Promise<boolean> {
    const { client, signatureGasCap } = this.deps;
    const code = await client.getCode({ address: payer });
    if (!code || code === "0x") return false;
    const digest = hashTypedData(typedData);
    return majorityRead(client, (node) =>
      node.readContract({ address: payer, abi: ierc1271Abi, functionName: "isValidSignature", args: [digest, signature], gas: signatureGasCap } as never).then(
        () => false,
        (error: unknown) => {
          if (/out of gas|outofgas/i.test(String((error as Error).message))) return true;
          throw error;
        },
      ),
    ).catch(() => false);
  }

  #earns(feeUnits: bigint, costWei: bigint): boolean {
    return earnsItsGas(feeUnits, costWei, this.deps.unitsPerEth);
  }

  /** Another payer's authorization (or charge) of these terms that the relayer sent and the chain holds mined, not reverted. */
  async #otherPayer(info: PaymentInfo, termsHash: Hex): Promise<boolean> {
    const { store, client } = this.deps;
    for (const t of await store.calls([termsHash])) {
      const payer = opens(t.operation) ? payerIn(t.raw) : null;
      if (!payer || isAddressEqual(payer, info.payer)) continue;
      const receipt = await readReceipt(client, t.hash);
      if (!receipt || receipt.status === "success") return true;
    }
    return false;
  }
}

function partiesOf(info: PaymentInfo, request: HoldRequest) {
  return { payer: info.payer, recipient: info.receiver, ...(request.caller !== undefined ? { caller: request.caller } : {}) };
}
