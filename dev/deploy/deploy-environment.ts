import { createPublicClient, createWalletClient, http, type Account, type Address, type Hex, type PublicClient } from "viem";
import { base, baseSepolia } from "viem/chains";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOYMENTS_DIR, isLive, loadDeployment, writeDeployment, type Deployment } from "../../src/deployments.js";
import { deployCreate2 } from "./create2.js";
import { planContracts } from "./plan.js";

export interface DeployOptions {
  chainId: number;
  rpcUrl: string;
  deployer: Account;
  /** Required for Base mainnet (8453): deploying to production is never implicit. */
  allowProduction?: boolean;
  /** Only print the plan. */
  dryRun?: boolean;
  log?: (line: string) => void;
  /** Where deployments/ lives (tests). */
  deploymentsDir?: string;
}

export interface DeployedContract {
  name: string;
  address: Address;
  txHash: Hex | null;
}

/**
 * Deploys the contracts of `deployments/<chainId>.json` through the canonical CREATE2 deployer, so
 * each lands at the address the file names. Contracts already there are left alone.
 */
export async function deployEnvironment(options: DeployOptions): Promise<DeployedContract[]> {
  const log = options.log ?? console.log;
  const deployment: Deployment = loadDeployment(options.chainId, options.deploymentsDir);
  if (deployment.environment === "production" && !options.allowProduction) {
    throw new Error("refusing to deploy to production (Base, 8453) without --production");
  }
  if (!isLive(deployment))
    throw new Error(`deployments/${options.chainId}.json has no parameters: set owner, feeCollector, feeBps, networkFeeUnits, relayers first`);
  const chain = deployment.chainId === base.id ? base : baseSepolia;
  const transport = http(options.rpcUrl, { retryCount: 2 });
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const remoteChainId = await publicClient.getChainId();
  if (remoteChainId !== deployment.chainId) {
    throw new Error(`the RPC serves chain ${remoteChainId}, but deployments/${deployment.chainId}.json is for chain ${deployment.chainId}`);
  }
  const wallet = createWalletClient({ chain, transport, account: options.deployer });
  const results: DeployedContract[] = [];
  let firstBlock: bigint | null = null;
  for (const planned of planContracts(deployment, deployment.parameters)) {
    const recorded = deployment.contracts[planned.name].address;
    if (planned.address !== recorded) {
      throw new Error(
        `${planned.name}: the compiled code gives ${planned.address}, deployments/${options.chainId}.json says ${recorded}. ` +
          "If you changed a contract, run `npm run build && npm run generate` and commit; otherwise rebuild (`npm run build`). Never deploy from an instrumented (--coverage) build.",
      );
    }
    if (options.dryRun) {
      log(`${planned.name}: would deploy at ${planned.address} (${(planned.initCode.length - 2) / 2} bytes of init code)`);
      results.push({ name: planned.name, address: planned.address, txHash: null });
      continue;
    }
    const result = await deployCreate2(
      { public: publicClient, wallet },
      options.deployer,
      chain,
      deployment.create2Deployer,
      deployment.salt as Hex,
      planned.initCode,
    );
    log(result.txHash ? `${planned.name}: deployed at ${result.address} in ${result.txHash}` : `${planned.name}: already at ${result.address}`);
    results.push({ name: planned.name, address: result.address, txHash: result.txHash });
    if (result.blockNumber !== null && (firstBlock === null || result.blockNumber < firstBlock)) firstBlock = result.blockNumber;
  }
  // The first block of ours: the payments list and the depositor search read no lower. Written when
  // this run deployed every contract (a fresh chain); contracts already there keep the block recorded
  // when they were deployed.
  if (firstBlock !== null && results.every((r) => r.txHash !== null)) {
    writeDeployment({ ...deployment, deployBlock: Number(firstBlock) }, options.deploymentsDir);
    log(`deployments/${options.chainId}.json: deployBlock ${firstBlock}`);
  }
  const network = deployment.chainId === base.id ? "base" : "baseSepolia";
  const argsDir = join(options.deploymentsDir ?? DEPLOYMENTS_DIR, "verify");
  mkdirSync(argsDir, { recursive: true });
  log("verify on the block explorer (ETHERSCAN_API_KEY and RPC_URL set):");
  for (const v of verification(network, deployment.chainId, deployment.contracts, deployment.parameters)) {
    writeFileSync(
      join(argsDir, v.argsFile),
      `// Constructor arguments of ${v.name} on chain ${deployment.chainId}, for hardhat verify.\nexport default ${JSON.stringify(v.args)};\n`,
    );
    log(`  npx hardhat verify --network ${network} --constructor-args-path deployments/verify/${v.argsFile} ${v.address}`);
  }
  return results;
}

/** What block-explorer verification needs per contract: its address and constructor arguments. */
export function verification(
  network: string,
  chainId: number,
  contracts: { Splitter: { address: Address }; RecurringCharges: { address: Address }; X402Receivers: { address: Address } },
  p: NonNullable<Deployment["parameters"]>,
) {
  void network;
  return [
    { name: "Splitter", address: contracts.Splitter.address, argsFile: `${chainId}.Splitter.args.mjs`, args: [p.feeCollector, p.feeBps] as unknown[] },
    {
      name: "RecurringCharges",
      address: contracts.RecurringCharges.address,
      argsFile: `${chainId}.RecurringCharges.args.mjs`,
      args: [p.owner, p.feeCollector, p.feeBps, p.networkFeeUnits, p.relayers] as unknown[],
    },
    {
      name: "X402Receivers",
      address: contracts.X402Receivers.address,
      argsFile: `${chainId}.X402Receivers.args.mjs`,
      args: [p.feeCollector, p.feeBps] as unknown[],
    },
  ];
}
