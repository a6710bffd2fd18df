import { encodeFunctionData, erc20Abi, type PublicClient } from "viem";
import { RecurringChargesReader } from "../chain/contracts/recurring-charges.js";
import { rpc } from "../chain/rpc-errors.js";
import { recurringChargesAbi } from "../generated/contracts.js";
import type { LiveDeployment } from "../deployments.js";
import { DomainError } from "../errors.js";
import { formatAmount } from "../money.js";
import type {
  AllowanceRevokePrepareResponse,
  ApproveResolveResponse,
  ApproveSessionResponse,
  RevokePrepareResponse,
  RevokeSessionResponse,
  SubscriptionSummary,
} from "../wire/index.js";
import type { SubscriptionCapabilities } from "./capabilities.js";
import type { RecurringTokens } from "./tokens.js";
import { nextChargeAt, type Terms } from "./terms.js";

export interface SessionsDeps {
  client: PublicClient;
  deployment: LiveDeployment;
  tokens: RecurringTokens;
  capabilities: SubscriptionCapabilities;
  settings: { approveTtlSeconds: number; cancelTtlSeconds: number };
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * Browser sessions of a subscription: the approve token (restores its allowance), the cancel token
 * (builds its revoke), and the unsigned calldata a payer's wallet sends for either.
 */
export class SubscriptionSessions {
  constructor(private readonly deps: SessionsDeps) {}

  get #contract() {
    return this.deps.deployment.contracts.RecurringCharges.address;
  }

  /** A browser-safe token that can restore this subscription's allowance and nothing else. */
  approveSession(token: string): ApproveSessionResponse {
    const { terms } = this.deps.capabilities.read(token);
    const expiresAt = Math.floor(this.deps.now() / 1000) + this.deps.settings.approveTtlSeconds;
    return {
      approve_token: this.deps.tokens.mintApprove(terms, expiresAt),
      expires_at: expiresAt,
      payer: terms.payer,
      subscription_id: this.deps.capabilities.subscriptionId(terms),
    };
  }

  async approveResolve(token: string): Promise<ApproveResolveResponse> {
    const session = this.deps.tokens.readApprove(token);
    if (!session) throw new DomainError("INVALID_APPROVE_TOKEN");
    if (Math.floor(this.deps.now() / 1000) >= session.expiresAt) throw new DomainError("APPROVE_TOKEN_EXPIRED");
    const { terms } = session;
    const id = this.deps.capabilities.subscriptionId(terms);
    return {
      chain_id: this.deps.deployment.chainId,
      token: this.deps.deployment.token.address,
      spender: this.#contract,
      payer: terms.payer,
      subscription_id: id,
      required_units: (terms.amount + terms.maxGasReimbursement).toString(),
      expires_at: session.expiresAt,
      terms: await this.#summary(terms, id),
    };
  }

  /** A browser-safe cancel token: the terms needed to build the revoke, no signature, cannot charge. */
  revokeSession(token: string): RevokeSessionResponse {
    const { terms } = this.deps.capabilities.read(token);
    const expiresAt = Math.floor(this.deps.now() / 1000) + this.deps.settings.cancelTtlSeconds;
    return {
      cancel_token: this.deps.tokens.mintCancel(terms, expiresAt),
      expires_at: expiresAt,
      subscription_id: this.deps.capabilities.subscriptionId(terms),
      payer: terms.payer,
    };
  }

  /** Unsigned calldata for `revoke(terms)`: only the payer's wallet can send it. */
  async revokePrepare(token: string): Promise<RevokePrepareResponse> {
    const terms = this.deps.capabilities.readOrCancel(token);
    const id = this.deps.capabilities.subscriptionId(terms);
    const summary = await this.#summary(terms, id);
    return {
      chain_id: this.deps.deployment.chainId,
      payer: terms.payer,
      to: this.#contract,
      data: encodeFunctionData({ abi: recurringChargesAbi, functionName: "revoke", args: [terms] }),
      subscription_id: id,
      description: `Revoke subscription ${id}: no further charge of ${formatAmount(terms.amount)} ${this.deps.deployment.token.symbol} every ${terms.period} s to ${terms.recipient}. Send from the payer ${terms.payer}.`,
      terms: summary,
    };
  }

  /** The subscription as a page names it, with its next charge read from the chain (one block, one read). */
  async #summary(terms: Terms, id: `0x${string}`): Promise<SubscriptionSummary> {
    const block = await rpc(() => this.deps.client.getBlock({ blockTag: "latest" }));
    const recorded = await RecurringChargesReader.of(this.deps).subscription(id, block.number);
    const next = nextChargeAt(terms, recorded, block.timestamp);
    return {
      recipient: terms.recipient,
      amount: formatAmount(terms.amount),
      amount_units: terms.amount.toString(),
      period: Number(terms.period),
      start: Number(terms.start),
      end: Number(terms.end),
      next_charge_at: next === null ? null : Number(next),
      next_charge_due: next !== null && next <= block.timestamp,
    };
  }

  /** Unsigned calldata for `approve(RecurringCharges, 0)` on the token: stops every subscription of that wallet in that token. */
  allowanceRevokePrepare(): AllowanceRevokePrepareResponse {
    const { deployment } = this.deps;
    return {
      chain_id: deployment.chainId,
      to: deployment.token.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [this.#contract, 0n] }),
      description: `Set the ${deployment.token.symbol} allowance of the recurring-charge contract ${this.#contract} to zero: stops every subscription of the sending wallet paid in ${deployment.token.symbol}.`,
    };
  }
}
