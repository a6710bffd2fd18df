import { encodeDeployData, type Address, type Hex } from "viem";
import { recurringChargesAbi, splitterAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import type { Deployment } from "../../src/deployments.js";
import { creationBytecode } from "./artifacts.js";
import { create2Address } from "./create2.js";

export type DeploymentParameters = NonNullable<Deployment["parameters"]>;

export interface PlannedContract {
  name: "Splitter" | "RecurringCharges" | "X402Receivers";
  initCode: Hex;
  address: Address;
}

/** What to deploy for a deployment's parameters, and the CREATE2 address of each contract. */
export function planContracts(deployment: Pick<Deployment, "create2Deployer" | "salt">, parameters: DeploymentParameters): PlannedContract[] {
  const splitter = encodeDeployData({
    abi: splitterAbi,
    bytecode: creationBytecode("Splitter"),
    args: [parameters.feeCollector, parameters.feeBps],
  });
  const recurring = encodeDeployData({
    abi: recurringChargesAbi,
    bytecode: creationBytecode("RecurringCharges"),
    args: [parameters.owner, parameters.feeCollector, parameters.feeBps, BigInt(parameters.networkFeeUnits), parameters.relayers],
  });
  // The x402 receivers take the Splitter's fee collector and fee: one fee policy per deployment.
  const receivers = encodeDeployData({
    abi: x402ReceiversAbi,
    bytecode: creationBytecode("X402Receivers"),
    args: [parameters.feeCollector, parameters.feeBps],
  });
  const salt = deployment.salt as Hex;
  return [
    { name: "Splitter", initCode: splitter, address: create2Address(deployment.create2Deployer, salt, splitter) },
    { name: "RecurringCharges", initCode: recurring, address: create2Address(deployment.create2Deployer, salt, recurring) },
    { name: "X402Receivers", initCode: receivers, address: create2Address(deployment.create2Deployer, salt, receivers) },
  ];
}

/** The `contracts` section a deployment file should hold for its parameters (null without parameters). */
export function expectedContracts(deployment: Deployment): Deployment["contracts"] {
  if (!deployment.parameters) return null;
  const [splitter, recurring, receivers] = planContracts(deployment, deployment.parameters);
  return {
    Splitter: { address: splitter!.address },
    RecurringCharges: { address: recurring!.address },
    X402Receivers: { address: receivers!.address },
  };
}
