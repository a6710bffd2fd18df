import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import type { Address, PublicClient } from "viem";
import type { X402FacilitatorRequest, X402VerifyResponse } from "../wire/index.js";
import { readOnlyEvmSigner } from "./evm-signer.js";

/**
 * x402's own `exact` verify (@x402/evm), with its on-chain simulation of the authorization: signature
 * incl. ERC-1271, ERC-6492 only from an allowed factory (none), time window, amount, replay diagnosis.
 * The same for both kinds of payTo: the authorization names the payTo either way. x402's
 * `invalidMessage` is left out (a failed simulation's is viem's whole revert text): the facilitator
 * words each refusal itself (EXACT_REFUSALS).
 */
export class ExactVerifier {
  readonly #scheme: ExactEvmScheme;

  constructor(client: PublicClient, submitter: () => Address | null) {
    this.#scheme = new ExactEvmScheme(readOnlyEvmSigner(client, submitter));
  }

  async verify(request: X402FacilitatorRequest): Promise<X402VerifyResponse> {
    const result = await this.#scheme.verify(
      request.paymentPayload as unknown as PaymentPayload,
      request.paymentRequirements as unknown as PaymentRequirements,
    );
    return {
      isValid: result.isValid,
      ...(result.invalidReason ? { invalidReason: result.invalidReason } : {}),
      ...(result.payer ? { payer: result.payer } : {}),
    };
  }
}
