import { getAddress, pad, toHex, type Address, type PublicClient, type TestClient } from "viem";
import { erc3009PaymentCollectorAbi } from "../../src/generated/contracts.js";
import type { Deployment, EscrowSet } from "../../src/deployments.js";
import { runtimeBytecode } from "../deploy/artifacts.js";

/** Where one escrow set's escrow and EIP-3009 collector sit, and whose code runs there. */
export interface AuthCaptureContracts {
  escrow: Address;
  eip3009Collector: Address;
  /**
   * True when the project's stand-in (contracts/escrow/) runs there (placed on a fresh chain, or
   * inherited from a forked local chain); false for other code there (a fork of Base Sepolia: the
   * canonical contracts).
   */
  standIn: boolean;
}

/** The collector's storage slot that holds its escrow's address (its only state variable). */
const COLLECTOR_ESCROW_SLOT = toHex(0, { size: 32 });

/**
 * Places the project's stand-in for Commerce Payments' `AuthCaptureEscrow` and EIP-3009 collector at
 * every set of canonical addresses `deployments/<chain>.json` lists (each with its release's interface),
 * where the chain has no code there (a fresh local chain); the first set, the holds' one, is answered
 * first. A chain that already has code at a set keeps it: a fork of Base Sepolia keeps the canonical
 * contracts, a fork of a local chain the stand-in it holds.
 */
export async function placeAuthCaptureStandIns(
  clients: { publicClient: PublicClient; testClient: TestClient },
  deployment: Pick<Deployment, "authCapture">,
): Promise<AuthCaptureContracts[]> {
  const placed: AuthCaptureContracts[] = [];
  for (const set of deployment.authCapture ?? []) placed.push(await placeAuthCaptureStandIn(clients, set));
  return placed;
}

/**
 * Places one set's stand-in. The collector must sit at its canonical address (USDC's
 * `receiveWithAuthorization` requires its caller to be the `to` the payer signed) and the escrow at its
 * own (its address is in every payment's hash); `hardhat_setCode` carries no constructor's work, so the
 * collector's escrow is written into its storage here.
 */
export async function placeAuthCaptureStandIn(
  clients: { publicClient: PublicClient; testClient: TestClient },
  canonical: EscrowSet,
): Promise<AuthCaptureContracts> {
  const { publicClient, testClient } = clients;
  const hasCode = async (address: Address) => {
    const code = await publicClient.getCode({ address });
    return code !== undefined && code !== "0x";
  };
  const escrowRuntime = runtimeBytecode("AuthCaptureEscrow", "escrow/AuthCaptureEscrow.sol");
  const [escrowThere, collectorThere] = await Promise.all([hasCode(canonical.escrow), hasCode(canonical.eip3009Collector)]);
  if (escrowThere && collectorThere) {
    // Already there: the canonical contracts (a fork of Base Sepolia) or the stand-in (a fork of a local chain).
    const code = await publicClient.getCode({ address: canonical.escrow });
    return { escrow: canonical.escrow, eip3009Collector: canonical.eip3009Collector, standIn: code?.toLowerCase() === escrowRuntime.toLowerCase() };
  }
  if (escrowThere !== collectorThere) {
    throw new Error(
      `the chain has code at only one of the escrow (${canonical.escrow}) and its collector (${canonical.eip3009Collector}): refusing to pair a stand-in with a contract that is not`,
    );
  }
  await testClient.setCode({ address: canonical.escrow, bytecode: escrowRuntime });
  await testClient.setCode({
    address: canonical.eip3009Collector,
    bytecode: runtimeBytecode("ERC3009PaymentCollector", "escrow/ERC3009PaymentCollector.sol"),
  });
  await testClient.setStorageAt({ address: canonical.eip3009Collector, index: COLLECTOR_ESCROW_SLOT, value: pad(canonical.escrow, { size: 32 }) });
  const served = await publicClient.readContract({ address: canonical.eip3009Collector, abi: erc3009PaymentCollectorAbi, functionName: "authCaptureEscrow" });
  if (getAddress(served) !== canonical.escrow) {
    throw new Error(`the stand-in collector reads its escrow as ${served}, not ${canonical.escrow}: its storage layout moved off slot 0`);
  }
  return { escrow: canonical.escrow, eip3009Collector: canonical.eip3009Collector, standIn: true };
}
