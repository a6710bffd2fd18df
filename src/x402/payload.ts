import { isAddress } from "viem";
import { z } from "zod";

/** How long settle waits for its settlement to be mined (x402's HTTPFacilitatorClient gives up after 90 s). */
export const X402_SETTLE_WAIT_MS = 60_000;
/** How often settle asks for the settlement's receipt meanwhile (Base mines a block every 200 ms). */
export const X402_SETTLE_POLL_MS = 250;
/**
 * The gas of an x402 settlement with no payer code (174,660 measured to a payment address, 116,310 to
 * a deployed receiver, docs/gas.md) rounded up: a settlement's ceiling is this plus the configured cap
 * on a contract payer's signature check.
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

/** The `exact` EVM payload: an EIP-3009 `TransferWithAuthorization` and its signature (x402's wire: strings). */
export const Eip3009Payload = z.object({
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
export type Eip3009Payload = z.infer<typeof Eip3009Payload>;
export type Eip3009Authorization = Eip3009Payload["authorization"];
