import { concat, encodeAbiParameters, keccak256, toHex, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { recurringChargesAbi } from "../../src/generated/contracts.js";
import type { LocalChain } from "../../dev/localchain/harness.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { termsTypedData, type Terms } from "../../src/recurring/terms.js";
import { send } from "./tx.js";

/** Terms at the local deployment's fees, starting at the chain's current time. */
export async function makeTerms(chain: LocalChain, payer: Address, recipient: Address, overrides: Partial<Terms> = {}): Promise<Terms> {
  const block = await chain.publicClient.getBlock();
  return {
    payer,
    recipient,
    token: chain.deployment.token.address,
    amount: 10_000_000n,
    period: 30n * 24n * 3600n,
    start: block.timestamp,
    end: 0n,
    salt: keccak256(toHex(`salt-${payer}-${recipient}-${JSON.stringify(overrides, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`)),
    feeBps: chain.deployment.parameters.feeBps,
    networkFee: BigInt(chain.deployment.parameters.networkFeeUnits),
    maxGasReimbursement: 50_000n,
    ...overrides,
  };
}

export function signTerms(chain: LocalChain, signer: HDAccount, terms: Terms): Promise<Hex> {
  return signer.signTypedData(termsTypedData(84532, chain.deployment.contracts.RecurringCharges.address, terms));
}

/** Wraps a signature in the ERC-6492 envelope (factory, calldata, signature) with its magic suffix. */
export function wrap6492(signature: Hex, factory: Address): Hex {
  const body = encodeAbiParameters([{ type: "address" }, { type: "bytes" }, { type: "bytes" }], [factory, "0xdeadbeef", signature]);
  return concat([body, "0x6492649264926492649264926492649264926492649264926492649264926492"]);
}

export function relayerOf(chain: LocalChain): HDAccount {
  return chain.accounts[LOCAL_ROLES.relayer]!;
}

/**
 * The period a charge sent now is meant for: the one the next block is in, read as the service does
 * from the latest block (a mined block comes at least a second later). 0 before the start.
 */
export async function currentPeriod(chain: LocalChain, terms: Terms): Promise<bigint> {
  const { timestamp } = await chain.publicClient.getBlock();
  const next = timestamp + 1n;
  return next < terms.start || terms.period === 0n ? 0n : (next - terms.start) / terms.period;
}

/** Charges `terms` from the local relayer for the current period (or `expectedPeriod`) and returns the receipt. */
export async function chargeAsRelayer(chain: LocalChain, terms: Terms, signature: Hex, gasReimbursement = 0n, expectedPeriod?: bigint) {
  return send(chain, relayerOf(chain), {
    address: chain.deployment.contracts.RecurringCharges.address,
    abi: recurringChargesAbi,
    functionName: "charge",
    args: [terms, signature, gasReimbursement, expectedPeriod ?? (await currentPeriod(chain, terms))],
  });
}
